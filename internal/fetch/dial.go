package fetch

import (
	"errors"
	"net"
	"net/netip"
	"syscall"
)

// ErrRefusedAddr is wrapped by the error for a connection Options.Refuse
// turned down: a link, a redirect or a name that leads into a network the
// crawler must not reach.
var ErrRefusedAddr = errors.New("fetch: address refused")

// dialControl returns a net.Dialer Control that refuses to connect to the
// addresses refuse names. It sees the address actually dialled, after DNS
// and at every redirect hop, so neither a public name resolving to a
// private address nor a redirect into the local network gets through.
// With a proxy, the address dialled is the proxy's.
func dialControl(refuse func(netip.Addr) bool) func(network, address string, c syscall.RawConn) error {
	if refuse == nil {
		return nil
	}
	return func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			host = address
		}
		a, err := netip.ParseAddr(host)
		if err != nil {
			return nil
		}
		if refuse(a.Unmap()) {
			return &limitError{"connection to " + a.String() + " refused", ErrRefusedAddr}
		}
		return nil
	}
}
