package writer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"testing"
)

func TestWireRoundTrip(t *testing.T) {
	files := []File{{Rel: "a/b.html", Data: []byte("<p>x</p>")}, {Rel: "c", Data: nil}, {Rel: "big", Data: bytes.Repeat([]byte("z"), 100<<10)}}
	r := bufio.NewReader(bytes.NewReader(appendGroup(appendGroup(nil, files), files[:1])))
	for _, want := range [][]File{files, files[:1]} {
		got, err := readGroup(r)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i].Rel != want[i].Rel || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Fatalf("file %d: %q, want %q", i, got[i].Rel, want[i].Rel)
			}
		}
	}
	if _, err := readGroup(r); err != io.EOF {
		t.Fatalf("after the last group: %v, want io.EOF", err)
	}
	errs := []error{nil, errors.New("disk full"), nil, fmt.Errorf("mirror: write a: %w", fs.ErrExist), fmt.Errorf("x: %w", errors.ErrUnsupported)}
	got, err := readReply(bufio.NewReader(bytes.NewReader(appendReply(nil, errs))), len(errs))
	if err != nil || got[0] != nil || got[2] != nil || got[1] == nil || got[1].Error() != "disk full" || errors.Is(got[1], errYours) ||
		!errors.Is(got[3], errYours) || !errors.Is(got[4], errYours) {
		t.Fatalf("reply: %v, %v", got, err)
	}
	if _, err := readReply(bufio.NewReader(bytes.NewReader(appendReply(nil, errs))), 2); err == nil {
		t.Fatal("a reply for 5 files was taken for 2")
	}
	if _, err := readReply(bufio.NewReader(bytes.NewReader([]byte{1, 7, 0})), 1); err == nil {
		t.Fatal("an unknown answer code was taken")
	}
}

func TestWireMalformed(t *testing.T) {
	for name, b := range map[string][]byte{
		"truncated count": {0x80},
		"truncated name":  {1, 5, 'a'},
		"truncated data":  {1, 1, 'a', 10, 'x'},
		"huge group":      {0xff, 0xff, 0xff, 0xff, 0x0f},
		"huge name":       {1, 0xff, 0xff, 0xff, 0x0f},
		"huge data, cut":  {1, 1, 'a', 0xff, 0xff, 0xff, 0x07, 'x'},
	} {
		_, err := readGroup(bufio.NewReader(bytes.NewReader(b)))
		if err == nil || err == io.EOF {
			t.Errorf("%s: %v, want an error", name, err)
		}
	}
}

// FuzzReadGroup: whatever the stream, readGroup returns files or an error,
// never panics, and what it returns encodes back to what it read.
func FuzzReadGroup(f *testing.F) {
	f.Add(appendGroup(nil, []File{{Rel: "a.html", Data: []byte("x")}}))
	f.Add([]byte{0})
	f.Add([]byte{1, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		files, err := readGroup(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			return
		}
		again, err := readGroup(bufio.NewReader(bytes.NewReader(appendGroup(nil, files))))
		if err != nil || len(again) != len(files) {
			t.Fatalf("re-read: %d files, %v; want %d", len(again), err, len(files))
		}
		for i := range files {
			if files[i].Rel != again[i].Rel || !bytes.Equal(files[i].Data, again[i].Data) {
				t.Fatalf("file %d differs after a round trip", i)
			}
		}
	})
}

// FuzzReadReply: whatever the stream, readReply returns answers or an
// error and never panics.
func FuzzReadReply(f *testing.F) {
	f.Add(appendReply(nil, []error{nil, errors.New("x"), fs.ErrExist}), 3)
	f.Add([]byte{1, 3, 0}, 1)
	f.Fuzz(func(t *testing.T, b []byte, want int) {
		if want < 0 || want > 1<<16 {
			return
		}
		errs, err := readReply(bufio.NewReader(bytes.NewReader(b)), want)
		if err == nil && len(errs) != want {
			t.Fatalf("%d answers for %d", len(errs), want)
		}
	})
}
