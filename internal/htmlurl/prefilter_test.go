package htmlurl

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
		if got := MayHoldTag([]byte(body), "base"); got != want {
			t.Errorf("MayHoldTag(%q) = %v, want %v", body, got, want)
		}
	}
}

func TestMayHaveStyle(t *testing.T) {
	for raw, want := range map[string]bool{
		`<div style="x">`:        true,
		`<div STYLE=x>`:          true,
		`<a href="/style.css">`:  true, // a false "maybe" only costs a look at the attributes
		`<div class="styl e">`:   false,
		`<img src=a.png alt=st>`: false,
	} {
		if got := MayHaveStyle([]byte(raw)); got != want {
			t.Errorf("MayHaveStyle(%q) = %v, want %v", raw, got, want)
		}
	}
}
