package pgtest

import (
	"bytes"
	"fmt"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy passes TCP connections through to a PostgreSQL server, and can
// cut one at a chosen instant: right after the client's message holding a
// marker has reached the server, and before the server's reply reaches the
// client. The client then cannot know whether its statement committed,
// which is what a fail-over does to a statement in flight.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	marker []byte        // armed cut, nil when none
	cut    chan struct{} // closed once the armed cut happened
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// NewProxy listens on a free loopback port and passes every connection
// to target (host:port).
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("proxy: listen: %w", err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Go(p.accept)
	return p, nil
}

// ProxyFor starts a Proxy in front of dbURL's server for the test, closed
// when it ends, and returns it with dbURL pointed at it.
func ProxyFor(t testing.TB, dbURL string) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatalf("proxy: database URL: %v", err)
	}
	p, err := NewProxy(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	proxied, err := p.URL(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return p, proxied
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL is dbURL with its host and port replaced by the proxy's.
func (p *Proxy) URL(dbURL string) (string, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", fmt.Errorf("proxy: database URL: %w", err)
	}
	u.Host = p.Addr()
	return u.String(), nil
}

// CutAfter arms one cut: the next client message holding marker is
// passed to the server, then the connection is closed on both sides as
// soon as the server starts to answer, the answer dropped. The channel is
// closed once that has happened.
func (p *Proxy) CutAfter(marker []byte) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marker = bytes.Clone(marker)
	p.cut = make(chan struct{})
	return p.cut
}

// Close stops accepting and closes every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		if !p.track(client, server) {
			return
		}
		p.wg.Go(func() { p.pass(client, server) })
	}
}

// track remembers a connection's two sides, unless the proxy is closed.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) forget(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
		delete(p.conns, c)
	}
}

// takeCut disarms the cut if chunk holds its marker, returning the
// channel to close once it is done.
func (p *Proxy) takeCut(chunk []byte) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.marker == nil || !bytes.Contains(chunk, p.marker) {
		return nil
	}
	p.marker = nil
	return p.cut
}

// pass copies both ways until either side closes, or a cut.
func (p *Proxy) pass(client, server net.Conn) {
	defer p.forget(client, server)
	var cutting atomic.Pointer[chan struct{}]
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 32<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 {
				if c := cutting.Load(); c != nil {
					// The server answers the marked message: the
					// client never hears it.
					close(*c)
					_ = client.Close()
					_ = server.Close()
					return
				}
				if _, werr := client.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				_ = client.Close()
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			if c := p.takeCut(buf[:n]); c != nil {
				cutting.Store(&c)
			}
			if _, werr := server.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	_ = server.Close()
	<-done
}
