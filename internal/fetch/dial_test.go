package fetch

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"testing"
	"time"
)

// Refuse turns down connections by the address dialled: the first hop,
// and a redirect into a refused network.
func TestRefuse(t *testing.T) {
	ok := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hi")) }))
	redir := serve(t, http.RedirectHandler("http://10.255.255.1/x", http.StatusFound))
	refuse := func(a netip.Addr) bool { return a.IsPrivate() } // loopback allowed, 10/8 not
	c := New(Options{Timeout: 5 * time.Second, Refuse: refuse})
	if _, err := c.Get(context.Background(), ok+"/", nil); err != nil {
		t.Fatalf("allowed address: %v", err)
	}
	start := time.Now()
	_, err := c.Get(context.Background(), redir+"/", nil)
	if !errors.Is(err, ErrRefusedAddr) || Transient(err) || Gone(err) {
		t.Errorf("redirect to 10.255.255.1: err %v (transient %v), want ErrRefusedAddr, permanent", err, Transient(err))
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusal took %v: it must not wait for a connect timeout", d)
	}
	strict := New(Options{Refuse: func(a netip.Addr) bool { return a.IsLoopback() }})
	if _, err := strict.Get(context.Background(), ok+"/", nil); !errors.Is(err, ErrRefusedAddr) {
		t.Errorf("loopback refused: err %v, want ErrRefusedAddr", err)
	}
}
