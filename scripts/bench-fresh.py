#!/usr/bin/env python3
"""Helper of scripts/bench-fresh: samples a mirror's freshness against the
test site's truth file, sums up one run, renders the report.

  bench-fresh.py sample --truth F (--list LIST --mirror DIR | --wget DIR
                        | --list-command CMD --mirror DIR)
                        --start T0 --duration S --out SAMPLES.json
                        [--ready-file F]
  bench-fresh.py summarize --samples SAMPLES.json --requests REQ.log
                        --tool T --budget B --fast-window W --out ROW.json
  bench-fresh.py render --header FILE [--footer FILE] [--gaps] --out FILE ROW.json...

Definitions (the report repeats them):
- A spider's copy of a URL is the file its list gives it: read from the
  list file (--list), or from the list a command prints in the list
  file's format (--list-command, e.g. `spider list export` of a list in
  PostgreSQL), read anew before every look, the same definition for both.
- A sample (every 5 s from the start, t = 0 included) looks at every
  URL the truth file lists as live (pages and images). A URL is current when
  the mirror has a copy of it holding the truth's version (the
  <meta name="x-version"> of an HTML copy; any copy of an image or style
  sheet, which the site never edits). A URL without a copy is not current;
  a deleted URL leaves the denominator. Freshness = current / live. Each
  sample in SAMPLES.json also names its stale URLs (a copy of an older
  version), to tell which pages a policy leaves behind (-k keeps them).
- The start: the sampler takes the 0 s sample at the start time it is
  given and then writes --ready-file; bench-fresh starts the tools only
  then, so the 0 s sample is every tool's empty mirror, whenever the
  sampler got going.
- Time-averaged freshness: the mean of the samples, cold start included.
- First sweep: the first sample at which the mirror has a copy (current or
  not) of at least 95% of the URLs that were live at the start and still
  are. Its time is the cold start; "after the first sweep" is the mean of
  the samples from that one on.
- Announced within the fast window: of the announced changes (a new topic,
  an announced edit) made at least one fast window before the end, the
  share whose new version was in the mirror within the fast window. The
  announced pages are checked every second, so a time is at most 1 s late.
- Requests, 304 answers, rate: from the site's request log over the run;
  "peak" is the busiest 10 s, divided by 10.
- Where freshness is lost: over the samples after the first sweep, the
  mean number per sample of stale copies (an older version) of each kind
  of URL, told by its path on the test site: the start page (/), the
  section and archive pages (/section/…, /archive/…), the articles
  (/article/…), the images (/media/…), anything else; and of the live URLs
  with no copy yet.
- Gap between requests (render --gaps): the median and 90th percentile of
  the times between one request's arrival at the site and the next's;
  spiders that share a host's pace start a request at least the delay
  after the previous one ended, so the gap is the delay, the request's own
  time and what the pace costs to take and give back.
"""

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
import urllib.parse

MARK_RE = re.compile(rb'<meta name="x-version" content="(\d+)">')
FIRST_SWEEP_SHARE = 0.95


def key(path_and_query):
    """The spelling a URL's path is compared in: percent-decoded path, then
    "?query" if there is one."""
    path, sep, query = path_and_query.partition("?")
    return urllib.parse.unquote(path) + (sep + query if query else "")


def url_key(url):
    """key() of an absolute URL."""
    u = urllib.parse.urlsplit(url)
    return key((u.path or "/") + ("?" + u.query if u.query else ""))


def wget_file(path, marked):
    """The file wget --mirror -E gives a URL path (relative to its host
    directory): a directory's index.html, the query kept in the name, and
    ".html" added to an HTML page whose name does not end so."""
    name, sep, query = key(path).partition("?")
    if name.endswith("/"):
        name += "index.html"
    name = name.lstrip("/")
    if sep:
        name += "?" + query
    if marked and not re.search(r"\.[Hh][Tt][Mm][Ll]?$", name):
        name += ".html"
    return name


