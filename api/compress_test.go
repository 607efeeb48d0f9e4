package api

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/play"
)

// gunzip decompresses a body, failing the test if it is not gzip.
func gunzip(t *testing.T, what string, body []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("%s: not gzip: %v", what, err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return out
}

// Text answers are gzipped for a client that accepts it, and the same
// when decompressed; a client that does not gets them plain. The event
// stream is never compressed, so every message arrives as it is sent;
// /metrics is compressed once.
func TestCompression(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	g := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: "me"}}})
	anon := env.anonymous(t)

	// A client that sets Accept-Encoding itself gets the raw encoding
	// (net/http decompresses only what it asked for on its own).
	gz := header{"Accept-Encoding", "gzip"}
	// "identity" rather than none: without a header net/http's
	// transport asks for gzip itself.
	plain := header{"Accept-Encoding", "identity"}
	for _, path := range []string{"/", "/signin", "/games/" + g.ID, "/static/table.js", "/static/style.css", "/v1/games/" + g.ID, "/openapi.json", "/watch-nothing"} {
		zipped := ana.call(http.MethodGet, path, nil, gz)
		raw := ana.call(http.MethodGet, path, nil, plain)
		if zipped.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("%s: Content-Encoding %q, want gzip (%d bytes)", path, zipped.Header.Get("Content-Encoding"), len(raw.Body))
			continue
		}
		if !strings.Contains(strings.Join(zipped.Header.Values("Vary"), ","), "Accept-Encoding") {
			t.Errorf("%s: Vary %q lacks Accept-Encoding", path, zipped.Header.Values("Vary"))
		}
		if raw.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s: compressed for a client that takes identity only", path)
		}
		if len(zipped.Body) >= len(raw.Body) {
			t.Errorf("%s: %d bytes compressed, %d plain", path, len(zipped.Body), len(raw.Body))
		}
		// Pages carry a new CSRF token each time; the rest must match.
		if body := gunzip(t, path, zipped.Body); !strings.HasPrefix(path, "/static/") || !bytes.Equal(body, raw.Body) {
			if strings.HasPrefix(path, "/static/") || len(body) < len(raw.Body)/2 {
				t.Errorf("%s: the decompressed body differs from the plain one", path)
			}
		}
	}
	// A small answer is not worth it.
	if res := anon.call(http.MethodGet, "/healthz", nil, gz); res.Header.Get("Content-Encoding") != "" {
		t.Errorf("/healthz (%d bytes) compressed", len(res.Body))
	}
	// /metrics, served on the public port to its token, is compressed
	// once: the Prometheus handler compresses it itself.
	token := "metrics-" + strings.Repeat("z", 24)
	ms, err := New(Config{Service: play.New(play.Config{}), Metrics: prometheus.NewRegistry(), MetricsToken: token})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("Authorization", "Bearer "+token)
	metrics, _ := do(t, ms.Handler(), req)
	if metrics.Code != http.StatusOK || metrics.Header().Get("Content-Encoding") != "gzip" {
		t.Errorf("/metrics: %d, Content-Encoding %q", metrics.Code, metrics.Header().Get("Content-Encoding"))
	} else if text := gunzip(t, "/metrics", metrics.Body.Bytes()); !bytes.Contains(text, []byte("# HELP")) {
		t.Errorf("/metrics is compressed more than once: %q…", text[:min(len(text), 40)])
	}

	// The stream, asked for with gzip accepted, is plain and streams: its
	// first message arrives while the connection stays open.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err = http.NewRequestWithContext(ctx, http.MethodGet, env.http.URL+"/v1/games/"+g.ID+"/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := env.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.Header.Get("Content-Encoding") != "" || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %s, Content-Encoding %q", res.Header.Get("Content-Type"), res.Header.Get("Content-Encoding"))
	}
	s := &sseReader{res: res, r: bufio.NewReader(res.Body)}
	if m := s.nextData(t); m.event != "state" {
		t.Fatalf("the stream's first message is %+v", m)
	}
}
