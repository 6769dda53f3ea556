"""Tests of scripts/bench-fresh.py (python3 -m unittest discover -s scripts -p "*_test.py")."""

import importlib.util
import json
import os
import tempfile
import unittest

_spec = importlib.util.spec_from_file_location(
    "bench_fresh", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-fresh.py"))
bf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bf)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)


def page(version):
    return f'<!DOCTYPE html>\n<head>\n<meta charset="utf-8">\n<meta name="x-version" content="{version}">\n'


class Keys(unittest.TestCase):
    def test_key(self):
        for path, want in [
            ("/", "/"),
            ("/article/7-%D0%BF%D1%80%D0%B8%D0%B2%D0%B5%D1%82", "/article/7-привет"),
            ("/archive/?page=2", "/archive/?page=2"),
            ("/about?", "/about"),
        ]:
            self.assertEqual(bf.key(path), want, path)

    def test_url_key(self):
        self.assertEqual(bf.url_key("http://127.0.0.1:8080"), "/")
        self.assertEqual(bf.url_key("http://127.0.0.1:8080/archive/?page=3"), "/archive/?page=3")
        self.assertEqual(bf.url_key("http://h/article/7-%D0%BF"), "/article/7-п")

    def test_wget_file(self):
        for path, marked, want in [
            ("/", True, "index.html"),
            ("/about", True, "about.html"),
            ("/section/news/", True, "section/news/index.html"),
            ("/archive/?page=2", True, "archive/index.html?page=2.html"),
            ("/article/7-%D0%BF", True, "article/7-п.html"),
            ("/media/3.png", False, "media/3.png"),
            ("/static/site.css", False, "static/site.css"),
            ("/already.html", True, "already.html"),
        ]:
            self.assertEqual(bf.wget_file(path, marked), want, path)


