// Package htmlurl knows where URLs live in HTML: which tag/attribute pairs
// hold one and of what kind, how srcset and meta refresh carry them, and how
// a query is encoded in a page's charset, and where the URLs of a piece of
// CSS are (CSSURLs).
//
// It is the knowledge that package extract (which walks a parsed tree to
// find a page's links) and package rewrite (which walks the raw tokens to
// change them in place) must share to find the same links; it parses no
// document itself. Rules lists the URL-bearing attributes, Rule.Classify
// applies the conditions on the other attributes of an element (a <link> by
// its rel, <meta content> only for http-equiv=refresh, <input src> only for
// type=image), and Rule.Spans says where in an attribute value the URLs are:
// the whole value, each candidate of a srcset, or the URL part of a refresh.
// Spans are byte offsets into the value, so that a reader can slice the URLs
// out and a rewriter can replace them, keeping everything around them.
//
// Functions here are pure and safe for concurrent use.
package htmlurl
