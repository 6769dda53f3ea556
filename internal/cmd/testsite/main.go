// Command testsite serves the sitetest site (its forum unless -shape says
// otherwise) on a loopback address and changes it on a timer, so spider can
// be demonstrated against a living site.
//
// Usage:
//
//	testsite [-addr 127.0.0.1:0] [-shape forum] [-topics 30] [-latency 0] [-churn 10s] [-ready-file PATH]
//	testsite [-shape forum] [-topics 30] -describe
//	testsite -shape articles -topics 960 -stable-pages -churn 1s -churn-mix fresh [-seed 1] -truth-file PATH [-request-log PATH]
//
// -shape articles serves sitetest's Articles shape instead of the forum:
// the same topics as long articles with an image each (nearly half the
// URLs are images). -describe prints one line about the site and exits,
// without serving it:
//
//	site: articles, 3000 topics, 6454 paths (3001 images), deepest level 150
//
// It prints "listening on http://127.0.0.1:PORT/" once it accepts
// connections and, with -ready-file, writes the same URL to PATH atomically
// (temp file and rename) so a script can wait for the file instead of
// sleeping; the file is removed on exit. Every -churn interval it applies one
// change in rotation and prints it as one line:
//
//	change: added /topic/31-churn-topic-1      new topic, announced on the home page
//	change: edited /topic/3-…                  silent edit of a topic at level 3 or deeper
//	change: deleted /topic/15-…                topic (and replies) now 404
//
// (on the articles shape, /article/… in place of /topic/…; a deleted
// article's image answers 404 too)
//
// -churn-mix fresh makes the changes of scripts/bench-fresh instead, in a
// rotation of four (fresh.go): added (announced on the home page),
// announced (an edit that moves the topic to the top of the home page's
// latest list), edited (silent, level 3 or deeper), deleted; -seed picks
// the topics. -truth-file PATH keeps the ground truth there, rewritten
// atomically at start and after every change: every live path's version,
// which each HTML page also carries as <meta name="x-version" content="N">,
// and the changes so far (truth.go). -request-log PATH logs every request
// answered, one line each ("UNIXTIME STATUS METHOD URI"), flushed after
// every change and at exit. -stable-pages numbers the articles shape's
// section and archive pages as fixed ranges of articles (an archive by
// month, say), so that a change touches a few pages, not every page after
// it (sitetest.Options.StablePages).
//
// SIGINT or SIGTERM shuts the server down, prints what it served
//
//	served: 14338 requests, 14337 distinct URIs answered 200, 1 other answers
//
// and exits 0. Exit status is 2 for
// usage errors (including a non-loopback -addr) and 1 for other errors.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}
