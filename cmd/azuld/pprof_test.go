package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// TestPprofOnLoopbackOnly: the profiles are served on a loopback address
// and refused anywhere else, before anything listens.
func TestPprofOnLoopbackOnly(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "192.0.2.1:6060", "example.org:6060", "nonsense"} {
		if ln, err := listenPprof(addr); err == nil {
			_ = ln.Close()
			t.Errorf("%s: accepted, want refused", addr)
		}
	}
	ln, err := listenPprof("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { servePprof(ctx, ln, slog.New(slog.DiscardHandler)); close(done) }()
	defer func() { cancel(); <-done }()
	resp, err := http.Get("http://" + ln.Addr().String() + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "goroutine profile") {
		t.Fatalf("status %d: %.200s", resp.StatusCode, body)
	}
}