def parse_list(lines):
    """Maps key(url) → file of every line of a spider list: the first field
    is the file, the last the URL, whatever lies between. Lines that do not
    parse (a comment, a line being rewritten) are skipped."""
    out = {}
    for line in lines:
        fields = line.split()
        if len(fields) < 2 or line.startswith("#") or not fields[-1].startswith(("http://", "https://")):
            continue
        out[url_key(fields[-1])] = fields[0]
    return out


def list_files(list_path):
    """parse_list() of a list file; {} if there is none yet."""
    try:
        with open(list_path, encoding="utf-8", errors="replace") as f:
            return parse_list(f)
    except FileNotFoundError:
        return {}


def command_files(argv, timeout=30):
    """parse_list() of what a command (argv) prints, e.g. `spider list
    export` of a list in PostgreSQL; {} if it fails, said on stderr, so a
    look that cannot read the list counts the copies it knew before."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        print(f"bench-fresh.py: {argv[0]}: {e}", file=sys.stderr)
        return {}
    if p.returncode != 0:
        print(f"bench-fresh.py: {' '.join(argv)} exited {p.returncode}: "
              f"{p.stderr.decode(errors='replace').strip()}", file=sys.stderr)
        return {}
    return parse_list(p.stdout.decode("utf-8", errors="replace").splitlines())


def copy_version(file_path, marked):
    """The version a copy holds: None without a copy, the marker's number
    for an HTML page (0 if it has none), 1 for any copy of an unmarked URL."""
    try:
        with open(file_path, "rb") as f:
            head = f.read(4096)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    if not marked:
        return 1
    m = MARK_RE.search(head)
    return int(m.group(1)) if m else 0


def freshness(versions, copies):
    """(live, current, with a copy) for truth versions {key: version} and
    copies {key: version or None}."""
    current = have = 0
    for k, v in versions.items():
        c = copies.get(k)
        if c is None:
            continue
        have += 1
        if c >= v:
            current += 1
    return len(versions), current, have


class Mirror:
    """Where a tool keeps its copies: a spider list (a file, or a command
    that prints it) and its mirror, or a wget host directory."""

    def __init__(self, list_path=None, mirror=None, wget=None, list_command=None):
        self.list_path, self.mirror, self.wget = list_path, mirror, wget
        self.list_command = shlex.split(list_command) if list_command else None
        self.files = {}

    def refresh(self):
        if self.list_path:
            self.files.update(list_files(self.list_path))
        elif self.list_command:
            self.files.update(command_files(self.list_command))

    def file(self, k, marked):
        if self.wget:
            return os.path.join(self.wget, wget_file(k, marked))
        f = self.files.get(k)
        return os.path.join(self.mirror, f) if f else None

    def version(self, k, marked):
        f = self.file(k, marked)
        return copy_version(f, marked) if f else None


def read_truth(path):
    """The truth file, keyed by key(); None if it cannot be read whole."""
    try:
        with open(path, encoding="utf-8") as f:
            t = json.load(f)
    except (OSError, ValueError):
        return None
    return {
        "versions": {key(p): v for p, v in t["versions"].items()},
        "unmarked": {key(p) for p in t.get("unmarked") or []},
        "changes": [dict(c, key=key(c["path"])) for c in t.get("changes") or []],
    }


def take_sample(truth, mirror, t):
    """One sample of the mirror as its last refresh() knows it."""
    copies = {k: mirror.version(k, k not in truth["unmarked"]) for k in truth["versions"]}
    live, current, have = freshness(truth["versions"], copies)
    stale = sorted(k for k, v in truth["versions"].items() if copies.get(k) is not None and copies[k] < v)
    return {"t": t, "live": live, "current": current, "have": have, "stale": stale,
            "have_initial": sum(1 for k in truth["initial"] if k in truth["versions"] and copies.get(k) is not None),
            "initial_live": sum(1 for k in truth["initial"] if k in truth["versions"])}


def watch_announced(truth, mirror, reached, t0, now):
    """Notes in reached the time (since t0) at which each announced change's
    version first reached the mirror."""
    for i, c in enumerate(truth["changes"]):
        if c["kind"] not in ("added", "announced") or i in reached or c["time"] < t0:
            continue
        if c["key"] not in truth["versions"]:
            reached[i] = "gone"  # deleted before it reached the mirror: it leaves the account
            continue
        v = mirror.version(c["key"], True)
        if v is not None and v >= c["version"]:
            reached[i] = now - t0


def cmd_sample(args):
    mirror = Mirror(args.list, args.mirror, args.wget, args.list_command)
    samples, reached, initial = [], {}, None
    t0, end = args.start, args.start + args.duration
    next_sample = t0
    truth = None
    while True:
        now = time.time()
        if now > end + 0.5:
            break
        t = read_truth(args.truth) or truth
        if t is not None:
            if initial is None:
                initial = set(t["versions"])
            t["initial"] = initial
            truth = t
            mirror.refresh()
            watch_announced(truth, mirror, reached, t0, now)
            if now >= next_sample - 0.05:
                samples.append(take_sample(truth, mirror, round(next_sample - t0, 1)))
                next_sample += args.interval
                if args.ready_file and len(samples) == 1:
                    write_text(args.ready_file, "%.6f\n" % now)
        time.sleep(max(0.0, min(1.0, next_sample - time.time(), end + 0.6 - time.time())))
    changes = []
    for i, c in enumerate(truth["changes"] if truth else []):
        if c["time"] >= t0:
            r = reached.get(i)
            changes.append(dict(c, reached=None if r == "gone" else r, gone=r == "gone"))
    write_json(args.out, {"start": t0, "duration": args.duration, "interval": args.interval,
                          "samples": samples, "changes": changes})


def first_sweep(samples, share=FIRST_SWEEP_SHARE):
    """Index of the first sample with a copy of share of the URLs live at the
    start (and still live), or None."""
    for i, s in enumerate(samples):
        if s["initial_live"] and s["have_initial"] >= share * s["initial_live"]:
            return i
    return None


def mean_freshness(samples):
    fs = [s["current"] / s["live"] for s in samples if s["live"]]
    return sum(fs) / len(fs) if fs else None


def announced_within(changes, window, duration):
    """(caught, counted): announced changes made at least window before the
    end whose version reached the mirror within window."""
    counted = [c for c in changes if c["kind"] in ("added", "announced") and not c.get("gone")
               and c.get("offset", 0) <= duration - window]
    caught = [c for c in counted if c.get("reached") is not None and c["reached"] - c["offset"] <= window]
    return len(caught), len(counted)


def request_stats(lines, t0, t1):
    """Requests, 304 answers, mean rate and busiest 10 s rate from request
    log lines ("UNIXTIME STATUS METHOD URI") between t0 and t1."""
    times, n304 = [], 0
    for line in lines:
        f = line.split(" ", 3)
        if len(f) < 4:
            continue
        t = float(f[0])
        if t < t0 or t > t1:
            continue
        times.append(t)
        n304 += f[1] == "304"
    times.sort()
    peak, j = 0, 0
    for i, t in enumerate(times):
        while times[j] <= t - 10:  # the 10 s ending at t, (t-10, t]
            j += 1
        peak = max(peak, i - j + 1)
    span = t1 - t0
    gaps = [b - a for a, b in zip(times, times[1:])]
    return {"requests": len(times), "not_modified": n304,
            "rate": len(times) / span if span > 0 else 0, "peak": peak / 10,
            "gap": statistics.median(gaps) if gaps else None,
            "gap_p90": statistics.quantiles(gaps, n=10)[-1] if len(gaps) > 1 else None}


KINDS = ("start page", "section and archive pages", "articles", "images", "other")


def kind(path):
    """The kind of URL path is on the test site (KINDS)."""
    if path == "/":
        return "start page"
    if path.startswith(("/section/", "/archive/")):
        return "section and archive pages"
    if path.startswith("/article/"):
        return "articles"
    if path.startswith("/media/"):
        return "images"
    return "other"


def losses(samples):
    """The mean number per sample of stale copies of each kind (KINDS)
    and of live URLs with no copy ("no copy"); None without samples."""
    if not samples:
        return None
    out = dict.fromkeys(KINDS + ("no copy",), 0.0)
    for s in samples:
        for p in s["stale"]:
            out[kind(p)] += 1
        out["no copy"] += s["live"] - s["current"] - len(s["stale"])
    return {k: v / len(samples) for k, v in out.items()}


def summarize(data, lines, tool, budget, window):
    samples = data["samples"]
    for c in data["changes"]:
        c["offset"] = c["time"] - data["start"]
    i = first_sweep(samples)
    caught, counted = announced_within(data["changes"], window, data["duration"])
    row = {"tool": tool, "budget": budget, "duration": data["duration"],
           "mean": mean_freshness(samples),
           "after": mean_freshness(samples[i:]) if i is not None else None,
           "sweep": samples[i]["t"] if i is not None else None,
           "final": samples[-1]["current"] / samples[-1]["live"] if samples else None,
           "announced_caught": caught, "announced": counted,
           "losses": losses(samples[i:]) if i is not None else None,
           "curve": [(s["t"], s["current"] / s["live"]) for s in samples if s["live"]]}
    row.update(request_stats(lines, data["start"], data["start"] + data["duration"]))
    return row


def cmd_summarize(args):
    with open(args.samples, encoding="utf-8") as f:
        data = json.load(f)
    with open(args.requests, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    write_json(args.out, summarize(data, lines, args.tool, args.budget, args.fast_window))


def median_row(rows):
    """One row of the medians over runs of the same budget and tool."""
    out = dict(rows[0], runs=len(rows))
    for k in ("mean", "after", "sweep", "final", "requests", "not_modified", "rate", "peak"):
        vals = [r[k] for r in rows if r[k] is not None]
        out[k] = statistics.median(vals) if len(vals) == len(rows) else None
    share = [r["announced_caught"] / r["announced"] for r in rows if r["announced"]]
    out["announced_share"] = statistics.median(share) if share else None
    out["announced"] = statistics.median([r["announced"] for r in rows])
    ls = [r.get("losses") for r in rows]
    out["losses"] = None if None in ls else {k: statistics.median(l[k] for l in ls) for k in ls[0]}
    return out


def fmt(v, spec, none="—"):
    return none if v is None else format(v, spec)


def render(rows, header=""):
    groups = {}
    for r in rows:
        groups.setdefault((r["budget"], r["tool"]), []).append(r)
    order = sorted(groups, key=lambda k: (k[0] == "none", float(k[0]) if k[0] != "none" else 0, k[1]))
    med = [median_row(groups[k]) for k in order]
    out = [header.rstrip("\n"), "",
           "| budget (req/s) | tool | run (s) | freshness, time average | after first sweep | first sweep (s) "
           "| freshness at end | requests | 304 answers | rate (req/s, mean / peak 10 s) "
           "| announced in mirror within the fast window | runs |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in med:
        ann = "—" if r["announced_share"] is None else f"{100 * r['announced_share']:.0f}% (of {r['announced']:g})"
        out.append(f"| {r['budget']} | {r['tool']} | {r['duration']:g} | {fmt(r['mean'], '.4f')} | {fmt(r['after'], '.4f')} "
                   f"| {fmt(r['sweep'], 'g', 'not reached')} | {fmt(r['final'], '.3f')} | {fmt(r['requests'], 'g')} "
                   f"| {fmt(r['not_modified'], 'g')} | {fmt(r['rate'], '.1f')} / {fmt(r['peak'], '.1f')} "
                   f"| {ann} | {r['runs']} |")
    out += ["", "Where freshness is lost after the first sweep: stale copies per sample by kind, "
            "and live URLs with no copy (each run's mean over its samples, medians over runs):", "",
            "| budget | tool | " + " | ".join(KINDS) + " | no copy |",
            "|---|---|" + "---|" * (len(KINDS) + 1)]
    for r in med:
        l = r["losses"]
        cells = [fmt(None if l is None else l[k], ".2f") for k in KINDS + ("no copy",)]
        out.append(f"| {r['budget']} | {r['tool']} | " + " | ".join(cells) + " |")
    out += ["", "Freshness over time (first run of each budget and tool):", ""]
    # Every 30 s, or every 60 s where a run is longer than 4 minutes.
    longest = max((t for k in order for t, _ in groups[k][0]["curve"]), default=0)
    step = 30 if longest <= 240 else 60
    times = sorted({t for k in order for t, _ in groups[k][0]["curve"] if t % step == 0})
    out.append("| budget | tool | " + " | ".join(f"{t:g} s" for t in times) + " |")
    out.append("|---|---|" + "---|" * len(times))
    for k in order:
        curve = dict(groups[k][0]["curve"])
        out.append(f"| {k[0]} | {k[1]} | " + " | ".join(fmt(curve.get(t), ".2f") for t in times) + " |")
    return "\n".join(out) + "\n"


def render_gaps(rows):
    """The table of the gaps between requests: per budget and tool, the
    medians over runs of each run's median gap and 90th percentile, in ms."""
    groups = {}
    for r in rows:
        groups.setdefault((r["budget"], r["tool"]), []).append(r)
    order = sorted(groups, key=lambda k: (k[0] == "none", float(k[0]) if k[0] != "none" else 0, k[1]))
    out = ["", "Gap between one request's arrival at the site and the next's (medians over runs):", "",
           "| budget (req/s) | tool | median gap (ms) | 90th percentile (ms) |", "|---|---|---|---|"]
    for k in order:
        med = {}
        for f in ("gap", "gap_p90"):
            vals = [r[f] for r in groups[k] if r.get(f) is not None]
            med[f] = 1000 * statistics.median(vals) if vals else None
        out.append(f"| {k[0]} | {k[1]} | {fmt(med['gap'], '.1f')} | {fmt(med['gap_p90'], '.1f')} |")
    return "\n".join(out) + "\n"


