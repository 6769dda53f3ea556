package mirrorindex

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spider-mirror/spider/internal/rewrite"
	"golang.org/x/net/html"
)

// templateRows is how the rows of recent.html and archive.html were made
// before pageCell: html/template, whose contextual escaping the hand-made
// rows must match.
var templateRows = template.Must(template.New("").Funcs(funcs).Parse(`{{define "recent"}}{{range .}}<tr{{if eq .Kind "archived"}} class="archived"{{end}}><td>{{when .Time}}</td><td>{{.Kind}}</td><td>{{if .File}}<a href="{{href .File}}">{{.File}}</a>{{else}}(copy removed){{end}}<br><span class="url">{{.URL}}</span></td></tr>
{{end}}{{end}}
{{define "archive"}}{{range .}}<tr class="archived"><td>{{when .Time}}</td><td>{{if .File}}<a href="{{href .File}}">{{.File}}</a>{{else}}(copy removed){{end}}<br><span class="url">{{.URL}}</span></td></tr>
{{end}}{{end}}`))

// hostileEvents are events whose URLs and files hold what must be escaped.
func hostileEvents() []Event {
	at := time.Date(2026, 11, 24, 1, 2, 3, 0, time.UTC)
	urls := []string{
		"http://h/a",
		`http://h/"><script>alert(1)</script>`,
		"http://h/a?b=1&c=<2>",
		"http://h/статья 'q'",
		"javascript:alert(1)",
	}
	files := []string{
		"h/a.html",
		`h/"><img src=x onerror=alert(1)>.html`,
		"h/a?b=1&c=<2>.html",
		"h/статья 'q'.html",
		"javascript:alert(1)",
		"h/x&amp;y&lt;z&#58;.html",
		"", // copy removed
	}
	var evs []Event
	for i, u := range urls {
		for j, f := range files {
			kind := []string{New, Changed, Archived, Restored}[(i+j)%4]
			evs = append(evs, Event{Time: at.Add(time.Duration(i*10+j) * time.Minute), Kind: kind, URL: u, Host: "h", File: f, Page: true})
		}
	}
	return evs
}

// The hand-made rows parse to the same elements, attributes and text as
// the template's, whatever the URLs and file names hold.
func TestRowsMatchTemplate(t *testing.T) {
	evs := hostileEvents()
	now := evs[len(evs)-1].Time
	var want bytes.Buffer
	recent := slices.Clone(evs)
	slices.Reverse(recent) // newest first, as renderRecent orders them
	if err := templateRows.ExecuteTemplate(&want, "recent", recent); err != nil {
		t.Fatal(err)
	}
	got := renderRecent(evs, now)
	if g, w := tokens(t, tableOf(t, got)), tokens(t, want.String()); !slices.Equal(g, w) {
		t.Errorf("recent.html rows differ from the template's:\n got %q\nwant %q", g, w)
	}

	st := &State{Hosts: map[string]*Host{}}
	for _, ev := range evs {
		st.Archived = append(st.Archived, ArchivedPage{URL: ev.URL, File: ev.File, Time: ev.Time})
	}
	want.Reset()
	if err := templateRows.ExecuteTemplate(&want, "archive", st.Archived); err != nil {
		t.Fatal(err)
	}
	got = renderArchive(st, now)
	if g, w := tokens(t, tableOf(t, got)), tokens(t, want.String()); !slices.Equal(g, w) {
		t.Errorf("archive.html rows differ from the template's:\n got %q\nwant %q", g, w)
	}
	if bytes.Contains(got, []byte("<script")) || bytes.Contains(got, []byte("<img")) {
		t.Errorf("a URL or file name came out as markup:\n%s", got)
	}
	// tokens compares links percent-decoded; each must also be exactly
	// the escaped rewrite.Rel path, as every link in the mirror is.
	for _, ev := range evs {
		if ev.File == "" {
			continue
		}
		a := `<a href="` + html.EscapeString(rewrite.Rel(IndexPage, ev.File)) + `">`
		if !bytes.Contains(got, []byte(a)) {
			t.Errorf("archive.html has no %s", a)
		}
	}
}

// tableOf returns the rows of the page's table: what follows its header
// row up to </table>.
func tableOf(t *testing.T, page []byte) string {
	t.Helper()
	_, rest, ok := strings.Cut(string(page), "</th></tr>\n")
	rows, _, ok2 := strings.Cut(rest, "</table>")
	if !ok || !ok2 {
		t.Fatalf("no table in\n%s", page)
	}
	return rows
}

// tokens returns the HTML tokens of s as a browser reads them: tags with
// their attributes' values unescaped, and text unescaped. An href is
// percent-decoded too: the template also escaped '(', ')' and the apostrophe in
// links, where pageCell leaves them as rewrite.Rel wrote them (as every
// link in the mirror has them); a browser opens the same file for both.
func tokens(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if z.Err() != io.EOF {
				t.Fatal(z.Err())
			}
			return out
		}
		tok := z.Token()
		for i, a := range tok.Attr {
			if a.Key == "href" {
				p, err := url.PathUnescape(a.Val)
				if err != nil {
					t.Fatalf("href %q: %v", a.Val, err)
				}
				tok.Attr[i].Val = p
			}
		}
		switch tok.Type {
		case html.TextToken:
			out = append(out, "text "+tok.Data)
		default:
			out = append(out, fmt.Sprintf("%v %s %q", tok.Type, tok.Data, tok.Attr))
		}
	}
}

// BenchmarkRenderRecent renders recent.html at its full MaxRecent rows, as
// a busy mirror's every publish does.
func BenchmarkRenderRecent(b *testing.B) {
	at := time.Date(2026, 11, 24, 1, 2, 3, 0, time.UTC)
	evs := make([]Event, MaxRecent)
	for i := range evs {
		u := fmt.Sprintf("http://127.0.0.1:8080/topic/%d-some-title-words", i)
		evs[i] = Event{Time: at.Add(time.Duration(i) * time.Second), Kind: New, URL: u, Host: "127.0.0.1:8080",
			File: fmt.Sprintf("127.0.0.1:8080/topic/%d-some-title-words.html", i), Page: true}
	}
	now := evs[len(evs)-1].Time
	for b.Loop() {
		renderRecent(evs, now)
	}
}
