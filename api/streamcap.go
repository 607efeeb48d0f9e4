package api

import (
	"net/http"
	"net/netip"
	"sync"
)

// Default caps on the live streams one replica keeps open: per client
// address (a player with a few tabs, a household behind one address) and
// in all (each stream holds a goroutine, a subscription and its buffers).
const (
	DefaultStreamsPerClient = 16
	DefaultStreamsTotal     = 4096
)

// Retry-After of a refused stream: a client over its own cap must close
// one first; a full server frees streams as players leave.
const (
	streamsPerClientRetry = 30
	streamsFullRetry      = 10
)

// streamGate counts the open streams of a replica, by client address and
// in all. The counts are per process: a stream is a connection to this
// one, and a proxy that spreads clients over replicas spreads the caps.
type streamGate struct {
	perClient, total int // caps; 0 or less: none

	mu    sync.Mutex
	open  map[string]int
	count int
}

func newStreamGate(perClient, total int) *streamGate {
	return &streamGate{perClient: perClient, total: total, open: map[string]int{}}
}

// enter admits a stream of a client address, or refuses it (429 over the
// client's cap, 503 over the server's); leave must be called when an
// admitted stream ends.
func (g *streamGate) enter(client string) (leave func(), refused *Problem) {
	client = streamClient(client)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.perClient > 0 && g.open[client] >= g.perClient {
		p := newProblem(http.StatusTooManyRequests, ProblemRateLimited, "streams_per_client", "Max", g.perClient)
		p.RetryAfter = streamsPerClientRetry
		return nil, p
	}
	if g.total > 0 && g.count >= g.total {
		p := newProblem(http.StatusServiceUnavailable, ProblemUnavailable, "streams_full")
		p.RetryAfter = streamsFullRetry
		return nil, p
	}
	g.open[client]++
	g.count++
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.count--
			if g.open[client]--; g.open[client] <= 0 {
				delete(g.open, client)
			}
		})
	}, nil
}

// streamClient is the key a client address is counted under: an IPv6
// address by its /64, which one subscriber usually holds whole (as the
// rate limits count it, docs/limits.md).
func streamClient(addr string) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is6() {
		return netip.PrefixFrom(ip, 64).Masked().String()
	}
	return ip.String()
}
