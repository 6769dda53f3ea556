package crawl

import (
	"testing"

	"github.com/spider-mirror/spider/internal/extract"
	"github.com/spider-mirror/spider/list"
)

func TestLinkLevel(t *testing.T) {
	for _, tt := range []struct {
		level int
		kind  extract.Kind
		want  int
	}{
		{0, extract.Page, 1},
		{3, extract.Page, 4},
		{3, extract.Requisite, 3},
		{3, extract.Frame, 3},
		{list.MaxLevel, extract.Page, list.MaxLevel},
	} {
		if got := linkLevel(tt.level, tt.kind); got != tt.want {
			t.Errorf("linkLevel(%d, %v) = %d, want %d", tt.level, tt.kind, got, tt.want)
		}
	}
}
