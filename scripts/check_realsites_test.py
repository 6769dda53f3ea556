"""Tests of scripts/check-realsites.py (python3 -m unittest discover -s scripts -p "*_test.py")."""

import importlib.util
import json
import os
import tempfile
import unittest

_spec = importlib.util.spec_from_file_location(
    "check_realsites", os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-realsites.py"))
cr = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cr)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class Test(unittest.TestCase):
    def test_family(self):
        for uri, want in [
            ("/doku.php?id=x&do=edit", "DokuWiki actions (do=)"),
            ("/lib/exe/taskrunner.php?id=x", "DokuWiki task runner"),
            ("/wp-json/oembed/1.0/embed?url=x", "WordPress REST, XML-RPC, admin, login"),
            ("/comments/feed/", "feeds"),
            ("/feed.php?mode=list", "feeds"),
            ("/2025/01/post-1/?replytocom=12", "comment replies (replytocom=)"),
            ("/?p=1001", "short links (?p=N)"),
            ("/2025/01/post-1/", "other"),
            ("/doku.php?id=start", "other"),
            ("/spidercheck/t3.1@example.com/raw", "public-inbox raw messages (/raw)"),
            ("/spidercheck/t3.1@example.com/t.mbox.gz", "public-inbox thread mboxes (/t.mbox.gz)"),
            ("/spidercheck/t3.1@example.com/t/", "public-inbox nested threads (/t/)"),
            ("/spidercheck/t3.1@example.com/T/", "public-inbox flat threads (/T/)"),
            ("/spidercheck/?t=20260922211320", "public-inbox index from a date (?t=)"),
            ("/spidercheck/t3.1@example.com/", "other"),
        ]:
            self.assertEqual(cr.family(uri), want, uri)

    def test_inbox_messages(self):
        with tempfile.TemporaryDirectory() as d:
            cr.inbox_messages(d, 50)
            names = sorted(os.listdir(d))
            self.assertEqual(len(names), 50)
            ids, replies = set(), 0
            for name in names:
                with open(os.path.join(d, name)) as f:
                    head = f.read().split("\n\n", 1)[0].split("\n")
                h = dict(line.split(": ", 1) for line in head)
                if "In-Reply-To" in h:
                    replies += 1
                    self.assertIn(h["In-Reply-To"], ids, name)  # answers an earlier message
                    self.assertTrue(h["References"].endswith(h["In-Reply-To"]), name)
                    self.assertTrue(h["Subject"].startswith("Re: "), name)
                ids.add(h["Message-ID"])
            self.assertEqual(len(ids), 50)
            self.assertTrue(10 < replies < 45, replies)

    def test_dokuwiki_pages(self):
        with tempfile.TemporaryDirectory() as d:
            ns = os.path.join(d, "spidercheck")
            cr.dokuwiki_pages(ns, 40)
            self.assertEqual(len(os.listdir(ns)), 41)
            with open(os.path.join(ns, "page_20.txt")) as f:
                text = f.read()
            self.assertIn("[[spidercheck:page_21]]", text)
            self.assertIn("[[spidercheck:nowhere_20]]", text)
            with open(os.path.join(ns, "start.txt")) as f:
                self.assertEqual(f.read().count("[[spidercheck:page_"), 4)

    def test_wordpress_sql(self):
        sql = cr.wordpress_sql(10, "http://127.0.0.1:1")
        self.assertEqual(sql.count("INSERT INTO wp_posts"), 10)
        self.assertEqual(sql.count("INSERT INTO wp_comments"), 4)  # posts 5 and 10, two each
        self.assertIn("'/%year%/%monthnum%/%postname%/'", sql)
        self.assertEqual(sql, cr.wordpress_sql(10, "http://127.0.0.1:1"))  # the same every run

    def test_measure_and_render(self):
        with tempfile.TemporaryDirectory() as r:
            write(os.path.join(r, "version"), "Site 1.0, 2 pages")
            for k, log in [(1, "200 GET /\n200 GET /a\n404 GET /b\n"), (2, "304 GET /\n200 GET /a\n")]:
                write(os.path.join(r, "access-%d.log" % k), log)
                write(os.path.join(r, "lines-%d" % k), "3\n")
                write(os.path.join(r, "rewritten-%d" % k), "1\n" if k > 1 else "2\n")
                write(os.path.join(r, "rewritten-%d.names" % k), "./index.html\n" if k > 1 else "./a\n./b\n")
                write(os.path.join(r, "wall-%d" % k), "1.5\n")
                write(os.path.join(r, "exit-%d" % k), "0\n")
            host = os.path.join(r, "m", "127.0.0.1:1")
            write(os.path.join(host, "index.html"),
                  '<a href="a{}.html">a</a><a href="b{}.html">b</a><a href="/abs">x</a>'
                  '<a href="http://x.example/">out</a><a href="#top">top</a><img src="a%7B%7D.html#f">')
            write(os.path.join(host, "a{}.html"), "<p>a</p>")
            write(os.path.join(r, "m", ".spider", "x.html"), '<a href="nowhere">n</a>')
            got = cr.measure("site", r)
            self.assertEqual([run["run"] for run in got["runs"]], [1, 2])
            self.assertEqual(got["runs"][0]["status"], {"200": 2, "404": 1})
            self.assertEqual(got["runs"][1]["status"], {"200": 1, "304": 1})
            self.assertEqual((got["links"], got["broken"]), (4, 2))  # b{}.html and the root-relative /abs
            md = cr.render("scripts/check-realsites", [json.loads(json.dumps(got))])
            self.assertIn("## Site 1.0, 2 pages", md)
            self.assertIn("| first mirror | 0 | 1.5 | 3 | 200: 2, 404: 1 | — |", md)
            self.assertIn("| revisit 1 | 0 | 1.5 | 3 | 200: 1, 304: 1 | 1 (`index.html`) |", md)
            self.assertIn("of which 2 lead to no file", md)
            self.assertNotIn("exclusions", md)  # no scoped run

    def test_scoped_run(self):
        with tempfile.TemporaryDirectory() as r:
            write(os.path.join(r, "version"), "public-inbox 1.9, 2 messages")
            d = os.path.join(r, "scoped")
            write(os.path.join(d, "access.log"), "200 GET /i/\n200 GET /i/m1@x/\n200 GET /i/m1@x/T/\n404 GET /i/m3@x/\n")
            for name, v in [("exit", "0"), ("lines", "4"), ("messages", "1"), ("of", "2")]:
                write(os.path.join(d, name), v + "\n")
            got = cr.measure("publicinbox", r)
            self.assertEqual(got["scoped"]["lines"], 4)
            self.assertEqual(got["scoped"]["status"], {"200": 3, "404": 1})
            md = cr.render("scripts/check-realsites", [got])
            self.assertIn("exit 0, 4 list lines, requests 200: 3, 404: 1 "
                          "(public-inbox flat threads (/T/) 1, other 3);", md)
            self.assertIn("1 of the 2 messages have their page in the mirror.", md)


if __name__ == "__main__":
    unittest.main()
