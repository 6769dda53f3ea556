package sitetest

import "fmt"

// Shape selects how the site renders its topics. The zero value is Forum.
type Shape int

const (
	// Forum is the shape described in the package doc: small topic pages
	// behind a paginated index, the site the tests are written against.
	Forum Shape = iota

	// Articles is a magazine of long pages, for measuring what a mirrored
	// file costs: each topic is an article of 2–6 KB of prose with one PNG
	// image of its own (a few KB, distinct bytes per article), so nearly
	// half the URLs are images. Shape, for T articles:
	//
	//	level 0  /                      home: the 5 latest articles, the sections, the archive
	//	level 1  /about, /static/…      as on the forum
	//	level 1  /section/NAME/         four sections (news, science, travel, culture);
	//	                                article N is in section (N-1) mod 4
	//	level 1  /archive/              page 1 of the archive
	//	level 1  /article/N-slug        the 5 latest articles
	//	level 2… /section/NAME/?page=P  a section lists its articles newest first, 10 a
	//	                                page, with a numbered pager (the first and last
	//	                                page and two either side of the current one)
	//	level 2… /archive/?page=P       every article newest first, 20 a page; a page
	//	                                links only the newer and the older page (a blog's
	//	                                "older posts"), so the archive is a chain
	//	         /article/N-slug        links home, its section page and its image
	//	         /media/N.png           one level below its article
	//
	// That is 70 reachable paths for the default 30 articles (by level: 1,
	// 13, 31, 25), 30 of them images. Every page carries the header's links
	// to home, the sections, the archive and /about. The mutations work as
	// on the forum, on articles; Delete removes the article's image too.
	// The forum's redirects are not served. With Options.StablePages the
	// section and archive pages are fixed ranges of articles instead, so a
	// change touches only the pages that list the article (stable.go).
	Articles
)

// Shape names, as String returns them and Set accepts them.
var shapeNames = [...]string{Forum: "forum", Articles: "articles"}

// String returns the shape's name: "forum" or "articles".
func (s Shape) String() string {
	if s < 0 || int(s) >= len(shapeNames) {
		return fmt.Sprintf("Shape(%d)", int(s))
	}
	return shapeNames[s]
}

// Set sets s from its name, so that a *Shape is a flag.Value.
func (s *Shape) Set(name string) error {
	for i, n := range shapeNames {
		if n == name {
			*s = Shape(i)
			return nil
		}
	}
	return fmt.Errorf("invalid shape %q, must be one of (forum|articles)", name)
}

// topicDir is the directory of the shape's topic pages.
func (s Shape) topicDir() string {
	if s == Articles {
		return "/article/"
	}
	return "/topic/"
}