class Copies(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def test_list_files_any_number_of_fields(self):
        lst = os.path.join(self.dir, "LIST")
        write(lst, "# spider-list v1: file spider_id level state last_modification url\n"
                   "h/index.html - 0 downloaded 2026-11-25T03:03:03Z http://h/\n"
                   "h/a{}.html slow 3 downloaded 2026-11-25T03:03:03Z 2026-11-25T04:00:00Z http://h/a?x=1\n"
                   "h/torn-line-without-url\n"
                   "\n")
        self.assertEqual(bf.list_files(lst), {"/": "h/index.html", "/a?x=1": "h/a{}.html"})
        self.assertEqual(bf.list_files(os.path.join(self.dir, "missing")), {})

    def test_copy_version(self):
        write(os.path.join(self.dir, "p.html"), page(7) + "<body>…</body>")
        write(os.path.join(self.dir, "bare.html"), "<!DOCTYPE html><p>no marker</p>")
        write(os.path.join(self.dir, "i.png"), b"\x89PNG")
        self.assertEqual(bf.copy_version(os.path.join(self.dir, "p.html"), True), 7)
        self.assertEqual(bf.copy_version(os.path.join(self.dir, "bare.html"), True), 0)
        self.assertEqual(bf.copy_version(os.path.join(self.dir, "i.png"), False), 1)
        self.assertIsNone(bf.copy_version(os.path.join(self.dir, "none.html"), True))
        self.assertIsNone(bf.copy_version(self.dir, True))  # a directory is no copy

    def test_mirror_spider_and_wget(self):
        write(os.path.join(self.dir, "LIST"), "h/index.html - 0 downloaded - http://h/\n")
        write(os.path.join(self.dir, "m/h/index.html"), page(3))
        m = bf.Mirror(list_path=os.path.join(self.dir, "LIST"), mirror=os.path.join(self.dir, "m"))
        m.refresh()
        self.assertEqual(m.version("/", True), 3)
        self.assertIsNone(m.version("/about", True))
        write(os.path.join(self.dir, "w/h/about.html"), page(2))
        w = bf.Mirror(wget=os.path.join(self.dir, "w/h"))
        self.assertEqual(w.version("/about", True), 2)

    def test_mirror_list_command(self):
        # A list in PostgreSQL: the list as `spider list export` prints it,
        # read anew at every refresh, with the same parser as a list file.
        lst = os.path.join(self.dir, "exported")
        write(lst, "h/index.html - 0 downloaded - http://h/\n")
        write(os.path.join(self.dir, "m/h/index.html"), page(4))
        write(os.path.join(self.dir, "m/h/new.html"), page(1))
        cat = f"python3 -c 'import sys; sys.stdout.write(open(sys.argv[1]).read())' '{lst}'"
        m = bf.Mirror(mirror=os.path.join(self.dir, "m"), list_command=cat)
        m.refresh()
        self.assertEqual(m.version("/", True), 4)
        self.assertIsNone(m.version("/new", True))
        write(lst, "h/index.html - 0 downloaded - http://h/\nh/new.html slow 1 downloaded - http://h/new\n")
        m.refresh()
        self.assertEqual(m.version("/new", True), 1)

    def test_command_files_failure_keeps_nothing(self):
        fail = ["python3", "-c", "import sys; print('h/x.html - 0 found - http://h/x'); sys.exit(3)"]
        self.assertEqual(bf.command_files(fail), {})
        self.assertEqual(bf.command_files([os.path.join(self.dir, "no-such-command")]), {})
        ok = ["python3", "-c", "print('h/x.html - 0 found - http://h/x')"]
        self.assertEqual(bf.command_files(ok), {"/x": "h/x.html"})
        # A failed read between two good ones loses no file known before.
        m = bf.Mirror(mirror=self.dir, list_command=" ".join(ok[:2]) + ' "print(\'h/x.html - 0 found - http://h/x\')"')
        m.refresh()
        m.list_command = fail
        m.refresh()
        self.assertEqual(m.files, {"/x": "h/x.html"})


class Arithmetic(unittest.TestCase):
    def test_freshness(self):
        versions = {"/": 3, "/a": 2, "/b": 1, "/img.png": 1}
        copies = {"/": 3, "/a": 1, "/img.png": 1, "/deleted": 5, "/deleted/too": 1}
        # /b has no copy: not current; /a is behind; /deleted is not live.
        self.assertEqual(bf.freshness(versions, copies), (4, 2, 3))
        # A copy newer than a truth read a moment earlier counts as current.
        self.assertEqual(bf.freshness({"/": 3}, {"/": 4}), (1, 1, 1))
        self.assertEqual(bf.freshness({}, {}), (0, 0, 0))

    def samples(self, rows):
        return [{"t": t, "live": live, "current": cur, "have": have, "have_initial": hi, "initial_live": il}
                for t, live, cur, have, hi, il in rows]

    def test_first_sweep_and_means(self):
        s = self.samples([
            (0, 100, 0, 0, 0, 100),
            (5, 100, 50, 60, 60, 100),
            (10, 99, 90, 95, 94, 98),  # 94 of the 98 initial URLs still live: 95.9%
            (15, 100, 100, 100, 98, 98),
        ])
        self.assertEqual(bf.first_sweep(s), 2)
        self.assertAlmostEqual(bf.mean_freshness(s), (0 + 0.5 + 90 / 99 + 1) / 4)
        self.assertAlmostEqual(bf.mean_freshness(s[2:]), (90 / 99 + 1) / 2)
        self.assertIsNone(bf.first_sweep(s[:2]))
        self.assertIsNone(bf.mean_freshness([]))

    def test_announced_within(self):
        changes = [
            {"kind": "added", "offset": 10, "reached": 24},       # 14 s: caught
            {"kind": "announced", "offset": 20, "reached": 36},   # 16 s: missed
            {"kind": "announced", "offset": 30, "reached": None},  # never: missed
            {"kind": "added", "offset": 40, "reached": None, "gone": True},  # deleted: not counted
            {"kind": "edited", "offset": 50, "reached": 51},      # silent: not counted
            {"kind": "added", "offset": 170, "reached": None},    # window runs past the end: not counted
            {"kind": "added", "offset": 165, "reached": 170},     # window ends at the end: counted, caught
        ]
        self.assertEqual(bf.announced_within(changes, 15, 180), (2, 4))

    def test_request_stats(self):
        lines = ["99.0 200 GET /\n"]  # before the start
        lines += [f"{100 + i * 0.1:.6f} 200 GET /a\n" for i in range(50)]  # 10/s for 5 s
        lines += [f"{110 + i:.6f} 304 GET /b\n" for i in range(5)]
        lines += ["garbage\n", "130.5 200 GET /late\n"]  # after the end
        st = bf.request_stats(lines, 100, 130)
        self.assertEqual(st["requests"], 55)
        self.assertEqual(st["not_modified"], 5)
        self.assertAlmostEqual(st["rate"], 55 / 30)
        self.assertAlmostEqual(st["peak"], 5.0)  # 50 requests in the busiest 10 s
        # 49 gaps of 0.1 s, 4 of 1 s, one of 5.1 s: the 90th percentile
        # (statistics.quantiles) lies halfway between the 49th and 50th.
        self.assertAlmostEqual(st["gap"], 0.1)
        self.assertAlmostEqual(st["gap_p90"], 0.55)
        one = bf.request_stats(["100.5 200 GET /\n"], 100, 130)
        self.assertIsNone(one["gap"])
        self.assertIsNone(one["gap_p90"])

    def test_render_gaps(self):
        rows = [{"budget": "20", "tool": t, "gap": g, "gap_p90": g + 0.005}
                for t, g in [("spider", 0.050), ("spider", 0.052), ("spider", 0.051), ("spider-pg", 0.053)]]
        rows.append({"budget": "20", "tool": "wget", "gap": None, "gap_p90": None})
        lines = bf.render_gaps(rows).splitlines()
        self.assertIn("| 20 | spider | 51.0 | 56.0 |", lines)
        self.assertIn("| 20 | spider-pg | 53.0 | 58.0 |", lines)
        self.assertIn("| 20 | wget | — | — |", lines)


class Summaries(unittest.TestCase):
    def data(self, mean):
        return {"start": 1000.0, "duration": 20, "interval": 5,
                "samples": [{"t": t, "live": 10, "current": c, "have": 10, "have_initial": 10, "initial_live": 10,
                             "stale": []}
                            for t, c in [(0, 0), (5, 10 * mean), (10, 10 * mean), (15, 10 * mean), (20, 10 * mean)]],
                "changes": [{"kind": "added", "time": 1001.0, "reached": 4.0, "gone": False}]}

    def test_summarize(self):
        lines = [f"{1000 + i:.6f} {304 if i % 2 else 200} GET /\n" for i in range(20)]
        r = bf.summarize(self.data(0.8), lines, "wget", "20", 15)
        self.assertEqual(r["sweep"], 0)
        self.assertAlmostEqual(r["mean"], 0.64)
        self.assertEqual((r["announced_caught"], r["announced"]), (1, 1))
        self.assertEqual((r["requests"], r["not_modified"]), (20, 10))
        self.assertEqual(r["curve"][1], (5, 0.8))

    def test_render_medians(self):
        rows = [bf.summarize(self.data(m), [], "spider", "20", 15) for m in (0.5, 0.9, 0.7)]
        rows.append(bf.summarize(self.data(0.6), [], "spider", "none", 15))
        text = bf.render(rows, "# Header\n")
        self.assertTrue(text.startswith("# Header\n"))
        lines = [l for l in text.splitlines() if l.startswith("| 20 | spider")]
        self.assertEqual(len(lines), 3)  # the medians' row, the losses' and the curve's
        self.assertIn(f"| {0.7 * 0.8:.4f} |", lines[0])  # the median run's time average
        self.assertTrue(lines[0].endswith("| 3 |"))
        self.assertLess(text.index("| 20 | spider"), text.index("| none | spider"))

    def test_losses(self):
        # Two samples after the first sweep: stale copies by kind, and the
        # live URLs neither current nor stale (no copy).
        samples = [{"t": 0, "live": 10, "current": 5, "stale": ["/", "/section/a/", "/article/1-x", "/media/1.png"]},
                   {"t": 5, "live": 10, "current": 7, "stale": ["/archive/?page=2", "/archive/", "/about"]}]
        want = {"start page": 0.5, "section and archive pages": 1.5, "articles": 0.5, "images": 0.5,
                "other": 0.5, "no copy": 0.5}
        self.assertEqual(bf.losses(samples), want)
        self.assertIsNone(bf.losses([]))
        data = self.data(0.8)
        data["samples"][2]["stale"] = ["/article/1-x", "/article/2-y"]
        r = bf.summarize(data, [], "spider", "20", 15)
        self.assertEqual(r["losses"]["articles"], 2 / 5)  # from the first sweep (0 s) on
        rows = [r, bf.summarize(self.data(0.8), [], "spider", "20", 15), bf.summarize(data, [], "spider", "20", 15)]
        text = bf.render(rows)
        self.assertIn("| 20 | spider | 0.00 | 0.00 | 0.40 | 0.00 | 0.00 | 3.20 |", text)  # medians over runs

    def test_render_long_runs(self):
        # A run of 20 s gives a sample every 5 s; one of 300 s puts the
        # curve's columns a minute apart, and the table says how long each ran.
        short = bf.summarize(self.data(0.5), [], "spider", "20", 15)
        data = self.data(0.9)
        data["duration"] = 300
        data["samples"] = [dict(data["samples"][1], t=t) for t in range(0, 301, 5)]
        long = bf.summarize(data, [], "spider", "10", 15)
        text = bf.render([short, long])
        self.assertIn("| 10 | spider | 300 |", text)
        self.assertIn("| 20 | spider | 20 |", text)
        head = [l for l in text.splitlines() if l.startswith("| budget | tool | 0 s")][0]
        self.assertEqual(head, "| budget | tool | " + " | ".join(f"{t} s" for t in range(0, 301, 60)) + " |")

    def test_sample_end_to_end(self):
        d = tempfile.mkdtemp()
        write(os.path.join(d, "truth.json"), json.dumps({
            "time": 1, "changes_applied": 0, "versions": {"/": 2, "/media/1.png": 1, "/about": 1},
            "unmarked": ["/media/1.png"], "changes": None}))
        write(os.path.join(d, "w/index.html"), page(2))
        write(os.path.join(d, "w/media/1.png"), b"\x89PNG")
        write(os.path.join(d, "w/about.html"), page(0))
        out = os.path.join(d, "samples.json")
        args = type("A", (), dict(truth=os.path.join(d, "truth.json"), list=None, list_command=None, mirror=None,
                                  wget=os.path.join(d, "w"), start=bf.time.time(), duration=0, interval=5,
                                  ready_file=os.path.join(d, "ready"), out=out))
        bf.cmd_sample(args)
        with open(out) as f:
            s = json.load(f)["samples"]
        self.assertEqual([(x["live"], x["current"], x["have"]) for x in s], [(3, 2, 3)])
        self.assertEqual(s[0]["stale"], ["/about"])  # a copy of an older version
        # The ready file says when the 0 s sample was taken: at the start or after.
        with open(os.path.join(d, "ready")) as f:
            self.assertGreaterEqual(float(f.read()), args.start - 0.05)


if __name__ == "__main__":
    unittest.main()
