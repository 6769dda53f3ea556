package crawl

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/list"
)

func TestLinkLevel(t *testing.T) {
	const page, cdn = "http://site.test/", "http://cdn.test/x"
	for _, tt := range []struct {
		level int
		kind  extract.Kind
		to    string
		want  int
	}{
		{0, extract.Page, page + "a", 1},
		{3, extract.Page, page + "a", 4},
		{3, extract.Requisite, page + "a.png", 3},
		{3, extract.Style, page + "a.css", 3},
		{3, extract.Frame, page + "f", 3},
		{0, extract.Requisite, page + "a.png", 1}, // a start page's requisites: level 0 is for start URLs
		{0, extract.Requisite, cdn, 1},
		{0, extract.Frame, page + "menu", 0}, // a frameset's frames are its start pages
		{0, extract.Frame, cdn, 1},           // an embedded page elsewhere is no start
		{list.MaxLevel, extract.Page, page + "a", list.MaxLevel},
	} {
		if got := linkLevel(tt.level, tt.kind, page, tt.to); got != tt.want {
			t.Errorf("linkLevel(%d, %v, %s) = %d, want %d", tt.level, tt.kind, tt.to, got, tt.want)
		}
	}
}

// TestForeignRequisites: an image of a page, on a host out of scope, is
// mirrored and linked relatively with Scope.Requisites, and left on the
// live site without; a page on that host is never followed.
func TestForeignRequisites(t *testing.T) {
	for _, foreign := range []bool{false, true} {
		v := newEnv(t)
		cdn := &fakeSite{status: map[string]int{}, body: map[string]string{}, hits: map[string]int{}}
		cdn.set("/i.png", 200, "\x89PNG")
		cdn.set("/page", 200, "a page of the cdn")
		srv := httptest.NewServer(cdn)
		defer srv.Close()
		v.site.set("/", 200, `<img src="`+srv.URL+`/i.png"><a href="`+srv.URL+`/page">p</a>`)
		v.cfg = func(c *Config) { c.Scope.Requisites = foreign }
		v.crawl(t, time.Hour)
		home := v.file(t, v.line(t, v.base+"/").File)
		cdnHost := strings.TrimPrefix(srv.URL, "http://")
		wantImg := `src="` + srv.URL + `/i.png"`
		if foreign {
			wantImg = `src="../` + cdnHost + `/i.png"`
			if got, err := os.ReadFile(filepath.Join(v.mdir, cdnHost, "i.png")); err != nil || string(got) != "\x89PNG" {
				t.Errorf("foreign image not mirrored: %q, %v", got, err)
			}
		}
		if !strings.Contains(home, wantImg) || !strings.Contains(home, `href="`+srv.URL+`/page"`) {
			t.Errorf("foreign %v: home page %s, want %s and the page link absolute", foreign, home, wantImg)
		}
		cdn.mu.Lock()
		hits := cdn.hits
		cdn.mu.Unlock()
		if hits["/page"] != 0 || (hits["/i.png"] == 1) != foreign {
			t.Errorf("foreign %v: cdn hits %v", foreign, hits)
		}
	}
}
