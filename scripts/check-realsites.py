#!/usr/bin/env python3
"""Helper of scripts/check-realsites (standard library only).

  check-realsites.py dokuwiki-pages DIR N     writes N interlinked pages and a start page
  check-realsites.py wordpress-sql N URL     prints the SQL of N posts, their terms and comments
  check-realsites.py inbox-messages DIR N    writes N messages in threads, one .eml file each
  check-realsites.py measure SITE RUNDIR     prints one site's figures as JSON
  check-realsites.py render CMDLINE JSON...  prints the report (markdown)

RUNDIR holds what the script kept of each spider run k (1: the first
mirror, 2 and 3: the revisits): access-k.log (the server's log of that
run: "status method uri" a line), lines-k (the list's line count after
it), rewritten-k (files of the site's mirror rewritten by it), wall-k
(seconds) and exit-k; and the last run's list (list) and mirror (m).
"""

import collections
import datetime
import html.parser
import json
import os
import random
import re
import sys
import urllib.parse

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo "
         "lima mike november oscar papa quebec romeo sierra tango").split()

# URL families of the engines' machinery and oddities, counted apart
# (the first that matches names a request).
FAMILIES = [
    ("DokuWiki actions (do=)", lambda u: re.search(r"[?&]do=", u) is not None),
    ("DokuWiki task runner", lambda u: "/lib/exe/taskrunner.php" in u),
    ("WordPress REST, XML-RPC, admin, login", lambda u: re.search(r"/wp-json|/xmlrpc\.php|/wp-admin|/wp-login", u) is not None),
    ("feeds", lambda u: re.search(r"/feed/?$|/feed\.php|[?&]feed=", u) is not None),
    ("comment replies (replytocom=)", lambda u: "replytocom=" in u),
    ("short links (?p=N)", lambda u: re.search(r"/\?p=\d+$", u) is not None),
    ("public-inbox raw messages (/raw)", lambda u: u.endswith("/raw")),
    ("public-inbox thread mboxes (/t.mbox.gz)", lambda u: u.endswith(".mbox.gz")),
    ("public-inbox nested threads (/t/)", lambda u: u.endswith("/t/")),
    ("public-inbox flat threads (/T/)", lambda u: u.endswith("/T/")),
    ("public-inbox index from a date (?t=)", lambda u: re.search(r"[?&]t=\d", u) is not None),
]


def family(uri):
    for name, test in FAMILIES:
        if test(urllib.parse.unquote(uri)):
            return name
    return "other"


def dokuwiki_pages(d, n):
    """N pages of the namespace whose directory is d, each linking two
    neighbours and four random pages (every twentieth a missing page too),
    and a start page linking every tenth."""
    rng = random.Random(1)
    ns = os.path.basename(d.rstrip("/"))
    os.makedirs(d, exist_ok=True)
    for i in range(n):
        body = ["====== Page %d ======" % i, ""]
        for s in range(3):
            body += ["===== Section %d =====" % s, " ".join(rng.choice(WORDS) for _ in range(80)), ""]
        links = sorted({(i + 1) % n, (i - 1) % n} | {rng.randrange(n) for _ in range(4)})
        body.append("Related: " + ", ".join("[[%s:page_%d]]" % (ns, j) for j in links))
        if i % 20 == 0:
            body.append("Missing: [[%s:nowhere_%d]]" % (ns, i))
        with open(os.path.join(d, "page_%d.txt" % i), "w") as f:
            f.write("\n".join(body) + "\n")
    start = ["====== Check Wiki ======", "Welcome.", ""] + ["  * [[%s:page_%d]]" % (ns, i) for i in range(0, n, 10)]
    with open(os.path.join(d, "start.txt"), "w") as f:
        f.write("\n".join(start) + "\n")