def cmd_render(args):
    rows = []
    for path in args.rows:
        with open(path, encoding="utf-8") as f:
            rows.append(json.load(f))
    header = open(args.header, encoding="utf-8").read() if args.header else ""
    footer = open(args.footer, encoding="utf-8").read() if args.footer else ""
    text = render(rows, header) + (render_gaps(rows) if args.gaps else "") + footer
    if args.out == "-":
        sys.stdout.write(text)
    else:
        write_text(args.out, text)


def write_text(path, text):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def write_json(path, obj):
    write_text(path, json.dumps(obj) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("--truth", required=True)
    s.add_argument("--list")
    s.add_argument("--mirror")
    s.add_argument("--wget")
    s.add_argument("--list-command")
    s.add_argument("--start", type=float, required=True)
    s.add_argument("--duration", type=float, required=True)
    s.add_argument("--interval", type=float, default=5)
    s.add_argument("--ready-file")
    s.add_argument("--out", required=True)
    m = sub.add_parser("summarize")
    for name in ("samples", "requests", "tool", "budget", "out"):
        m.add_argument("--" + name, required=True)
    m.add_argument("--fast-window", type=float, required=True)
    r = sub.add_parser("render")
    r.add_argument("--header")
    r.add_argument("--footer")
    r.add_argument("--gaps", action="store_true")
    r.add_argument("--out", default="-")
    r.add_argument("rows", nargs="*")
    args = ap.parse_args()
    if args.cmd == "sample" and not (args.wget or ((args.list or args.list_command) and args.mirror)):
        ap.error("sample: give --list or --list-command, and --mirror (spider), or --wget (wget's host directory)")
    {"sample": cmd_sample, "summarize": cmd_summarize, "render": cmd_render}[args.cmd](args)


if __name__ == "__main__":
    main()
