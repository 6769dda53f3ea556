package scope

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

func mustNew(t testing.TB, c Config) *Rules {
	t.Helper()
	r, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFollow(t *testing.T) {
	base := Config{Hosts: []string{"a.example", "127.0.0.1:8080"}, Requisites: true}
	withPrivate := base
	withPrivate.AllowLoopback = true
	withLAN := base
	withLAN.AllowPrivate = true
	patterns := base
	patterns.Include = []string{`^https?://a\.example/(docs|img)/`}
	patterns.Exclude = []string{`/docs/old/`, `[?&]sessionid=`}
	cgi := base
	cgi.SkipCGI = true
	noReq := base
	noReq.Requisites = false
	tight := base
	tight.Limits = Limits{MaxURLLen: 40, MaxLevel: 3, MaxRepeat: 1, MaxSegments: 2}
	const page = "http://a.example/index.html"
	tests := []struct {
		name   string
		c      Config
		from   string
		l      Link
		ok     bool
		reason string
	}{
		{"same host", base, page, Link{URL: "http://a.example/x", Level: 1}, true, ""},
		{"other host page", base, page, Link{URL: "http://b.example/x", Level: 1}, false, "out of scope"},
		{"other host requisite", base, page, Link{URL: "https://cdn.example/s.css", Level: 1, Requisite: true}, true, ""},
		{"requisites off", noReq, page, Link{URL: "https://cdn.example/s.css", Level: 1, Requisite: true}, false, "out of scope"},
		{"requisite of an off-host page", base, "http://b.example/", Link{URL: "https://cdn.example/s.css", Requisite: true}, false, "out of scope"},
		{"host case", base, page, Link{URL: "http://A.EXAMPLE/x"}, true, ""},
		{"scheme ftp", base, page, Link{URL: "ftp://a.example/x"}, false, "scheme"},
		{"scheme javascript", base, page, Link{URL: "javascript:alert(1)"}, false, "scheme"},
		{"too long", base, page, Link{URL: "http://a.example/" + strings.Repeat("x", 3000)}, false, "url too long"},
		{"too long (tight)", tight, page, Link{URL: "http://a.example/" + strings.Repeat("x", 30)}, false, "url too long"},
		{"too deep", tight, page, Link{URL: "http://a.example/x", Level: 4}, false, "too deep"},
		{"deep enough", tight, page, Link{URL: "http://a.example/x", Level: 3}, true, ""},
		{"default depth", base, page, Link{URL: "http://a.example/x", Level: DefaultMaxLevel + 1}, false, "too deep"},
		{"repeated pair", base, page, Link{URL: "http://a.example/a/b/a/b/a/b/"}, false, "repeated segments"},
		{"repeated twice is fine", base, page, Link{URL: "http://a.example/2026/11/11/"}, true, ""},
		{"repeated one", base, page, Link{URL: "http://a.example/x/x/x"}, false, "repeated segments"},
		{"repeat in query only", base, page, Link{URL: "http://a.example/p?a/a/a/a"}, true, ""},
		{"20 segments", base, page, Link{URL: "http://a.example" + segs(20)}, true, ""},
		{"21 segments", base, page, Link{URL: "http://a.example" + segs(21)}, false, "too many segments"},
		{"segments (tight)", tight, page, Link{URL: "http://a.example/a/b/c"}, false, "too many segments"},
		{"private 10/8", base, page, Link{URL: "http://10.0.0.1/", Requisite: true}, false, "private address"},
		{"private 192.168", base, page, Link{URL: "http://192.168.1.1:8080/x", Requisite: true}, false, "private address"},
		{"metadata 169.254", base, page, Link{URL: "http://169.254.169.254/latest/", Requisite: true}, false, "private address"},
		{"loopback v6", base, page, Link{URL: "http://[::1]:8080/", Requisite: true}, false, "private address"},
		{"localhost", base, page, Link{URL: "http://localhost:9/", Requisite: true}, false, "private address"},
		{"mapped v4", base, page, Link{URL: "http://[::ffff:127.0.0.1]/", Requisite: true}, false, "private address"},
		{"loopback start host without AllowPrivate", base, page, Link{URL: "http://127.0.0.1:8080/x"}, false, "private address"},
		{"loopback start host with AllowLoopback", withPrivate, "http://127.0.0.1:8080/", Link{URL: "http://127.0.0.1:8080/x"}, true, ""},
		{"AllowLoopback does not open the LAN", withPrivate, "http://127.0.0.1:8080/", Link{URL: "http://10.0.0.1/x.png", Requisite: true}, false, "private address"},
		{"AllowPrivate opens the LAN", withLAN, page, Link{URL: "http://10.0.0.1/x.png", Requisite: true}, true, ""},
		{"metadata never", withLAN, page, Link{URL: "http://169.254.169.254/x.png", Requisite: true}, false, "private address"},
		{"public IP requisite", base, page, Link{URL: "http://93.184.216.34/x.png", Requisite: true}, true, ""},
		{"include match", patterns, page, Link{URL: "http://a.example/docs/a"}, true, ""},
		{"include miss", patterns, page, Link{URL: "http://a.example/blog/a"}, false, "not included"},
		{"include: a page's requisite need not match", patterns, page, Link{URL: "http://a.example/static/m.css", Requisite: true}, true, ""},
		{"include: a requisite is excluded all the same", patterns, page, Link{URL: "http://a.example/docs/old/m.png", Requisite: true}, false, "excluded"},
		{"exclude", patterns, page, Link{URL: "http://a.example/docs/old/a"}, false, "excluded"},
		{"exclude session", patterns, page, Link{URL: "http://a.example/docs/a?x=1&sessionid=9"}, false, "excluded"},
		{"cgi-bin", cgi, page, Link{URL: "http://a.example/cgi-bin/search?q=1"}, false, "excluded"},
		{"cgi script", cgi, page, Link{URL: "http://a.example/board.pl?t=2"}, false, "excluded"},
		{"cgi off", base, page, Link{URL: "http://a.example/cgi-bin/search"}, true, ""},
		{"not cgi", cgi, page, Link{URL: "http://a.example/cgi-binary/x.plan"}, true, ""},
	}
	for _, tt := range tests {
		r := mustNew(t, tt.c)
		ok, why := r.Follow(tt.from, tt.l)
		if ok != tt.ok || why != tt.reason {
			t.Errorf("%s: Follow(%s) = %v %q, want %v %q", tt.name, tt.l.URL, ok, why, tt.ok, tt.reason)
		}
	}
}

func TestNewBadPattern(t *testing.T) {
	_, err := New(Config{Exclude: []string{"a(b"}})
	if err == nil || !strings.Contains(err.Error(), `exclude pattern "a(b"`) {
		t.Errorf("err = %v, want one naming the exclude pattern", err)
	}
}

func TestAddHost(t *testing.T) {
	r := mustNew(t, Config{Hosts: []string{"a"}})
	r2 := r.AddHost("B:81")
	if r.InScope("http://b:81/") || !r2.InScope("http://b:81/") || !r2.InScope("http://a/") {
		t.Error("AddHost changed the original or did not add the host")
	}
}

func TestRepeats(t *testing.T) {
	for p, want := range map[string]int{
		"/":                  1,
		"/a/b/c":             1,
		"/a/a":               2,
		"/a/a/a/x":           3,
		"/x/a/b/a/b/a/b":     3,
		"/a/b/a/b/":          2,
		"/a//b":              1,
		"/a////b":            3,
		"/cal/2026/cal/2026": 2,
	} {
		if got := Repeats(p); got != want {
			t.Errorf("Repeats(%q) = %d, want %d", p, got, want)
		}
	}
}

// segs returns a path of n distinct segments.
func segs(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "/s%d", i)
	}
	return b.String()
}

