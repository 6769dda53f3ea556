#!/usr/bin/env python3
"""scripts/bench-realfresh.py: the helper of scripts/bench-realfresh.

  churn ...      edits the wiki through its API while a tool runs: one
                 change every EVERY seconds, in a rotation of a new article
                 announced on the Main Page, an announced edit, a silent
                 edit and a deletion; each change is a JSON line of its log
  sample ...     samples the share of the wiki's articles whose copy in a
                 mirror is their latest revision, from the wiki's database
                 and the mirror's HTML files, and writes the samples as JSON
  summarize ...  one tool's figures from its samples, the changes made and
                 its server's access log, as JSON
  render ...     the Markdown table of the figures of every run

The churn is drawn from a fixed seed, so every tool sees the same changes
at the same times from its start. Only the standard library is used.
"""

import argparse
import json
import os
import random
import re
import sqlite3
import statistics
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

KINDS = ("new", "announced", "silent", "delete")
NEWS = 10  # announcements the Main Page lists at once
WORDS = ("river stone lantern harbour meadow signal copper orchard valley "
         "thread engine winter garden bridge market ember canal tower").split()


def sentence(rng):
    return " ".join(rng.choice(WORDS) for _ in range(10)).capitalize() + "."


class Wiki:
    """The wiki's action API, as an anonymous editor."""

    def __init__(self, api):
        self.api = api

    def call(self, **params):
        params.update(format="json", formatversion="2")
        data = urllib.parse.urlencode(params).encode()
        req = urllib.request.Request(self.api, data=data, headers={"User-Agent": "bench-realfresh-churn"})
        with urllib.request.urlopen(req, timeout=30) as r:
            answer = json.load(r)
        if "error" in answer:
            raise RuntimeError(f"{params.get('action')} {params.get('title')}: {answer['error']}")
        return answer

    def edit(self, title, **text):
        a = self.call(action="edit", title=title, token="+\\", bot="1", summary="bench churn", **text)
        return a["edit"].get("newrevid") or a["edit"].get("oldrevid")

    def delete(self, title):
        self.call(action="delete", title=title, token="+\\", reason="bench churn")


def cmd_churn(args):
    rng = random.Random(args.seed)
    wiki = Wiki(args.api)
    with open(args.main_page, encoding="utf-8") as f:
        main_text = f.read()
    alive = [f"Article {i}" for i in range(1, args.articles + 1)]
    news = []
    made = args.articles
    with open(args.log, "a", encoding="utf-8") as log:

        def announce(title):
            news.insert(0, title)
            del news[NEWS:]
            block = "== News ==\n" + "\n".join(f"* [[{t}]]" for t in news) + "\n\n"
            wiki.edit("Main Page", text=block + main_text)

        k = 0
        while True:
            at = args.start + (k + 1) * args.every
            left = at - time.time()
            if at > args.start + args.duration:
                break
            if left > 0:
                time.sleep(left)
            kind = KINDS[k % len(KINDS)]
            k += 1
            try:
                if kind == "new":
                    made += 1
                    title = f"Article {made}"
                    links = " ".join(f"[[{t}]]" for t in rng.sample(alive, 3))
                    text = (f"'''{title}''' is new. {sentence(rng)} See {links}.\n\n"
                            f"[[Category:Group {rng.randint(1, max(1, args.articles // 50))}]]")
                    rev = wiki.edit(title, text=text, createonly="1")
                    alive.append(title)
                    announce(title)
                elif kind == "announced":
                    title = rng.choice(alive)
                    rev = wiki.edit(title, appendtext=f"\n\n{sentence(rng)}")
                    announce(title)
                elif kind == "silent":
                    title = rng.choice(alive)
                    rev = wiki.edit(title, appendtext=f"\n\n{sentence(rng)}")
                else:
                    title = rng.choice([t for t in alive if t not in news])
                    wiki.delete(title)
                    alive.remove(title)
                    rev = None
            except (OSError, RuntimeError, KeyError) as e:
                print(f"bench-realfresh: churn: {kind}: {e}", file=sys.stderr)
                continue
            log.write(json.dumps({"t": time.time(), "kind": kind, "title": title.replace(" ", "_"), "rev": rev}) + "\n")
            log.flush()


PAGE = re.compile(rb'"wgPageName":"([^"]*)"')
REV = re.compile(rb'"wgRevisionId":(\d+)')
VIEW = re.compile(rb'"wgAction":"view"')
NS0 = re.compile(rb'"wgNamespaceNumber":0[,}]')


