package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/spider-mirror/spider/internal/linkname"
	"github.com/spider-mirror/spider/list"
	"github.com/spider-mirror/spider/mirror"
)

// realDocs is the Python 3 manual of Debian's python3-doc: about 560
// URLs that Sphinx built (pages, style sheets, scripts, images), a real
// site's shape that none of the project's test sites imitates.
const realDocs = "/usr/share/doc/python3/html"

// TestRealDocs mirrors real documentation served by a real web server,
// nginx, as a user would: `spider --profile slow --until-idle`, then,
// with every line due again, a second run. The first run must copy every
// page and file the manual links to, leave every link of the mirror
// leading to a file on disk (but those to pages the server answers 404),
// keep images and scripts byte for byte, and request each URL once. The
// second must ask nginx conditionally for each copy, be answered 304
// every time, and leave every file of the mirror as it was.
//
// It needs nginx and python3-doc (scripts/test installs them): without
// them it fails under CI=true and skips otherwise, like internal/pglist's
// tests without a server.
func TestRealDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("a real web server: not with -short")
	}
	ngx := startNginx(t, realDocs)
	dir := t.TempDir()
	run := func() {
		t.Helper()
		code, out := spiderRun(t, dir, 5*time.Minute, "--profile", "slow", "--until-idle", "--delay", "0",
			"--start", ngx.url+"/", "--list", "spider.list", "--mirror", "m", "-q")
		if code != 0 {
			t.Fatalf("spider exited %d:\n%s", code, out)
		}
	}

	run()
	first := ngx.requests(t)
	es := readList(t, filepath.Join(dir, "spider.list"))
	byURL := checkOnce(t, es)
	mdir := filepath.Join(dir, "m")
	checkMirror(t, mdir, es)
	gone := map[string]bool{} // mirror names of the URLs nginx answered 404
	copies := 0
	for _, e := range es {
		p := strings.TrimPrefix(e.URL, ngx.url)
		switch {
		case e.File != "":
			copies++
			if first[p] != "200" {
				t.Errorf("%s has a copy, nginx answered it %q", e.URL, first[p])
			}
			checkVerbatim(t, mdir, e, filepath.Join(realDocs, filepath.FromSlash(p)))
		case first[p] == "404":
			if f, err := mirror.Path(e.URL, "text/html"); err == nil {
				gone[f] = true
			}
		default:
			t.Errorf("%s: no copy, state %s, nginx answered %q", e.URL, e.State, first[p])
		}
	}
	for p, status := range first {
		if _, ok := byURL[ngx.url+p]; !ok && p != "/robots.txt" && p != "/sitemap.xml" {
			t.Errorf("nginx answered %s %s, which the list does not hold", status, p)
		}
	}
	if copies < 400 {
		t.Fatalf("%d copies of the manual; it has more than 500 pages and files", copies)
	}
	checkDocLinks(t, mdir, ngx.url, gone)

	// Every line due again: the dates of the list go back to 2000.
	agoList(t, filepath.Join(dir, "spider.list"))
	before := snapshot(t, filepath.Join(mdir, strings.TrimPrefix(ngx.url, "http://")))
	ngx.mark(t)
	run()
	second := ngx.requests(t)
	for _, e := range es {
		p := strings.TrimPrefix(e.URL, ngx.url)
		if e.File != "" && second[p] != "304" {
			t.Errorf("second run: %s answered %q, want 304", e.URL, second[p])
		}
	}
	for p, status := range second {
		if status == "200" {
			t.Errorf("second run: %s fetched whole again", p)
		}
	}
	after := snapshot(t, filepath.Join(mdir, strings.TrimPrefix(ngx.url, "http://")))
	for name, fi := range before {
		if a, ok := after[name]; !ok || a != fi {
			t.Errorf("second run changed %s: %+v, then %+v", name, fi, a)
		}
	}
	t.Logf("%d copies; first run %d requests, second %d", copies, len(first), len(second))
}

// nginx is an nginx serving a directory on 127.0.0.1 for a test.
type nginx struct {
	url    string // http://127.0.0.1:port
	log    string // access log: one "status method uri" a request
	offset int64  // where requests reads from
	marks  int    // probes asked for by mark
}

// probe is the path startNginx asks for until nginx answers.
const probe = "/spider-test-probe"

// startNginx serves root with nginx until the test ends.
func startNginx(t *testing.T, root string) *nginx {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		bin = "/usr/sbin/nginx"
	}
	_, binErr := os.Stat(bin)
	_, docErr := os.Stat(filepath.Join(root, "index.html"))
	if binErr != nil || docErr != nil {
		msg := fmt.Sprintf("needs nginx and %s (%v; %v)\nhint: apt-get install nginx-light python3-doc, or run scripts/test, which installs them", root, binErr, docErr)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	dir := t.TempDir()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	n := &nginx{url: fmt.Sprintf("http://127.0.0.1:%d", port), log: filepath.Join(dir, "access.log")}
	conf := fmt.Sprintf(`worker_processes 1;
pid %[1]s/nginx.pid;
events { worker_connections 64; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	log_format t '$status $request_method $request_uri';
	access_log %[1]s/access.log t;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	server {
		listen 127.0.0.1:%[2]d;
		root %[3]s;
	}
}
`, dir, port, root)
	if err := os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	errLog := filepath.Join(dir, "error.log")
	cmd := exec.Command(bin, "-e", errLog, "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-g", "daemon off;")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its workers with it
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	eventually(t, 30*time.Second, "nginx answering on "+n.url, func() bool {
		select {
		case err := <-exited:
			exited <- err
			b, _ := os.ReadFile(errLog)
			t.Fatalf("nginx exited: %v\n%s", err, b)
		default:
		}
		resp, err := http.Get(n.url + probe)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	})
	n.mark(t)
	return n
}

