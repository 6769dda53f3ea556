package rewrite

import "testing"

func TestMayHoldTag(t *testing.T) {
	for body, want := range map[string]bool{
		`<base href=/>`:           true,
		`<p><BaSe href=/>`:        true,
		`x <base`:                 true,
		`<a href=base>base</a>`:   false,
		`< base href=/>`:          false, // not a tag for the tokenizer either
		`<bas`:                    false,
		`<basefont><p>`:           true, // a false "maybe" only costs a pass
		`<!-- no tags at all -->`: false,
	} {
		if got := mayHoldTag([]byte(body), "base"); got != want {
			t.Errorf("mayHoldTag(%q) = %v, want %v", body, got, want)
		}
	}
}