class Mirror:
    """The revisions of the articles a mirror holds, from the
    configuration MediaWiki writes into each page it renders; files are
    read again only when they change."""

    def __init__(self, root):
        self.root = root
        self.files = {}  # path -> (mtime_ns, size, title or None, rev)

    def revisions(self):
        seen, revs = set(), {}
        for d, _, names in os.walk(self.root):
            for name in names:
                if not name.endswith(".html"):
                    continue
                path = os.path.join(d, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                seen.add(path)
                got = self.files.get(path)
                if got is None or got[:2] != (st.st_mtime_ns, st.st_size):
                    got = (st.st_mtime_ns, st.st_size) + self.read(path)
                    self.files[path] = got
                title, rev = got[2], got[3]
                if title is not None and rev > revs.get(title, 0):
                    revs[title] = rev
        for path in set(self.files) - seen:
            del self.files[path]
        return revs

    @staticmethod
    def read(path):
        try:
            with open(path, "rb") as f:
                head = f.read(1 << 20)
        except OSError:
            return (None, 0)
        page, rev = PAGE.search(head), REV.search(head)
        if not (page and rev and VIEW.search(head) and NS0.search(head)):
            return (None, 0)
        return (page.group(1).decode("utf-8", "replace"), int(rev.group(1)))


def live_articles(db):
    """The wiki's articles (namespace 0) and their latest revision."""
    for attempt in range(50):
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
            try:
                rows = con.execute("SELECT page_title, page_latest FROM page WHERE page_namespace = 0").fetchall()
            finally:
                con.close()
            return {(t.decode() if isinstance(t, bytes) else t): rev for t, rev in rows}
        except sqlite3.OperationalError:
            time.sleep(0.1)
    raise SystemExit(f"bench-realfresh: error: cannot read {db}")


def cmd_sample(args):
    mirror = Mirror(args.mirror)
    samples, first_seen = [], {}
    k = 0
    while True:
        at = args.start + k * args.every
        if at > args.start + args.duration + 1e-6:
            break
        left = at - time.time()
        if left > 0:
            time.sleep(left)
        live = live_articles(args.db)
        revs = mirror.revisions()
        now = time.time()
        for title, rev in revs.items():
            first_seen.setdefault(f"{title} {rev}", now - args.start)
        have = [t for t in live if t in revs]
        current = [t for t in have if revs[t] >= live[t]]
        samples.append({"t": round(at - args.start, 3), "live": len(live), "have": len(have),
                        "current": len(current)})
        if k == 0:
            with open(args.ready_file, "w") as f:
                f.write(f"{now}\n")
        k += 1
    with open(args.out, "w") as f:
        json.dump({"samples": samples, "first_seen": first_seen}, f)


MACHINERY = re.compile(r"action=|oldid=|diff=|curid=|printable=|Special:|Special%3A")


def access(path):
    """Requests, 304 answers and requests to the wiki's machinery (edit
    forms, histories, old revisions, special pages) in an apache access
    log (LogFormat bench), the churn's and the probe's left out."""
    requests = not_modified = machinery = 0
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r'"[A-Z]+ (\S+) [^"]*" (\d{3}) ', line)
            if not m or "bench-realfresh-churn" in line or "bench-realsite-probe" in line:
                continue
            requests += 1
            not_modified += m.group(2) == "304"
            machinery += bool(MACHINERY.search(m.group(1)))
    return requests, not_modified, machinery


def load(path):
    with open(path) as f:
        return json.load(f)


def jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f]


def curve(samples, step):
    """Freshness at every step seconds from the start: [[t, share], ...]."""
    out = []
    for x in samples:
        if x["live"] and x["t"] >= len(out) * step:
            out.append([x["t"], x["current"] / x["live"]])
    return out


def cmd_summarize(args):
    d = load(args.samples)
    s, seen = d["samples"], d["first_seen"]
    fresh = [x["current"] / x["live"] for x in s if x["live"]]
    mean = statistics.mean(fresh) if fresh else None
    sweep = next((x["t"] for x in s if x["live"] and x["have"] >= 0.95 * x["live"]), None)
    after = [x["current"] / x["live"] for x in s if sweep is not None and x["t"] >= sweep and x["live"]]
    changes = jsonl(args.churn)
    # An announcement in the run's last fast window could still have
    # reached the mirror in time after the run: not judged.
    announced = [c for c in changes if c["kind"] in ("new", "announced") and c["rev"]
                 and c["t"] - args.start <= args.duration - args.fast_window]
    within = 0
    for c in announced:
        t = c["t"] - args.start
        times = [v for k, v in seen.items() if k.rsplit(" ", 1)[0] == c["title"] and int(k.rsplit(" ", 1)[1]) >= c["rev"]]
        if times and min(times) - t <= args.fast_window:
            within += 1
    requests, not_modified, machinery = access(args.access_log)
    out = {"tool": args.tool, "mean": mean, "after": statistics.mean(after) if after else None, "sweep": sweep,
           "end": fresh[-1] if fresh else None, "requests": requests, "not_modified": not_modified,
           "machinery": machinery, "curve": curve(s, 60),
           "duration": args.duration, "announced": len(announced), "within": within,
           "changes": len(changes)}
    with open(args.out, "w") as f:
        json.dump(out, f)