def inbox_messages(d, n):
    """N messages to one list, one file each (NNNN.eml, in date order), in
    threads of one to six: each reply answers an earlier message of its
    thread, as a mail client writes In-Reply-To and References."""
    rng = random.Random(1)
    os.makedirs(d, exist_ok=True)
    t0 = datetime.datetime(2026, 9, 1, tzinfo=datetime.timezone.utc)
    i = thread = 0
    while i < n:
        subject = " ".join(rng.choice(WORDS) for _ in range(4))
        ids, refs = [], {}
        for r in range(min(rng.randint(1, 6), n - i)):
            mid = "<t%d.%d@example.com>" % (thread, r)
            head = ["From: User %d <user%d@example.com>" % ((i * 7) % 20, (i * 7) % 20),
                    "To: spidercheck@example.com",
                    "Subject: %s[PATCH] %s" % ("Re: " if r else "", subject),
                    "Date: %s" % (t0 + datetime.timedelta(hours=i)).strftime("%a, %d %b %Y %H:%M:%S +0000"),
                    "Message-ID: %s" % mid]
            if ids:
                parent = rng.choice(ids)
                refs[mid] = refs[parent] + [parent]
                head += ["In-Reply-To: %s" % parent, "References: %s" % " ".join(refs[mid])]
            else:
                refs[mid] = []
            ids.append(mid)
            body = "\n".join(" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(rng.randint(3, 15)))
            with open(os.path.join(d, "%04d.eml" % i), "w") as f:
                f.write("\n".join(head) + "\n\n" + body + "\n")
            i += 1
        thread += 1


def wordpress_sql(n, url):
    """SQL for N published posts (a category and two tags each, two
    comments on every fifth, links to two others by their short link
    /?p=ID as WordPress writes them) and permalinks by year and month."""
    rng = random.Random(2)
    out = ["UPDATE wp_options SET option_value='/%year%/%monthnum%/%postname%/' WHERE option_name='permalink_structure';",
           "DELETE FROM wp_options WHERE option_name='rewrite_rules';"]
    terms, tid = {}, 100
    for taxonomy, names in (("category", ["news", "science", "travel", "culture", "sport"]),
                            ("post_tag", ["t%d" % i for i in range(10)])):
        for name in names:
            out.append("INSERT INTO wp_terms (term_id,name,slug) VALUES (%d,'%s','%s');" % (tid, name.title(), name))
            out.append("INSERT INTO wp_term_taxonomy (term_taxonomy_id,term_id,taxonomy,description,parent,count) "
                       "VALUES (%d,%d,'%s','',0,0);" % (tid, tid, taxonomy))
            terms.setdefault(taxonomy, []).append(tid)
            tid += 1
    base, cid = datetime.datetime(2025, 1, 1), 100
    for i in range(1, n + 1):
        pid = 1000 + i
        d = (base + datetime.timedelta(hours=43 * i)).strftime("%Y-%m-%d %H:%M:%S")
        body = " ".join(rng.choice(WORDS) for _ in range(150))
        links = " ".join('<a href="/?p=%d">see %d</a>' % (1000 + rng.randint(1, n), j) for j in range(2))
        comments = 2 if i % 5 == 0 else 0
        out.append(
            "INSERT INTO wp_posts (ID,post_author,post_date,post_date_gmt,post_content,post_title,post_excerpt,"
            "post_status,comment_status,ping_status,post_name,to_ping,pinged,post_modified,post_modified_gmt,"
            "post_content_filtered,post_parent,guid,menu_order,post_type,comment_count) VALUES "
            "(%d,1,'%s','%s','<p>%s</p><p>%s</p>','Post %d %s','','publish','open','open','post-%d','','','%s','%s',"
            "'',0,'%s/?p=%d',0,'post',%d);" % (pid, d, d, body, links, i, rng.choice(WORDS), i, d, d, url, pid, comments))
        for t in [rng.choice(terms["category"])] + rng.sample(terms["post_tag"], 2):
            out.append("INSERT INTO wp_term_relationships (object_id,term_taxonomy_id,term_order) VALUES (%d,%d,0);" % (pid, t))
        for c in range(comments):
            out.append(
                "INSERT INTO wp_comments (comment_ID,comment_post_ID,comment_author,comment_author_email,"
                "comment_author_url,comment_author_IP,comment_date,comment_date_gmt,comment_content,comment_karma,"
                "comment_approved,comment_agent,comment_type,comment_parent,user_id) VALUES "
                "(%d,%d,'Reader','r@example.com','','127.0.0.1','%s','%s','Comment %d',0,'1','','comment',0,0);"
                % (cid, pid, d, d, c))
            cid += 1
    out.append("UPDATE wp_term_taxonomy tt SET count=(SELECT COUNT(*) FROM wp_term_relationships r "
               "WHERE r.term_taxonomy_id=tt.term_taxonomy_id);")
    return "\n".join(out) + "\n"


class Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src") and v:
                self.links.append(v)


def broken_links(mirror):
    """Local links of the mirror's pages that lead to no file: (links,
    broken, the most common broken ones with digits masked)."""
    total, broken = 0, collections.Counter()
    for d, _, files in os.walk(mirror):
        if "/.spider" in d:
            continue
        for name in files:
            if not re.search(r"\.html?$", name):
                continue
            page = os.path.join(d, name)
            p = Links()
            with open(page, encoding="utf-8", errors="replace") as f:
                p.feed(f.read())
            for ref in p.links:
                if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", ref) or ref.startswith(("//", "#")):
                    continue
                path = urllib.parse.unquote(ref.split("#", 1)[0])
                if not path:
                    continue
                total += 1
                if ref.startswith("/") or not os.path.exists(os.path.join(d, path)):
                    broken[re.sub(r"[0-9]+", "N", ref)[:80]] += 1
    return total, sum(broken.values()), broken.most_common(3)


def requests(log):
    status, families = collections.Counter(), collections.Counter()
    with open(log) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 3:
                continue
            status[parts[0]] += 1
            families[family(parts[2])] += 1
    return dict(sorted(status.items())), dict(families)


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default


def measure(site, rundir):
    runs = []
    for k in (1, 2, 3):
        if not os.path.exists(os.path.join(rundir, "access-%d.log" % k)):
            continue
        status, families = requests(os.path.join(rundir, "access-%d.log" % k))
        runs.append({
            "run": k, "exit": read(os.path.join(rundir, "exit-%d" % k)), "wall": read(os.path.join(rundir, "wall-%d" % k)),
            "lines": int(read(os.path.join(rundir, "lines-%d" % k), "0")),
            "rewritten": int(read(os.path.join(rundir, "rewritten-%d" % k), "0")),
            "rewritten_names": read(os.path.join(rundir, "rewritten-%d.names" % k)).split("\n")[:3],
            "status": status, "families": families,
        })
    total, broken, worst = broken_links(os.path.join(rundir, "m"))
    out = {"site": site, "version": read(os.path.join(rundir, "version")), "runs": runs,
           "links": total, "broken": broken, "worst": worst}
    d = os.path.join(rundir, "scoped")
    if os.path.exists(os.path.join(d, "access.log")):
        status, families = requests(os.path.join(d, "access.log"))
        out["scoped"] = {"exit": read(os.path.join(d, "exit")), "lines": int(read(os.path.join(d, "lines"), "0")),
                         "messages": int(read(os.path.join(d, "messages"), "0")), "of": int(read(os.path.join(d, "of"), "0")),
                         "status": status, "families": families}
    return out


def rewritten(run):
    """The files a revisit rewrote: their count, and the first names."""
    names = [n.lstrip("./") for n in run.get("rewritten_names", []) if n]
    if not run["rewritten"] or not names:
        return str(run["rewritten"])
    return "%d (%s%s)" % (run["rewritten"], ", ".join("`%s`" % n for n in names),
                          ", …" if run["rewritten"] > len(names) else "")


def render(cmdline, results):
    out = ["# spider against more real software: DokuWiki, WordPress, public-inbox", "",
           "Written by `scripts/check-realsites` (do not edit by hand; run it again)",
           "on %s. Command: `%s`." % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), cmdline), "",
           "Each site is Debian's package behind a server of its own on 127.0.0.1 (apache with",
           "mod_php; public-inbox-httpd), filled with generated content (see the script's",
           "header). spider runs three times on one list:",
           "`spider --profile slow --until-idle --delay 0` for a first mirror, then twice more",
           "with every line of the list due (its dates moved back), as later visits would find the",
           "site unchanged. A revisit should add no line and rewrite no file.", ""]
    for r in results:
        out += ["## %s" % r["version"], "",
                "| run | exit | wall s | list lines | requests by status | files rewritten |",
                "|---|---|---|---|---|---|"]
        for run in r["runs"]:
            st = ", ".join("%s: %d" % kv for kv in run["status"].items())
            out.append("| %s | %s | %s | %d | %s | %s |" % (
                "first mirror" if run["run"] == 1 else "revisit %d" % (run["run"] - 1), run["exit"], run["wall"],
                run["lines"], st, "—" if run["run"] == 1 else rewritten(run)))
        out += ["", "Requests by URL family (first mirror, then each revisit):", ""]
        names = [n for n, _ in FAMILIES] + ["other"]
        for n in names:
            counts = [run["families"].get(n, 0) for run in r["runs"]]
            if any(counts):
                out.append("- %s: %s" % (n, " / ".join(str(c) for c in counts)))
        worst = "; ".join("%s (%d)" % (u, c) for u, c in r["worst"])
        out += ["", "Local links in the mirror's pages after the last run: %d, of which %d lead to no file%s." % (
            r["links"], r["broken"], (": " + worst) if worst else ""), ""]
        if "scoped" in r:
            out += scoped(r["scoped"])
    return "\n".join(out)


