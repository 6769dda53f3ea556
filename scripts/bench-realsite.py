#!/usr/bin/env python3
"""scripts/bench-realsite.py: the helper of scripts/bench-realsite.

  dump N DIR       writes DIR/pages.xml (a MediaWiki XML dump of N
                   interlinked articles, their categories and a template),
                   DIR/main-page.wikitext (a Main Page linking into them)
                   and DIR/images/*.png (a few small images)
  measure ...      measures one tool's run (its server's access log, its
                   mirror, its list) and writes the figures as JSON
  render ...       writes the Markdown report from the JSON files

Everything is generated from a fixed seed, so two dumps of one N are the
same wiki. Only the standard library is used.
"""

import argparse
import collections
import html.parser
import json
import os
import random
import re
import struct
import sys
import urllib.parse
import zlib
from xml.sax.saxutils import escape

IMAGES = 5
WORDS = ("river stone lantern harbour meadow signal copper orchard valley "
         "thread engine winter garden bridge market ember canal tower "
         "archive compass ferry glacier hollow island juniper kettle "
         "ledger mill north quarry ridge salt timber umber vessel willow "
         "yard zephyr amber basin cedar delta estuary fjord granite heath "
         "inlet jetty keel loch moor nave oxbow pier quay reef strait "
         "tarn upland vale weir").split()


def article_title(i):
    return f"Article {i}"


def category_count(n):
    return max(1, n // 50)


def sentence(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 16))]
    return " ".join(words).capitalize() + "."


def article_text(i, n, rng):
    """Wikitext of article i: sections of prose with links to neighbours
    and to random articles, the fact box, sometimes an image or a link to
    a page that does not exist, and one category."""
    links = {i % n + 1, (i - 2) % n + 1}
    links |= {rng.randint(1, n) for _ in range(6)}
    links.discard(i)
    links = sorted(links)
    parts = [f"{{{{Fact box|number={i}|group={i % category_count(n) + 1}}}}}"]
    if i % 10 == 0:
        parts.append(f"[[File:Bench image {i % IMAGES + 1}.png|right|Figure of article {i}]]")
    parts.append(f"'''{article_title(i)}''' is one of {n} generated articles. " +
                 " ".join(sentence(rng) for _ in range(3)))
    for s, heading in enumerate(("History", "Geography", "Economy", "See also")):
        parts.append(f"== {heading} ==")
        if heading == "See also":
            parts.append("\n".join(f"* [[{article_title(j)}]]" for j in links))
            continue
        chosen = links[s::3]
        prose = [sentence(rng) for _ in range(4)]
        for k, j in enumerate(chosen):
            prose.insert(k * 2 + 1, f"See [[{article_title(j)}|the {rng.choice(WORDS)} of {j}]].")
        parts.append(" ".join(prose))
    if i % 20 == 0:
        parts.append(f"A future article: [[Missing topic {i}]].")
    parts.append(f"[[Category:Group {i % category_count(n) + 1}]]")
    return "\n\n".join(parts)


def main_page_text(n):
    cats = category_count(n)
    featured = " · ".join(f"[[{article_title(i)}]]" for i in range(1, min(n, 20) + 1))
    groups = "\n".join(f"* [[:Category:Group {c}|Group {c}]]" for c in range(1, cats + 1))
    return (f"'''Welcome to Bench Wiki''', {n} generated articles in {cats} groups.\n\n"
            f"== Featured ==\n{featured}\n\n== Groups ==\n{groups}\n")


def page_xml(title, ns, text):
    return ("  <page>\n"
            f"    <title>{escape(title)}</title>\n    <ns>{ns}</ns>\n"
            "    <revision>\n      <timestamp>2026-01-01T00:00:00Z</timestamp>\n"
            "      <contributor><username>Bench</username><id>1</id></contributor>\n"
            "      <model>wikitext</model><format>text/x-wiki</format>\n"
            f"      <text xml:space=\"preserve\">{escape(text)}</text>\n"
            "    </revision>\n  </page>\n")


