package api

import (
	"context"
	"net/http"
	"net/netip"
	"testing"

	"github.com/azuld/azuld/play"
)

// TestStreamCaps: a client address may keep StreamsPerClient streams
// open and the server StreamsTotal; over either the stream is refused at
// once (429, 503) with Retry-After, and a stream closed frees its place.
// The address is the server's idea of the client: X-Forwarded-For counts
// only from a trusted proxy.
func TestStreamCaps(t *testing.T) {
	t.Parallel()
	url := pg.ServerRoleURL(t, pg.NewDatabase(t))
	env := newTestEnvAt(t, url, 0, func(c *setup) {
		c.api.StreamsPerClient, c.api.StreamsTotal = 2, 3
		c.api.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	ana := env.register(t, "Ana")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}}})

	open := func(client string) (*http.Response, context.CancelFunc) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.http.URL+"/v1/games/"+g.ID+"/stream", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Forwarded-For", client)
		res, err := env.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cancel(); res.Body.Close() })
		return res, cancel
	}
	refused := func(res *http.Response, status int) {
		t.Helper()
		if res.StatusCode != status || res.Header.Get("Retry-After") == "" || res.Header.Get("Content-Type") != "application/problem+json" {
			t.Fatalf("over the cap: %d, Retry-After %q, %s; want %d with Retry-After", res.StatusCode, res.Header.Get("Retry-After"), res.Header.Get("Content-Type"), status)
		}
	}
	a1, closeA1 := open("203.0.113.1")
	if a1.StatusCode != http.StatusOK {
		t.Fatalf("first stream: %d", a1.StatusCode)
	}
	if res, _ := open("203.0.113.1"); res.StatusCode != http.StatusOK {
		t.Fatalf("second stream: %d", res.StatusCode)
	}
	res, _ := open("203.0.113.1")
	refused(res, http.StatusTooManyRequests)
	if res, _ := open("203.0.113.2"); res.StatusCode != http.StatusOK {
		t.Fatalf("another client's stream: %d", res.StatusCode)
	}
	res, _ = open("203.0.113.3")
	refused(res, http.StatusServiceUnavailable)
	if got := streamClient("2001:db8:1:2:3::9"); got != streamClient("2001:db8:1:2:ffff::1") || got == streamClient("2001:db8:1:3::1") {
		t.Fatalf("IPv6 addresses are not counted by their /64: %s", got)
	}

	// One closes: its place is free again (once the server saw it go).
	closeA1()
	a1.Body.Close()
	waitFor(t, "the closed stream's place", func() bool {
		res, _ := open("203.0.113.1")
		return res.StatusCode == http.StatusOK
	})
}

// TestStreamCapsIgnoreUntrustedForwarding: without trusted proxies a
// forged X-Forwarded-For does not make one client many.
func TestStreamCapsIgnoreUntrustedForwarding(t *testing.T) {
	t.Parallel()
	env := newTestEnvAt(t, pg.ServerRoleURL(t, pg.NewDatabase(t)), 0, func(c *setup) { c.api.StreamsPerClient = 2 })
	ana := env.register(t, "Ana")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}}})
	var last int
	for _, forged := range []string{"198.51.100.1", "198.51.100.2", "198.51.100.3"} {
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, env.http.URL+"/v1/games/"+g.ID+"/stream", nil)
		req.Header.Set("X-Forwarded-For", forged)
		res, err := env.http.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cancel(); res.Body.Close() })
		last = res.StatusCode
	}
	if last != http.StatusTooManyRequests {
		t.Fatalf("the third stream of one client with forged addresses: %d, want 429", last)
	}
}
