package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/azuld/azuld/play"
)

// remoteLogged serves one request from peer with the given
// X-Forwarded-For and returns the client address the request log names.
func remoteLogged(t *testing.T, proxies, peer, xff string) string {
	t.Helper()
	trusted, err := ParseTrustedProxies(proxies)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s, err := New(Config{Service: play.New(play.Config{}), Logger: slog.New(slog.NewJSONHandler(&logs, nil)), TrustedProxies: trusted})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	req.RemoteAddr = peer
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	req.Header.Set("X-Real-IP", "203.0.113.66") // never believed
	s.Handler().ServeHTTP(httptest.NewRecorder(), req)
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var rec struct {
			Remote string `json:"remote"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Remote != "" {
			return rec.Remote
		}
	}
	t.Fatalf("no request log line with the client address:\n%s", logs.String())
	return ""
}

// A client cannot choose the address azuld sees by writing a header; a
// trusted proxy can say whom it forwards for.
func TestClientAddressComesOnlyFromTrustedProxies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, proxies, peer, xff, want string
	}{
		{"no proxies: the peer, whatever the headers", "", "198.51.100.9:5000", "192.0.2.1", "198.51.100.9"},
		{"a private peer is not trusted unless named", "", "10.1.2.3:5000", "192.0.2.1", "10.1.2.3"},
		{"an untrusted peer's header is ignored", "10.0.0.0/8", "198.51.100.9:5000", "192.0.2.1", "198.51.100.9"},
		{"a trusted proxy names the client", "10.0.0.0/8", "10.1.2.3:5000", "192.0.2.1", "192.0.2.1"},
		{"a forged entry left of the real one is skipped", "10.0.0.0/8", "10.1.2.3:5000", "6.6.6.6, 192.0.2.1", "192.0.2.1"},
		{"chained trusted proxies are passed over", "10.0.0.0/8, 172.16.0.0/12", "10.1.2.3:5000", "192.0.2.1, 172.16.5.5", "192.0.2.1"},
		{"a single address as a proxy", "10.1.2.3", "10.1.2.3:5000", "192.0.2.1", "192.0.2.1"},
		{"IPv6", "2001:db8::/32", "[2001:db8::1]:5000", "2001:db8:ffff::9, 2a00::7", "2a00::7"},
		{"garbage in the header falls back to the peer", "10.0.0.0/8", "10.1.2.3:5000", "not-an-ip", "10.1.2.3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := remoteLogged(t, c.proxies, c.peer, c.xff); got != c.want {
				t.Errorf("client %q, want %q", got, c.want)
			}
		})
	}
}

func TestParseTrustedProxies(t *testing.T) {
	t.Parallel()
	got, err := ParseTrustedProxies(" 10.0.0.0/8 ,192.0.2.7,, 2001:db8::/32, 10.1.2.3/8")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32", "10.0.0.0/8"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("entry %d: %s, want %s", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "example.org", "10.0.0.0/8; rm -rf"} {
		if _, err := ParseTrustedProxies(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