func TestSegments(t *testing.T) {
	for p, want := range map[string]int{"/": 0, "": 0, "/a": 1, "/a/": 1, "/a/b": 2, "/a//b/": 3} {
		if got := Segments(p); got != want {
			t.Errorf("Segments(%q) = %d, want %d", p, got, want)
		}
	}
}

func TestPrivate(t *testing.T) {
	for h, want := range map[string]bool{
		"127.0.0.1:8080": true, "10.1.2.3": true, "172.16.0.1": true, "172.32.0.1": false,
		"192.168.0.1": true, "169.254.1.1": true, "0.0.0.0": true, "100.64.1.1": true, "100.128.0.1": false,
		"[::1]": true, "[fe80::1]:80": true, "[fc00::1]": true, "[2001:db8::1]": false,
		"localhost": true, "a.localhost:80": true, "localhost.": true, "example.com": false, "8.8.8.8": false,
	} {
		if got := Private(h); got != want {
			t.Errorf("Private(%q) = %v, want %v", h, got, want)
		}
	}
}

// FuzzFollow checks that no link makes Follow panic, that a followed
// link always passes the limits, and that Repeats stays ≥ 1.
func FuzzFollow(f *testing.F) {
	f.Add("http://a.example/a/b/a/b/a/b", 3, false)
	f.Add("http://[::1/", 0, true)
	f.Add("https://a.example//////?x", 60, true)
	f.Add("http://a.example:99999/cgi-bin/x.pl", 1, false)
	r := mustNew(f, Config{Hosts: []string{"a.example"}, Requisites: true, SkipCGI: true, Exclude: []string{`\?x`}})
	f.Fuzz(func(t *testing.T, u string, level int, req bool) {
		ok, why := r.Follow("http://a.example/", Link{URL: u, Level: level, Requisite: req})
		if ok && (why != "" || r.Check(u, level) != "" || len(u) > DefaultMaxURLLen) {
			t.Fatalf("followed %q at level %d though the limits refuse it (%q)", u, level, r.Check(u, level))
		}
		if !ok && why == "" {
			t.Fatalf("refused %q without a reason", u)
		}
		if Repeats(u) < 1 {
			t.Fatalf("Repeats(%q) < 1", u)
		}
	})
}

func TestRefuse(t *testing.T) {
	tests := []struct {
		addr              string
		loopback, private bool
		want              bool
	}{
		{"127.0.0.1", false, false, true},
		{"127.0.0.1", true, false, false},
		{"::1", true, false, false},
		{"::ffff:127.0.0.1", true, false, false},
		{"10.0.0.1", true, false, true},
		{"10.0.0.1", false, true, false},
		{"169.254.169.254", true, true, true},
		{"fe80::1", true, true, true},
		{"0.0.0.0", true, true, true},
		{"224.0.0.1", true, true, true},
		{"93.184.216.34", false, false, false},
		{"2001:db8::1", false, false, false},
	}
	for _, tt := range tests {
		if got := Refuse(netip.MustParseAddr(tt.addr), tt.loopback, tt.private); got != tt.want {
			t.Errorf("Refuse(%s, loopback %v, private %v) = %v, want %v", tt.addr, tt.loopback, tt.private, got, tt.want)
		}
	}
	if lo, pr := Allowed([]string{"127.0.0.1:8080", "example.com"}); !lo || pr {
		t.Errorf("Allowed(loopback start) = %v, %v", lo, pr)
	}
	if lo, pr := Allowed([]string{"192.168.1.5"}); lo || !pr {
		t.Errorf("Allowed(private start) = %v, %v", lo, pr)
	}
}
