package api

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/play"
)

// do serves one request and decodes a problem body when there is one.
func do(t *testing.T, h http.Handler, req *http.Request) (*httptest.ResponseRecorder, *Problem) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Header().Get(echo.HeaderContentType) != "application/problem+json" {
		return rec, nil
	}
	var p Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil {
		t.Fatalf("problem body %q: %v", rec.Body.String(), err)
	}
	return rec, &p
}

func TestRouterErrorsAreProblems(t *testing.T) {
	t.Parallel()
	s := newRouteOnlyServer(t)
	rec, p := do(t, s.Handler(), httptest.NewRequest(http.MethodGet, "/v1/nowhere", nil))
	if rec.Code != http.StatusNotFound || p == nil || p.Type != ProblemNotFound || p.Status != 404 {
		t.Fatalf("404: %d %+v", rec.Code, p)
	}
	// Outside the API, an address that leads nowhere is a page's.
	if rec, _ := do(t, s.Handler(), httptest.NewRequest(http.MethodGet, "/nowhere", nil)); rec.Code != http.StatusNotFound ||
		!strings.HasPrefix(rec.Header().Get(echo.HeaderContentType), "text/html") {
		t.Fatalf("page 404: %d %s", rec.Code, rec.Header().Get(echo.HeaderContentType))
	}
	rec, p = do(t, s.Handler(), httptest.NewRequest(http.MethodDelete, "/v1/players", nil))
	if rec.Code != http.StatusMethodNotAllowed || p == nil || p.Type != ProblemMethodNotAllowed {
		t.Fatalf("405: %d %+v", rec.Code, p)
	}
	if allow := rec.Header().Get("Allow"); !strings.Contains(allow, http.MethodPost) {
		t.Errorf("405 without Allow header: %q", allow)
	}
	if p.RequestID == "" || p.RequestID != rec.Header().Get(echo.HeaderXRequestID) {
		t.Errorf("problem request id %q, header %q", p.RequestID, rec.Header().Get(echo.HeaderXRequestID))
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	svc := play.New(play.Config{})
	s, err := New(Config{Service: svc, BodyLimit: 100})
	if err != nil {
		t.Fatal(err)
	}
	body := `{"name":"` + strings.Repeat("a", 200) + `"}`
	// Content-Length says too much: refused before reading.
	rec, p := do(t, s.Handler(), httptest.NewRequest(http.MethodPost, "/v1/players", strings.NewReader(body)))
	if rec.Code != http.StatusRequestEntityTooLarge || p == nil || p.Type != ProblemPayloadTooLarge {
		t.Fatalf("declared length: %d %+v", rec.Code, p)
	}
	// No Content-Length (chunked): refused while reading.
	req := httptest.NewRequest(http.MethodPost, "/v1/players", struct{ *strings.Reader }{strings.NewReader(body)})
	req.ContentLength = -1
	rec, p = do(t, s.Handler(), req)
	if rec.Code != http.StatusRequestEntityTooLarge || p == nil || p.Type != ProblemPayloadTooLarge {
		t.Fatalf("streamed body: %d %+v", rec.Code, p)
	}
}

func TestRequestIDKeptOrReplaced(t *testing.T) {
	t.Parallel()
	s := newRouteOnlyServer(t)
	req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	req.Header.Set(echo.HeaderXRequestID, "client-id-1")
	rec, _ := do(t, s.Handler(), req)
	if got := rec.Header().Get(echo.HeaderXRequestID); got != "client-id-1" {
		t.Errorf("a plain client id must be kept, got %q", got)
	}
	req = httptest.NewRequest(http.MethodGet, "/healthz", nil)
	req.Header.Set(echo.HeaderXRequestID, "evil\"id with spaces")
	rec, _ = do(t, s.Handler(), req)
	if got := rec.Header().Get(echo.HeaderXRequestID); !validRequestID(got) || strings.Contains(got, "evil") {
		t.Errorf("an unsafe client id must be replaced, got %q", got)
	}
}

func TestRequestLogCarriesRequestID(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(WithRequestIDs(slog.NewJSONHandler(&buf, nil)))
	s, err := New(Config{Service: play.New(play.Config{}), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
	req.Header.Set(echo.HeaderXRequestID, "trace-me")
	do(t, s.Handler(), req)
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &line); err != nil {
		t.Fatalf("log is not one JSON line: %q", buf.String())
	}
	if line["request_id"] != "trace-me" || line["route"] != "/healthz" || line["status"] != float64(200) {
		t.Errorf("log line %v", line)
	}
}

func TestClientGoneIsNotAServerError(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	reg := prometheus.NewRegistry()
	s, err := New(Config{Service: play.New(play.Config{}), Metrics: reg, Logger: slog.New(slog.NewJSONHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.echo.GET("/slow", func(c echo.Context) error { return c.Request().Context().Err() })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	do(t, s.Handler(), httptest.NewRequest(http.MethodGet, "/slow", nil).WithContext(ctx))
	var line map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &line); err != nil {
		t.Fatalf("log is not one JSON line: %q", buf.String())
	}
	if line["level"] != "INFO" || line["status"] != float64(499) {
		t.Errorf("a request whose client went away is logged %v", line)
	}
	if n := counterValue(t, reg, "azuld_http_requests_total", map[string]string{"route": "/slow", "status": "499"}); n != 1 {
		t.Errorf("request counter for 499: %v", n)
	}
}

func TestPanicBecomesProblemAndIsCounted(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	s, err := New(Config{Service: play.New(play.Config{}), Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	s.echo.GET("/v1/boom", func(echo.Context) error { panic("boom") })
	rec, p := do(t, s.Handler(), httptest.NewRequest(http.MethodGet, "/v1/boom", nil))
	if rec.Code != http.StatusInternalServerError || p == nil || p.Type != ProblemInternal {
		t.Fatalf("panic: %d %+v", rec.Code, p)
	}
	if n := counterValue(t, reg, "azuld_http_panics_total", nil); n != 1 {
		t.Errorf("panic counter %v", n)
	}
	if n := counterValue(t, reg, "azuld_http_requests_total", map[string]string{"route": "/v1/boom", "status": "500"}); n != 1 {
		t.Errorf("request counter %v", n)
	}
}

func TestOperationalEndpoints(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	s, err := New(Config{Service: play.New(play.Config{}), Metrics: reg, Version: "v9"})
	if err != nil {
		t.Fatal(err)
	}
	rec, _ := do(t, s.Handler(), httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"v9"`) {
		t.Errorf("healthz: %d %s", rec.Code, rec.Body)
	}
	rec, _ = do(t, s.Handler(), httptest.NewRequest(http.MethodGet, "/readyz", nil))
	if rec.Code != 200 {
		t.Errorf("readyz without a pool: %d", rec.Code)
	}
	rec, _ = do(t, s.Handler(), httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), OpenAPI()) {
		t.Errorf("openapi.json: %d", rec.Code)
	}
	rec, _ = do(t, s.MetricsHandler(), httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `azuld_http_requests_total{method="GET",route="/healthz",status="200"} 1`) {
		t.Errorf("metrics: %d\n%s", rec.Code, rec.Body)
	}
	// A second server on the same registry cannot register the same series.
	if _, err := New(Config{Service: play.New(play.Config{}), Metrics: reg}); err == nil {
		t.Error("registering twice must fail")
	}
}

func TestStreamWithoutListenerIsUnavailable(t *testing.T) {
	t.Parallel()
	s := newRouteOnlyServer(t)
	rec, p := do(t, s.Handler(), httptest.NewRequest(http.MethodGet, "/v1/games/0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f/stream", nil))
	if rec.Code != http.StatusServiceUnavailable || p == nil || p.Type != ProblemUnavailable {
		t.Fatalf("%d %+v", rec.Code, p)
	}
}

// counterValue sums the counter series of a family whose labels include
// the given ones.
func counterValue(t *testing.T, g prometheus.Gatherer, name string, labels map[string]string) float64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if have[k] != v {
					continue metrics
				}
			}
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}
