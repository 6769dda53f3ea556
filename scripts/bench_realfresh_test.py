"""Tests of scripts/bench-realfresh.py (python3 -m unittest discover -s scripts -p "*_test.py")."""

import argparse
import importlib.util
import json
import os
import sqlite3
import tempfile
import time
import unittest

_spec = importlib.util.spec_from_file_location(
    "bench_realfresh", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-realfresh.py"))
rf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rf)


def page(title, rev, action="view", ns=0):
    """The head of a page as MediaWiki 1.39 renders it, with its RLCONF."""
    return (f'<!DOCTYPE html><html><head><script>RLCONF={{"wgCanonicalNamespace":"",'
            f'"wgNamespaceNumber":{ns},"wgPageName":"{title}","wgTitle":"{title.replace("_", " ")}",'
            f'"wgCurRevisionId":{rev + 1},"wgRevisionId":{rev},"wgArticleId":7,"wgIsArticle":true,'
            f'"wgAction":"{action}","wgUserName":null}};</script></head><body>text</body></html>')


def write(path, text, mtime=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))


def dump(v, path):
    with open(path, "w") as f:
        json.dump(v, f)


class MirrorRevisions(unittest.TestCase):
    def test_read(self):
        with tempfile.TemporaryDirectory() as d:
            for name, text, want in [
                ("view.html", page("Article_3", 41), ("Article_3", 41)),
                ("history.html", page("Article_3", 41, action="history"), (None, 0)),
                ("category.html", page("Category:Group_1", 9, ns=14), (None, 0)),
                ("plain.html", "<html><body>no config</body></html>", (None, 0)),
            ]:
                path = os.path.join(d, name)
                write(path, text)
                self.assertEqual(rf.Mirror.read(path), want, name)

    def test_latest_copy_counts_and_changes_are_read_again(self):
        with tempfile.TemporaryDirectory() as d:
            m = rf.Mirror(d)
            old = os.path.join(d, "h", "w", "index.php?title=Article_3&oldid=40.html")
            view = os.path.join(d, "h", "wiki", "Article_3.html")
            write(old, page("Article_3", 40), mtime=1000)
            write(view, page("Article_3", 41), mtime=1000)
            write(os.path.join(d, "h", "wiki", "Article_4.html"), page("Article_4", 7), mtime=1000)
            write(os.path.join(d, "h", "style.css"), "body{}")
            self.assertEqual(m.revisions(), {"Article_3": 41, "Article_4": 7})
            write(view, page("Article_3", 44), mtime=2000)
            os.remove(os.path.join(d, "h", "wiki", "Article_4.html"))
            self.assertEqual(m.revisions(), {"Article_3": 44})
            self.assertEqual(len(m.files), 2)


class Database(unittest.TestCase):
    def test_live_articles(self):
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "wiki.sqlite")
            con = sqlite3.connect(db)
            con.execute("CREATE TABLE page (page_namespace INTEGER, page_title BLOB, page_latest INTEGER)")
            con.executemany("INSERT INTO page VALUES (?, ?, ?)",
                            [(0, b"Article_1", 10), (0, b"Main_Page", 12), (14, b"Group_1", 3)])
            con.commit()
            con.close()
            self.assertEqual(rf.live_articles(db), {"Article_1": 10, "Main_Page": 12})


class Summary(unittest.TestCase):
    def test_figures(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "access.log")
            write(log, "\n".join([
                '127.0.0.1 [x] "GET /wiki/Main_Page HTTP/1.1" 200 100 5 "bench-realsite-probe"',
                '127.0.0.1 [x] "GET /wiki/Main_Page HTTP/1.1" 200 100 5 "spider"',
                '127.0.0.1 [x] "GET /wiki/Article_1 HTTP/1.1" 304 - 5 "spider"',
                '127.0.0.1 [x] "GET /w/index.php?title=Article_1&action=edit HTTP/1.1" 200 9 5 "Wget"',
                '127.0.0.1 [x] "GET /wiki/Special:Random HTTP/1.1" 302 9 5 "Wget"',
                '127.0.0.1 [x] "POST /w/api.php HTTP/1.1" 200 9 5 "bench-realfresh-churn"',
            ]) + "\n")
            self.assertEqual(rf.access(log), (4, 1, 2))
            start = 1000.0
            samples = os.path.join(d, "samples.json")
            dump({"samples": [
                {"t": 0, "live": 10, "have": 0, "current": 0},
                {"t": 2, "live": 10, "have": 9, "current": 8},
                {"t": 4, "live": 11, "have": 11, "current": 10},
            ], "first_seen": {"Article_11 5": 3.0, "Article_3 6": 40.0, "Article_3 9": 45.0}}, samples)
            churn = os.path.join(d, "churn.jsonl")
            write(churn, "\n".join(json.dumps(c) for c in [
                {"t": start + 1, "kind": "new", "title": "Article_11", "rev": 5},
                {"t": start + 2, "kind": "announced", "title": "Article_3", "rev": 9},  # 43 s late
                {"t": start + 3, "kind": "silent", "title": "Article_4", "rev": 10},
                {"t": start + 4, "kind": "delete", "title": "Article_5", "rev": None},
                {"t": start + 50, "kind": "new", "title": "Article_12", "rev": 11},  # too late to judge
            ]) + "\n")
            out = os.path.join(d, "row.json")
            rf.cmd_summarize(argparse.Namespace(samples=samples, churn=churn, access_log=log, tool="spider",
                                                start=start, duration=60, fast_window=30, out=out))
            r = rf.load(out)
            self.assertAlmostEqual(r["mean"], (0 + 0.8 + 10 / 11) / 3)
            self.assertEqual(r["sweep"], 4)  # 9 of 10 is under 95%
            self.assertAlmostEqual(r["after"], 10 / 11)
            self.assertEqual((r["announced"], r["within"], r["changes"]), (2, 1, 5))
            self.assertEqual((r["requests"], r["not_modified"], r["machinery"]), (4, 1, 2))
            self.assertEqual(r["curve"], [[0, 0.0]])  # one point a minute

    def test_medians_per_tool(self):
        rows = [{"tool": t, "mean": m, "after": a, "sweep": 10, "end": m, "requests": q, "not_modified": 0,
                 "machinery": 0, "changes": 5, "announced": 4, "within": w}
                for t, m, a, q, w in [("spider", 0.5, 0.9, 100, 4), ("wget", 0.3, None, 90, 0),
                                      ("spider", 0.7, 0.8, 300, 2), ("spider", 0.6, 0.95, 200, 3)]]
        got = rf.median_rows(rows)
        self.assertEqual([r["tool"] for r in got], ["spider", "wget"])
        self.assertEqual((got[0]["mean"], got[0]["after"], got[0]["requests"], got[0]["share"], got[0]["runs"]),
                         (0.6, 0.9, 200, 0.75, 3))
        self.assertIsNone(got[1]["after"])


if __name__ == "__main__":
    unittest.main()