def scoped(sc):
    """The lines of the report on the first mirror with the README's
    exclusions for public-inbox."""
    fams = ", ".join("%s %d" % (n, sc["families"][n]) for n in [n for n, _ in FAMILIES] + ["other"]
                     if sc["families"].get(n))
    st = ", ".join("%s: %d" % kv for kv in sc["status"].items())
    return ["With the README's exclusions for it, `[scope] exclude = ['/raw$', '\\.mbox\\.gz$', '/t/$']`",
            "in a config file, a first mirror on a list of its own: exit %s, %d list lines, requests %s (%s);" % (
                sc["exit"], sc["lines"], st, fams),
            "%d of the %d messages have their page in the mirror." % (sc["messages"], sc["of"]), ""]


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "dokuwiki-pages" and len(argv) == 4:
        dokuwiki_pages(argv[2], int(argv[3]))
    elif cmd == "inbox-messages" and len(argv) == 4:
        inbox_messages(argv[2], int(argv[3]))
    elif cmd == "wordpress-sql" and len(argv) == 4:
        sys.stdout.write(wordpress_sql(int(argv[2]), argv[3]))
    elif cmd == "measure" and len(argv) == 4:
        print(json.dumps(measure(argv[2], argv[3])))
    elif cmd == "render" and len(argv) >= 3:
        results = []
        for p in argv[3:]:
            with open(p) as f:
                results.append(json.load(f))
        print(render(argv[2], results))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
