package htmlurl

import "fmt"

// Kind says how a page refers to a URL.
type Kind uint8

const (
	Page      Kind = iota + 1 // a page to crawl: a[href], area[href], meta refresh, link rel=canonical/alternate/...
	Frame                     // a document shown inside the page: frame[src], iframe[src]
	Requisite                 // a resource the page loads to display: img, script, icon, media, CSS url()
	Style                     // a style sheet the page loads: link rel=stylesheet, CSS @import
	Action                    // where the page sends a form: form[action], button or input [formaction]; never fetched
)

func (k Kind) String() string {
	switch k {
	case Page:
		return "page"
	case Frame:
		return "frame"
	case Requisite:
		return "requisite"
	case Style:
		return "style"
	case Action:
		return "action"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}
