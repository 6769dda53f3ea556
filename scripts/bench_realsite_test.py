"""Tests of scripts/bench-realsite.py (python3 -m unittest discover -s scripts -p "*_test.py")."""

import importlib.util
import json
import os
import tempfile
import unittest
import xml.etree.ElementTree as ET

_spec = importlib.util.spec_from_file_location(
    "bench_realsite", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-realsite.py"))
br = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(br)

NS = "{http://www.mediawiki.org/xml/export-0.11/}"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class Family(unittest.TestCase):
    def test_table(self):
        for target, want in [
            ("/robots.txt", "robots.txt"),
            ("/w/load.php?lang=en&modules=site.styles&only=styles", "load.php (styles, scripts)"),
            ("/w/api.php?action=feedcontributions&feedformat=atom", "api.php"),
            ("/w/index.php?title=Article_3&diff=prev&oldid=7", "diff="),
            ("/w/index.php?title=Article_3&oldid=7", "oldid="),
            ("/w/index.php?title=Article_3&action=edit&section=2", "action=edit"),
            ("/w/index.php?title=Missing&action=edit&redlink=1", "action=edit"),
            ("/w/index.php?title=Article_3&action=history", "action=history"),
            ("/w/index.php?title=Article_3&action=info", "action=info"),
            ("/w/index.php?title=Article_3&action=watch", "action=(other)"),
            ("/wiki/Special:RecentChanges", "Special:"),
            ("/w/index.php?title=Special%3AWhatLinksHere/Article_3", "Special:"),
            ("/w/index.php?title=Article_3&printable=yes", "printable=yes"),
            ("/wiki/Main_Page", "Main Page"),
            ("/wiki/Article_1234", "articles (/wiki/Article_N)"),
            ("/wiki/Article_12/x", "other /wiki/ pages"),
            ("/wiki/Category:Group_4", "Category:"),
            ("/wiki/File:Bench_image_1.png", "File:"),
            ("/wiki/Template:Fact_box", "Template:"),
            ("/wiki/Talk:Article_3", "Talk:, User:, other namespaces"),
            ("/w/images/9/9c/Bench_image_1.png", "/w/images/ (uploads)"),
            ("/w/skins/Vector/resources/x.svg", "/w/skins/, /w/resources/ (static)"),
            ("/favicon.ico", "other"),
        ]:
            with self.subTest(target=target):
                self.assertEqual(br.family(target), want)


class Links(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.host = os.path.join(self.dir, "127.0.0.1:8080")
        self.page = os.path.join(self.host, "wiki", "Main_Page.html")

    def test_local_target(self):
        for ref, want in [
            ("http://127.0.0.1:8080/wiki/A", None),
            ("//example.org/x", None),
            ("mailto:a@b", None),
            ("#top", None),
            ("/wiki/A", ""),  # root-relative: leaves the mirror on disk
            ("Article_1.html#History", os.path.join(self.host, "wiki", "Article_1.html")),
            ("../w/load.php%3Fa=b&c=d.css", os.path.join(self.host, "w", "load.php?a=b&c=d.css")),
        ]:
            with self.subTest(ref=ref):
                self.assertEqual(br.local_target(self.page, ref), want)

    def test_styled(self):
        sheet = os.path.join(self.host, "w", "load.php?only=styles.css")
        html = '<link rel="stylesheet" href="../w/load.php%3Fonly=styles.css"><a href="Article_1.html">a</a>'
        write(self.page, html)
        self.assertTrue(br.styled(self.page)[0].startswith("no: ../w/load.php"))
        write(sheet, "")
        self.assertTrue(br.styled(self.page)[0].startswith("no:"), "an empty sheet is no style")
        write(sheet, "body{}")
        self.assertEqual(br.styled(self.page)[0], "yes")
        write(self.page, '<link rel="stylesheet" href="/w/load.php?only=styles">')
        self.assertTrue(br.styled(self.page)[0].startswith("no: /w/load.php"))
        write(self.page, "<p>plain</p>")
        self.assertEqual(br.styled(self.page)[0], "no: no stylesheet link")
        self.assertEqual(br.styled(None)[0], "no: Main Page not mirrored")

    def test_page_file_and_check_links(self):
        write(self.page, '<a href="Article_1.html">1</a><a href="Article_2.html">2</a>'
                         '<a href="/wiki/Article_3">3</a><img src="http://x/y.png">')
        write(os.path.join(self.host, "wiki", "Article_1.html"), "")
        self.assertEqual(br.page_file(self.host, "/wiki/Main_Page"), self.page)
        self.assertIsNone(br.page_file(self.host, "/wiki/Article_2"))
        marked = os.path.join(self.host, "wiki", "Article_4{}.html")
        write(marked, "")
        self.assertEqual(br.page_file(self.host, "/wiki/Article_4"), marked)
        total, ok, broken = br.check_links([self.page])
        self.assertEqual((total, ok), (3, 1))
        self.assertEqual(sorted(b for b, _ in broken), ["/wiki/Article_N", "Article_N.html"])


class Measure(unittest.TestCase):
    def test_counts_one_log_without_probe_and_dummy(self):
        d = tempfile.mkdtemp()
        log = os.path.join(d, "access.log")
        agent = '"spider/devel (+https://github.com/spider-mirror/spider; slow)"'
        write(log, "\n".join([
            f'127.0.0.1 [25/Nov/2026:00:51:00 +0000] "GET /wiki/Main_Page HTTP/1.1" 200 16841 4234 "{br.PROBE_AGENT}"',
            f'127.0.0.1 [25/Nov/2026:00:51:00 +0000] "GET /wiki/Main_Page HTTP/1.1" 200 16840 439 {agent}',
            f'127.0.0.1 [25/Nov/2026:00:51:00 +0000] "GET /robots.txt HTTP/1.1" 404 236 235 {agent}',
            '127.0.0.1 [25/Nov/2026:00:51:01 +0000] "OPTIONS * HTTP/1.0" 200 - 61 '
            '"Apache/2.4.71 (Debian) (internal dummy connection)"',
            f'127.0.0.1 [25/Nov/2026:00:51:02 +0000] "GET /wiki/Special:Random HTTP/1.1" 302 - 12 {agent}',
        ]) + "\n")
        host = os.path.join(d, "mirror", "127.0.0.1:8080")
        write(os.path.join(host, "wiki", "Main_Page.html"), '<a href="Article_1.html">x</a>')
        write(os.path.join(host, "wiki", "Article_1.html"), "<p>1</p>")
        write(os.path.join(host, "w", "load.php?x.css"), "body{}")
        lst = os.path.join(d, "spider.list")
        write(lst, "# spider-list v1: file spider_id level state last_modification url\n"
                   "a - 0 downloaded 2026-11-25T00:00:00Z http://127.0.0.1:8080/wiki/Main_Page\n"
                   "- - 1 found - http://127.0.0.1:8080/wiki/Article_2\n")
        out = os.path.join(d, "r.json")
        args = type("A", (), dict(tool="spider", log=log, mirror=os.path.join(d, "mirror"),
                                  host="127.0.0.1:8080", out=out, articles=3, exit=0,
                                  limit=60, wall=1.5, list=lst))
        br.cmd_measure(args)
        with open(out, encoding="utf-8") as f:
            r = json.load(f)
        self.assertEqual(r["requests"], 3)
        self.assertEqual(r["codes"], {"200": 1, "404": 1, "302": 1})
        self.assertEqual(r["families"], {"Main Page": 1, "robots.txt": 1, "Special:": 1})
        self.assertEqual((r["articles"], r["of"], r["main_page"]), (1, 3, True))
        self.assertEqual((r["files"], r["other_files"]), (3, 1))
        self.assertEqual((r["links"], r["links_ok"]), (1, 1))
        self.assertEqual(r["list"], {"downloaded": 1, "found": 1})
        self.assertTrue(r["styled"].startswith("no: no stylesheet"))
        text = br.render_tables([r])
        self.assertIn("| articles mirrored | 1 of 3 (33%) |", text)
        self.assertIn("| Special: | 1 |", text)
        self.assertIn("| requests to wiki machinery (edit, history, info, oldid, diff, Special:) | 1 (33%) |", text)
        self.assertIn("| requests per article mirrored | 3.0 |", text)


class Dump(unittest.TestCase):
    def test_wiki_is_well_formed_linked_and_repeatable(self):
        a, b = tempfile.mkdtemp(), tempfile.mkdtemp()
        for d in (a, b):
            br.cmd_dump(type("A", (), dict(n=120, dir=d)))
        with open(os.path.join(a, "pages.xml"), "rb") as fa, open(os.path.join(b, "pages.xml"), "rb") as fb:
            self.assertEqual(fa.read(), fb.read(), "one N, one wiki")
        root = ET.parse(os.path.join(a, "pages.xml")).getroot()
        pages = {p.find(NS + "title").text: p.find(f"{NS}revision/{NS}text").text
                 for p in root.iter(NS + "page")}
        titles = [f"Article {i}" for i in range(1, 121)]
        self.assertTrue(set(titles) <= set(pages))
        self.assertIn("Template:Fact box", pages)
        self.assertIn("Category:Group 2", pages)
        self.assertEqual(len(pages), 120 + 1 + 2)
        for t in titles:
            self.assertIn("[[Category:Group ", pages[t])
        self.assertIn("[[Article 2]]", pages["Article 1"])
        self.assertIn("[[File:Bench image", pages["Article 10"])
        self.assertIn("[[Missing topic 20]]", pages["Article 20"])
        with open(os.path.join(a, "main-page.wikitext"), encoding="utf-8") as f:
            main = f.read()
        self.assertIn("[[:Category:Group 2|Group 2]]", main)
        self.assertIn("[[Article 20]]", main)
        with open(os.path.join(a, "images", "Bench_image_1.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
