package rewrite

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spider-mirror/spider/internal/extract"
)

// awkward is a page whose bytes a re-serialising rewriter would change.
const awkward = "<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\">\r\n" +
	"<HTML><HEAD><TITLE>a <a href=\"t.html\"> &amp; b</TITLE>\n" +
	"<!-- <a href=\"comment.html\"> -->\n" +
	"<SCRIPT type=\"text/javascript\">//<![CDATA[\n var s = '<a href=\"script.html\">' + \"</scr\" + \"ipt>\";\n//]]></SCRIPT>\n" +
	"<style>a[href=\"/style\"] { background: url(bg.png) }</style>\n" +
	"</HEAD><BODY BGCOLOR=#FFFFFF>\n" +
	"<A\tHREF = \"/Upper.html\"\n   CLASS='c'  >upper, odd spacing</A>\n" +
	"<a href=/unquoted.html title=plain>unquoted</a>\n" +
	"<a href='/single.html' title='it\"s'>single quoted</a>\n" +
	"<a href=\"/q?a=1&amp;b=2&copy=3&lt\" data-x=\"&amp;&#x27;&nbsp;\">entities</a>\n" +
	"<a href=\"/first.html\" href=\"/second.html\" HREF=/third.html>duplicates</a>\n" +
	"<a href=\"/q?x=1\" title=\"tab\there\">query becomes a file name</a>\n" +
	"<img src=/i.png alt=\"\"/><br/><p>text &amp; &lt;tags&gt; <b>bold</b>\n" +
	"<textarea><a href=\"textarea.html\"></textarea>\n" +
	"<![CDATA[ <a href=\"cdata.html\"> ]]>\n" +
	"<a href=\"/weird\"<b>\n" +
	"</BODY></HTML>\n"

func TestBytesOutsideLinks(t *testing.T) {
	var calls []call
	out, err := HTML([]byte(awkward), page, "text/html", mirrorTarget(page, &calls, "example.com"))
	if err != nil {
		t.Fatal(err)
	}
	changes, err := diffOutside([]byte(awkward), out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a[href] /Upper.html -> ../Upper.html",
		"a[href] /unquoted.html -> ../unquoted.html",
		"a[href] /single.html -> ../single.html",
		"a[href] /q?a=1&amp;b=2&copy=3&lt -> ../q%3Fa=1&amp;b=2&amp;copy=3%253C.html", // &lt is <, %3C in the URL and the file name
		"a[href] /first.html -> ../first.html",
		"a[href] /q?x=1 -> ../q%3Fx=1.html",
		"img[src] /i.png -> ../i.png",
		"a[href] /weird -> ../weird", // and an attribute named <b
	}
	if got := strings.Join(changes, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("changes:\n%s\nwant:\n%s\noutput:\n%s", got, strings.Join(want, "\n"), out)
	}
	for _, s := range []string{"t.html", "comment.html", "script.html", "/style", "textarea.html", "cdata.html"} {
		if !bytes.Contains(out, []byte(s)) {
			t.Errorf("%s is gone", s)
		}
	}
}

// TestNotOK checks that a target that says no changes nothing, byte for
// byte, not even a <base>.
func TestNotOK(t *testing.T) {
	body := []byte(awkward + "<base href=/b/><a href=x>")
	out, err := HTML(body, page, "", func(string, extract.Kind) (string, bool) { return "", false })
	if err != nil || !bytes.Equal(out, body) {
		t.Errorf("HTML = %q, %v; want the input", out, err)
	}
}

func TestBadBase(t *testing.T) {
	if _, err := HTML([]byte("<a href=x>"), "ftp://example.com/", "", nil); err == nil {
		t.Error("no error for an ftp base")
	}
}

// TestDeepNesting checks a page nested deeper than the parser accepts,
// which extract scans tag by tag: its links are rewritten all the same.
func TestDeepNesting(t *testing.T) {
	body := []byte(strings.Repeat("<div>", 100000) + `<a href="/deep.html">` + strings.Repeat("</div>", 100000))
	var calls []call
	out, err := HTML(body, page, "", mirrorTarget(page, &calls, "example.com"))
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Replace(body, []byte("/deep.html"), []byte("../deep.html"), 1); !bytes.Equal(out, want) {
		t.Errorf("deep link not rewritten")
	}
	if got, want := firstCalls(calls), extracted(t, page, "", body); got != want {
		t.Errorf("target asked about:\n%sextract found:\n%s", got, want)
	}
}
