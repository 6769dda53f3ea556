package htmlurl

import "testing"

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{0: "Kind(0)", Page: "page", Frame: "frame", Requisite: "requisite", Style: "style", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", k, got, want)
		}
	}
}
