package hostile

import (
	"compress/gzip"
	"fmt"
	"net/http"
	"strings"
)

// The sitemap cases, which the home page does not link and the default
// robots.txt does not name (a test names /sitemap-index.xml in
// Options.Robots):
//
//	/sitemap-index.xml    an index of itself, a nested index, the cases below and
//	                      SitemapFillers more url sets: far more files than one read may cost
//	/sitemap-nested.xml   an index listed by the index (lists /sitemap-deeper.xml)
//	/sitemap-bomb.xml.gz  a gzip file (no Content-Encoding) of one URL, /bomb-page, then
//	                      Options.BombSize bytes of spaces once decompressed
//	/sitemap-many.xml.gz  SitemapMany URLs, /sitemap-page/N: more than a file may hold
//	/sitemap-deep.xml     elements nested 100,000 deep
//	/sitemap-foreign.xml  URLs of other hosts and of the cloud metadata service
//	/sitemap-filler/N.xml an empty url set
const (
	SitemapMany    = 60_000
	SitemapFillers = 200
)

// sitemapCase serves the sitemap case at p; false if p is none.
func (s *Site) sitemapCase(w http.ResponseWriter, r *http.Request, p string) bool {
	base := "http://" + r.Host
	set := func(body string) {
		w.Header().Set("Content-Type", "application/xml")
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>%s`, body)
	}
	switch {
	case p == "/sitemap-index.xml":
		var b strings.Builder
		b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for _, c := range []string{"/sitemap-index.xml", "/sitemap-nested.xml", "/sitemap-bomb.xml.gz", "/sitemap-many.xml.gz",
			"/sitemap-deep.xml", "/sitemap-foreign.xml"} {
			fmt.Fprintf(&b, "<sitemap><loc>%s%s</loc></sitemap>", base, c)
		}
		for i := range SitemapFillers {
			fmt.Fprintf(&b, "<sitemap><loc>%s/sitemap-filler/%d.xml</loc></sitemap>", base, i)
		}
		set(b.String() + "</sitemapindex>")
	case p == "/sitemap-nested.xml":
		set(`<sitemapindex><sitemap><loc>` + base + `/sitemap-deeper.xml</loc></sitemap></sitemapindex>`)
	case p == "/sitemap-deeper.xml":
		set(`<urlset><url><loc>` + base + `/nested-page</loc></url></urlset>`)
	case p == "/sitemap-bomb.xml.gz":
		w.Header().Set("Content-Type", "application/gzip")
		w.Write(gzipMember([]byte(`<urlset><url><loc>` + base + `/bomb-page</loc></url>`)))
		for left := s.opt.BombSize; left > 0; left -= 1 << 20 {
			if _, err := w.Write(spacesMember()); err != nil {
				return true
			}
		}
	case p == "/sitemap-many.xml.gz":
		// Streamed as it is made: the headers go at once.
		w.Header().Set("Content-Type", "application/gzip")
		w.WriteHeader(http.StatusOK)
		zw := gzip.NewWriter(w)
		zw.Write([]byte("<urlset>"))
		for i := range SitemapMany {
			fmt.Fprintf(zw, "<url><loc>%s/sitemap-page/%d</loc></url>\n", base, i)
		}
		zw.Write([]byte("</urlset>"))
		zw.Close()
	case p == "/sitemap-deep.xml":
		set("<urlset><url>" + strings.Repeat("<a>", 100_000) + "</url></urlset>")
	case p == "/sitemap-foreign.xml":
		set(`<urlset><url><loc>http://elsewhere.example/page</loc></url><url><loc>http://169.254.169.254/latest/meta-data/</loc></url>` +
			`<url><loc>http://127.0.0.2` + strings.TrimPrefix(base, "http://127.0.0.1") + `/other-loopback</loc></url></urlset>`)
	case strings.HasPrefix(p, "/sitemap-filler/"):
		set(`<urlset></urlset>`)
	default:
		return false
	}
	return true
}