// mark makes requests begin after every request nginx answered so far.
// nginx logs a request once it has answered it, so the last answers' lines
// may still be on their way: mark asks for a probe and waits for its line.
// nginx's one worker finishes requests in turn, so the lines before it
// are all in.
func (n *nginx) mark(t *testing.T) {
	t.Helper()
	n.marks++
	p := fmt.Sprintf("%s?%d", probe, n.marks)
	resp, err := http.Get(n.url + p)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	eventually(t, 30*time.Second, "nginx logging "+p, func() bool {
		b, err := os.ReadFile(n.log)
		if i := bytes.Index(b, []byte(" "+p+"\n")); err == nil && i >= 0 {
			n.offset = int64(i + len(p) + 2)
			return true
		}
		return false
	})
}

// requests returns the status of each path requested since mark (the
// last, for a path requested more than once), and fails the test for a
// path requested more than once or a method but GET.
func (n *nginx) requests(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(n.log)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b[n.offset:])), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "GET" {
			t.Errorf("access log: %q", line)
			continue
		}
		if got[f[2]] != "" {
			t.Errorf("%s requested twice in one run (%s, then %s)", f[2], got[f[2]], f[0])
		}
		got[f[2]] = f[0]
	}
	return got
}

// checkVerbatim fails unless the copy of e, if it is neither a page nor
// a style sheet (which the spider rewrites), holds the bytes of the file
// nginx served.
func checkVerbatim(t *testing.T, mdir string, e list.Entry, served string) {
	t.Helper()
	if linkname.IsPageName(e.File) || strings.HasSuffix(e.File, ".css") || strings.Contains(e.URL, "?") {
		return
	}
	want, err := os.ReadFile(served)
	if err != nil {
		t.Errorf("%s: %v", e.URL, err)
		return
	}
	got, err := os.ReadFile(filepath.Join(mdir, filepath.FromSlash(e.File)))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s: the copy %s differs from what nginx served (%d bytes, want %d; %v)", e.URL, e.File, len(got), len(want), err)
	}
}

// checkDocLinks fails unless every href and src of every page in the
// mirror leads to a file of the mirror (gone: the names of pages the
// server answered 404, which have none), and no link leads back to the
// server at base.
func checkDocLinks(t *testing.T, mdir, base string, gone map[string]bool) {
	t.Helper()
	pages, links, bad := 0, 0, 0
	err := filepath.WalkDir(mdir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !linkname.IsPageName(d.Name()) {
			return err
		}
		rel, _ := filepath.Rel(mdir, filepath.Dir(p))
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		doc, err := html.Parse(f)
		if err != nil {
			return err
		}
		pages++
		for ref := range refs(doc) {
			if strings.HasPrefix(ref, base) {
				t.Errorf("%s: link %q leads to the server, not the mirror", p, ref)
				continue
			}
			u, err := url.Parse(ref)
			if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" {
				continue // another site, or this page
			}
			links++
			to := path.Join(filepath.ToSlash(rel), u.Path)
			if gone[to] {
				continue
			}
			if st, err := os.Stat(filepath.Join(mdir, filepath.FromSlash(to))); err != nil || st.IsDir() {
				if bad++; bad <= 20 {
					t.Errorf("%s: link %q leads to %s, not a file of the mirror", p, ref, to)
				}
			}
		}
		return nil
	})
	if err != nil || pages < 400 {
		t.Fatalf("walked %d pages of the mirror: %v", pages, err)
	}
	if bad > 0 {
		t.Errorf("%d of %d links in %d pages lead nowhere", bad, links, pages)
	}
}

// refs yields every href and src of doc.
func refs(doc *html.Node) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		for n := range doc.Descendants() {
			if n.Type != html.ElementNode {
				continue
			}
			for _, a := range n.Attr {
				if (a.Key == "href" || a.Key == "src") && !yield(a.Val) {
					return
				}
			}
		}
	}
}

var listDate = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\b`)

// agoList moves every date of the list at path back to 2000, in place
// (a date keeps its width), so that every line is due.
func agoList(t *testing.T, p string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "#") {
			lines[i] = listDate.ReplaceAllString(l, "2000-01-01T00:00:00Z")
		}
	}
	if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fileState is what a rewrite of a file would change.
type fileState struct {
	size  int64
	mtime time.Time
	ino   uint64
}

// snapshot returns the state of every file under dir.
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	s := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		s[p] = fileState{size: fi.Size(), mtime: fi.ModTime(), ino: fi.Sys().(*syscall.Stat_t).Ino}
		return nil
	})
	if err != nil || len(s) == 0 {
		t.Fatalf("%d files under %s: %v", len(s), dir, err)
	}
	return s
}
