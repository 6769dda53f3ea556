package fetch

import (
	"context"
	"net/http"
	"testing"
)

func TestGetOK(t *testing.T) {
	var gotUA, gotINM, gotAE string
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUA = r.Header.Get("User-Agent")
		gotINM = r.Header.Get("If-None-Match")
		gotAE = r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Type", "Text/HTML; charset=windows-1251")
		w.Header().Set("ETag", `"v1"`)
		w.Write([]byte("<p>\xcf\xf0\xe8\xe2\xe5\xf2</p>")) // windows-1251, must come back untouched
	}))
	c := New(Options{UserAgent: "spider-test/1"})
	hdr := http.Header{"If-None-Match": {`"v0"`}, "Accept-Encoding": {"br"}}
	resp, err := c.Get(context.Background(), base+"/page", hdr)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 {
		t.Errorf("Status = %d", resp.Status)
	}
	if want := base + "/page"; resp.URL != want {
		t.Errorf("URL = %q, want %q", resp.URL, want)
	}
	if resp.MediaType != "text/html" {
		t.Errorf("MediaType = %q, want text/html", resp.MediaType)
	}
	if want := "<p>\xcf\xf0\xe8\xe2\xe5\xf2</p>"; string(resp.Body) != want {
		t.Errorf("Body = %q, want %q", resp.Body, want)
	}
	if resp.Header.Get("ETag") != `"v1"` {
		t.Errorf("ETag = %q", resp.Header.Get("ETag"))
	}
	if len(resp.Redirects) != 0 {
		t.Errorf("Redirects = %q, want none", resp.Redirects)
	}
	if gotUA != "spider-test/1" {
		t.Errorf("server saw User-Agent %q", gotUA)
	}
	if gotINM != `"v0"` {
		t.Errorf("server saw If-None-Match %q", gotINM)
	}
	if gotAE != "gzip" {
		t.Errorf("server saw Accept-Encoding %q, want gzip (caller's value ignored)", gotAE)
	}
}

func TestGetDefaultUserAgent(t *testing.T) {
	var gotUA string
	base := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUA = r.Header.Get("User-Agent")
	}))
	if _, err := New(Options{}).Get(context.Background(), base+"/", nil); err != nil {
		t.Fatal(err)
	}
	if gotUA != DefaultUserAgent() {
		t.Errorf("User-Agent = %q, want %q", gotUA, DefaultUserAgent())
	}
}

func TestMediaType(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"text/html", "text/html"},
		{"TEXT/HTML; charset=UTF-8", "text/html"},
		{"text/html;;; bogus", "text/html"},
		{"  application/xhtml+xml ", "application/xhtml+xml"},
	}
	for _, tt := range tests {
		if got := mediaType(tt.in); got != tt.want {
			t.Errorf("mediaType(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestGetRejectsBadURL(t *testing.T) {
	c := New(Options{})
	for _, u := range []string{"ftp://example.com/", "/relative", "mailto:x@example.com"} {
		if _, err := c.Get(context.Background(), u, nil); err == nil {
			t.Errorf("Get(%q): no error", u)
		}
	}
}