def median_rows(rows):
    """One row per tool, in the order of their first run: the median of
    each figure over the tool's runs."""
    tools = {}
    for r in rows:
        tools.setdefault(r["tool"], []).append(r)
    out = []
    for tool, rs in tools.items():
        m = {"tool": tool, "runs": len(rs)}
        for k in ("mean", "after", "sweep", "end", "requests", "not_modified", "machinery", "changes"):
            vals = [r[k] for r in rs if r[k] is not None]
            m[k] = statistics.median(vals) if len(vals) == len(rs) else None
        shares = [r["within"] / r["announced"] for r in rs if r["announced"]]
        m["share"] = statistics.median(shares) if shares else None
        m["announced"] = statistics.median([r["announced"] for r in rs])
        out.append(m)
    return out


def cmd_render(args):
    raw = [load(p) for p in args.rows]
    rows = median_rows(raw)
    f = lambda v, spec: "—" if v is None else format(v, spec)
    out = ["| tool | freshness, time average | after first sweep | first sweep (s) | at end | requests | "
           "304 answers | to wiki machinery | announced in mirror within the fast window | changes | runs |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        share = "—" if r["share"] is None else f"{100 * r['share']:.0f}% (of {r['announced']:g})"
        out.append(f"| {r['tool']} | {f(r['mean'], '.3f')} | {f(r['after'], '.3f')} | {f(r['sweep'], 'g')} | "
                   f"{f(r['end'], '.3f')} | {f(r['requests'], ',.0f')} | {f(r['not_modified'], ',.0f')} | "
                   f"{f(r['machinery'], ',.0f')} | {share} | "
                   f"{f(r['changes'], 'g')} | {r['runs']} |")
    first = {}
    for r in raw:
        first.setdefault(r["tool"], r.get("curve") or [])
    times = [t for t, _ in max(first.values(), key=len)] if first else []
    if times:
        out += ["", "Freshness over time (the first run of each tool):", "",
                "| tool | " + " | ".join(f"{t:g} s" for t in times) + " |",
                "|---|" + "---|" * len(times)]
        for tool, c in first.items():
            out.append(f"| {tool} | " + " | ".join(f"{v:.2f}" for _, v in c) + " |")
    text = "\n".join(out) + "\n"
    if args.header:
        with open(args.header) as f:
            text = f.read() + text
    if args.out:
        with open(args.out + ".tmp", "w") as fo:
            fo.write(text)
        os.replace(args.out + ".tmp", args.out)
    else:
        sys.stdout.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("churn")
    c.add_argument("--api", required=True)
    c.add_argument("--main-page", required=True)
    c.add_argument("--articles", type=int, required=True)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--every", type=float, default=2.0)
    c.add_argument("--start", type=float, required=True)
    c.add_argument("--duration", type=float, required=True)
    c.add_argument("--log", required=True)
    c.set_defaults(fn=cmd_churn)
    c = sub.add_parser("sample")
    c.add_argument("--db", required=True)
    c.add_argument("--mirror", required=True)
    c.add_argument("--start", type=float, required=True)
    c.add_argument("--duration", type=float, required=True)
    c.add_argument("--every", type=float, default=2.0)
    c.add_argument("--ready-file", required=True)
    c.add_argument("--out", required=True)
    c.set_defaults(fn=cmd_sample)
    c = sub.add_parser("summarize")
    c.add_argument("--samples", required=True)
    c.add_argument("--churn", required=True)
    c.add_argument("--access-log", required=True)
    c.add_argument("--tool", required=True)
    c.add_argument("--start", type=float, required=True)
    c.add_argument("--duration", type=float, required=True)
    c.add_argument("--fast-window", type=float, required=True)
    c.add_argument("--out", required=True)
    c.set_defaults(fn=cmd_summarize)
    c = sub.add_parser("render")
    c.add_argument("--header")
    c.add_argument("--out")
    c.add_argument("rows", nargs="+")
    c.set_defaults(fn=cmd_render)
    args = p.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
