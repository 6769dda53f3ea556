package rewrite

import "html"

// Forward returns a small HTML page that leads a browser at once to ref, a
// reference as Rel makes it: the file a link guessed for a URL, when the
// URL's copy was written under another name (a download served from a name
// without an extension, /bin/report as application/pdf). It works from
// disk (file://) without scripts: a meta refresh, and a link for a browser
// that does not follow one.
func Forward(ref string) []byte {
	r := html.EscapeString(ref)
	return []byte(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=` + r + `">
<title>Moved</title></head>
<body><p>This copy is at <a href="` + r + `">` + r + `</a>.</p></body></html>
`)
}
