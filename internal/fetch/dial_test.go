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

// MinRate cuts a trickling body once the grace has passed, well before
// the overall timeout; the error is transient.
func TestMinRate(t *testing.T) {
	base := serve(t, http.HandlerFunc(trickle)) // 10 bytes/s
	c := New(Options{Timeout: 10 * time.Second, MinRate: 100})
	c.rateGrace = 300 * time.Millisecond
	start := time.Now()
	_, err := c.Get(context.Background(), base+"/", nil)
	if !errors.Is(err, ErrTooSlow) || !Transient(err) {
		t.Errorf("err %v (transient %v), want ErrTooSlow, transient", err, Transient(err))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cut after %v, want soon after the 300ms grace", d)
	}
	fast := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, 1<<16)) }))
	if _, err := c.Get(context.Background(), fast+"/", nil); err != nil {
		t.Errorf("a fast body: %v", err)
	}
}