def png(width, height, rgb):
    """A PNG of one colour with a darker diagonal band."""
    rows = bytearray()
    for y in range(height):
        rows.append(0)
        for x in range(width):
            dark = abs(x - y * width // height) < width // 8
            rows += bytes(c // 2 if dark else c for c in rgb)

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    return (b"\x89PNG\r\n\x1a\n" +
            chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(bytes(rows), 9)) + chunk(b"IEND", b""))


def cmd_dump(args):
    n, out = args.n, args.dir
    rng = random.Random(20)
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    with open(os.path.join(out, "pages.xml"), "w", encoding="utf-8") as f:
        f.write('<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/" '
                'version="0.11" xml:lang="en">\n')
        f.write(page_xml("Template:Fact box", 10,
                         '{| class="wikitable" style="float:right"\n! Number\n| {{{number}}}\n'
                         '|-\n! Group\n| [[:Category:Group {{{group}}}|{{{group}}}]]\n|}'))
        for c in range(1, category_count(n) + 1):
            f.write(page_xml(f"Category:Group {c}", 14, f"Articles of group {c}."))
        for i in range(1, n + 1):
            f.write(page_xml(article_title(i), 0, article_text(i, n, rng)))
        f.write("</mediawiki>\n")
    # The installer has written a Main Page of its own, newer than any
    # imported revision: the script puts this text on top with edit.php.
    with open(os.path.join(out, "main-page.wikitext"), "w", encoding="utf-8") as f:
        f.write(main_page_text(n))
    colours = [(200, 60, 60), (60, 160, 60), (60, 90, 200), (200, 170, 40), (140, 60, 170)]
    for k in range(1, IMAGES + 1):
        with open(os.path.join(out, "images", f"Bench_image_{k}.png"), "wb") as f:
            f.write(png(160, 120, colours[(k - 1) % len(colours)]))


# Request families, first match wins; each is (name, test on the decoded
# path-and-query).
FAMILIES = [
    ("robots.txt", lambda u: u.startswith("/robots.txt")),
    ("load.php (styles, scripts)", lambda u: u.startswith("/w/load.php")),
    ("api.php", lambda u: u.startswith("/w/api.php")),
    ("rest.php", lambda u: u.startswith("/w/rest.php")),
    ("opensearch_desc.php", lambda u: u.startswith("/w/opensearch_desc.php")),
    ("diff=", lambda u: re.search(r"[?&]diff=", u)),
    ("oldid=", lambda u: re.search(r"[?&]oldid=", u)),
    ("action=edit", lambda u: re.search(r"[?&]action=(edit|submit)", u)),
    ("action=history", lambda u: re.search(r"[?&]action=history", u)),
    ("action=info", lambda u: re.search(r"[?&]action=info", u)),
    ("action=raw", lambda u: re.search(r"[?&]action=raw", u)),
    ("action=(other)", lambda u: re.search(r"[?&]action=", u)),
    ("Special:", lambda u: "Special:" in u),
    ("printable=yes", lambda u: "printable=yes" in u),
    ("Main Page", lambda u: u == "/wiki/Main_Page"),
    ("articles (/wiki/Article_N)", lambda u: re.fullmatch(r"/wiki/Article_\d+", u)),
    ("Category:", lambda u: "Category:" in u),
    ("File:", lambda u: "File:" in u),
    ("Template:", lambda u: "Template:" in u),
    ("Talk:, User:, other namespaces", lambda u: re.match(r"/wiki/[A-Za-z_]+:", u)),
    ("/w/images/ (uploads)", lambda u: u.startswith("/w/images/")),
    ("/w/skins/, /w/resources/ (static)", lambda u: re.match(r"/w/(skins|resources)/", u)),
    ("other /wiki/ pages", lambda u: u.startswith("/wiki/")),
    ("other /w/index.php", lambda u: u.startswith("/w/index.php")),
]

# The access log's format (apache's LogFormat in scripts/bench-realsite):
# %h %t "%r" %>s %b %D "%{User-Agent}i"
LOG_LINE = re.compile(r'^\S+ \[[^\]]*\] "(\S+) (\S+)[^"]*" (\d{3}) \S+ \S+ "([^"]*)"')
PROBE_AGENT = "bench-realsite-probe"  # the script's own readiness probe


def family(target):
    u = urllib.parse.unquote(target)
    for name, test in FAMILIES:
        if test(u):
            return name
    return "other"


class Links(html.parser.HTMLParser):
    """Collects href and src values, and the stylesheet links apart."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links, self.styles = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "link" and "stylesheet" in (a.get("rel") or "").split() and a.get("href"):
            self.styles.append(a["href"])
        for key in ("href", "src"):
            if a.get(key):
                self.links.append(a[key])


def local_target(page, ref):
    """The file a link of page leads to, or None for a link that leaves
    the mirror (absolute, protocol-relative, mailto:, a fragment)."""
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", ref) or ref.startswith("//") or ref.startswith("#"):
        return None
    ref = ref.split("#", 1)[0]
    if not ref:
        return None
    if ref.startswith("/"):
        return ""  # root-relative: leads out of the mirror on disk, never resolves
    return os.path.normpath(os.path.join(os.path.dirname(page), urllib.parse.unquote(ref)))


def page_file(host_dir, path):
    """The mirror's file for a page path: wget -E's name, or spider's,
    which marks with "{}" where it added to the URL's own name."""
    for cand in (path + "{}.html", path + ".html", path, os.path.join(path, "index.html")):
        f = os.path.join(host_dir, cand.lstrip("/"))
        if os.path.isfile(f):
            return f
    return None


def check_links(files):
    """Counts the links of the given pages whose target is a local file."""
    total = ok = 0
    broken = collections.Counter()
    for f in files:
        p = Links()
        with open(f, encoding="utf-8", errors="replace") as fh:
            p.feed(fh.read())
        for ref in p.links:
            t = local_target(f, ref)
            if t is None:
                continue
            total += 1
            if t and os.path.exists(t):
                ok += 1
            else:
                broken[re.sub(r"[0-9]+", "N", ref)[:80]] += 1
    return total, ok, broken.most_common(5)


def styled(main):
    """Whether the Main Page's copy is styled: its stylesheet links, and
    whether each resolves to a non-empty mirrored file."""
    if main is None:
        return "no: Main Page not mirrored", []
    p = Links()
    with open(main, encoding="utf-8", errors="replace") as fh:
        p.feed(fh.read())
    if not p.styles:
        return "no: no stylesheet link", []
    found = []
    for ref in p.styles:
        t = local_target(main, ref)
        found.append((ref, t and os.path.isfile(t) and os.path.getsize(t) > 0))
    if all(ok for _, ok in found):
        return "yes", found
    return "no: " + ", ".join(r for r, ok in found if not ok)[:200], found


def list_states(path):
    states = collections.Counter()
    if path and os.path.isfile(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("#"):
                    continue
                fields = line.split()
                if len(fields) >= 6:
                    states[fields[3]] += 1
    return states


def cmd_measure(args):
    fams, codes = collections.Counter(), collections.Counter()
    with open(args.log, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    for line in lines:
        m = LOG_LINE.match(line)
        if not m or m.group(4) == PROBE_AGENT or "internal dummy connection" in m.group(4):
            continue  # the script's probe, apache's wake-ups of its children
        fams[family(m.group(2))] += 1
        codes[m.group(3)] += 1
    host_dir = os.path.join(args.mirror, args.host)
    articles = [page_file(host_dir, "/wiki/" + article_title(i).replace(" ", "_"))
                for i in range(1, args.articles + 1)]
    mirrored = [f for f in articles if f]
    main = page_file(host_dir, "/wiki/Main_Page")
    style, sheets = styled(main)
    files = nbytes = 0
    for root, _, names in os.walk(host_dir):
        for name in names:
            files += 1
            nbytes += os.path.getsize(os.path.join(root, name))
    total, ok, broken = check_links(mirrored + ([main] if main else []))
    result = {
        "tool": args.tool, "exit": args.exit, "wall": args.wall, "limit": args.limit,
        "requests": sum(codes.values()), "codes": dict(codes.most_common()),
        "families": dict(fams.most_common()), "articles": len(mirrored),
        "of": args.articles, "main_page": main is not None, "styled": style,
        "stylesheets": sheets, "files": files, "bytes": nbytes,
        "other_files": files - len(mirrored) - (1 if main else 0),
        "links": total, "links_ok": ok, "broken": broken,
        "list": dict(list_states(args.list).most_common()) if args.list else None,
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)


MACHINERY = ("diff=", "oldid=", "action=edit", "action=history", "action=info", "action=raw",
             "action=(other)", "Special:", "printable=yes")


def machinery(r):
    """Requests to pages that only a wiki's editors need."""
    return sum(r["families"].get(f, 0) for f in MACHINERY)


def row(name, results, fn):
    return f"| {name} | " + " | ".join(fn(r) for r in results) + " |"


def outcome(r):
    if r["exit"] == 124 or r["exit"] == 137:
        return f"stopped at the {r['limit']} s limit (exit {r['exit']})"
    return f"finished (exit {r['exit']})"


def render_tables(results):
    out = ["| | " + " | ".join(r["tool"] for r in results) + " |",
           "|---|" + "---|" * len(results)]
    out.append(row("outcome", results, outcome))
    out.append(row("wall time", results, lambda r: f"{r['wall']:.1f} s"))
    out.append(row("requests", results, lambda r: f"{r['requests']:,}"))
    out.append(row("answers", results,
                   lambda r: ", ".join(f"{c}: {k:,}" for c, k in r["codes"].items()) or "-"))
    out.append(row("requests to wiki machinery (edit, history, info, oldid, diff, Special:)", results,
                   lambda r: f"{machinery(r):,} ({machinery(r) / max(r['requests'], 1):.0%})"))
    out.append(row("articles mirrored", results,
                   lambda r: f"{r['articles']:,} of {r['of']:,} ({r['articles'] / max(r['of'], 1):.0%})"))
    out.append(row("Main Page mirrored", results, lambda r: "yes" if r["main_page"] else "no"))
    out.append(row("Main Page styled", results, lambda r: r["styled"]))
    out.append(row("requests per article mirrored", results,
                   lambda r: f"{r['requests'] / r['articles']:.1f}" if r["articles"] else "-"))
    out.append(row("other files", results, lambda r: f"{r['other_files']:,}"))
    out.append(row("mirror size", results, lambda r: f"{r['files']:,} files, {r['bytes'] / 1e6:.1f} MB"))
    out.append(row("local links of mirrored pages that resolve", results,
                   lambda r: f"{r['links_ok']:,} of {r['links']:,}"))
    out.append(row("list lines by state", results,
                   lambda r: ", ".join(f"{s} {k:,}" for s, k in r["list"].items())
                   if r["list"] is not None else "-"))
    fams = sorted({f for r in results for f in r["families"]},
                  key=lambda f: -max(r["families"].get(f, 0) for r in results))
    out += ["", "Requests by URL family (the web server's access log, each tool's window):", "",
            "| family | " + " | ".join(r["tool"] for r in results) + " |",
            "|---|" + "---:|" * len(results)]
    for f in fams:
        out.append(row(f, results, lambda r: f"{r['families'].get(f, 0):,}"))
    broken = [r for r in results if r["broken"]]
    if broken:
        out += ["", "Most frequent local links that do not resolve (digits shown as N):", ""]
        for r in broken:
            out.append(f"- {r['tool']}: " + "; ".join(f"`{l}` ×{k}" for l, k in r["broken"]))
    return "\n".join(out)


def cmd_render(args):
    results = []
    for path in args.results:
        with open(path, encoding="utf-8") as f:
            results.append(json.load(f))
    header = open(args.header, encoding="utf-8").read() if args.header else ""
    text = header + render_tables(results) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(args.out + ".tmp", args.out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("n", type=int)
    d.add_argument("dir")
    m = sub.add_parser("measure")
    for name in ("tool", "log", "mirror", "host", "out"):
        m.add_argument("--" + name, required=True)
    for name in ("articles", "exit", "limit"):
        m.add_argument("--" + name, type=int, required=True)
    m.add_argument("--wall", type=float, required=True)
    m.add_argument("--list")
    r = sub.add_parser("render")
    r.add_argument("--header")
    r.add_argument("--out", default="-")
    r.add_argument("results", nargs="+")
    args = ap.parse_args()
    {"dump": cmd_dump, "measure": cmd_measure, "render": cmd_render}[args.cmd](args)


if __name__ == "__main__":
    main()
