package api

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/play"
)

// TestMetricsNotPublic: by default the public handler does not serve
// /metrics (404, like any unknown route), which the operator's own
// handler (AZUL_METRICS_ADDR) does; with a metrics token the public
// handler serves it to that bearer token alone.
func TestMetricsNotPublic(t *testing.T) {
	t.Parallel()
	get := func(h http.Handler, auth string) *httptest.ResponseRecorder {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		rec, _ := do(t, h, req)
		return rec
	}
	s, err := New(Config{Service: play.New(play.Config{}), Metrics: prometheus.NewRegistry()})
	if err != nil {
		t.Fatal(err)
	}
	if rec := get(s.Handler(), ""); rec.Code != http.StatusNotFound || strings.Contains(rec.Body.String(), "azuld_") {
		t.Fatalf("public /metrics without a token configured: %d\n%s", rec.Code, rec.Body)
	}
	if rec := get(s.MetricsHandler(), ""); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "azuld_http_requests_total") {
		t.Fatalf("the operator's /metrics: %d\n%s", rec.Code, rec.Body)
	}

	token := "metrics-" + strings.Repeat("s", 24)
	s, err = New(Config{Service: play.New(play.Config{}), Metrics: prometheus.NewRegistry(), MetricsToken: token})
	if err != nil {
		t.Fatal(err)
	}
	for _, auth := range []string{"", "Bearer wrong", "Bearer " + token + "x", "Basic " + token, token} {
		if rec := get(s.Handler(), auth); rec.Code != http.StatusUnauthorized || strings.Contains(rec.Body.String(), "azuld_") {
			t.Errorf("public /metrics with %q: %d", auth, rec.Code)
		}
	}
	if rec := get(s.Handler(), "Bearer "+token); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "azuld_http_requests_total") {
		t.Fatalf("public /metrics with the token: %d\n%s", rec.Code, rec.Body)
	}
}
