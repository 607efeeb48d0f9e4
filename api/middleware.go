package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/mail/reply"
	"github.com/azuld/azuld/redact"
)

// requestIDKey is the context key of the request id.
type requestIDKey struct{}

// RequestID returns the request id carried by ctx ("" if none).
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// validRequestID accepts a client's X-Request-ID only when it is short and
// plain, so ids from outside never mangle logs.
func validRequestID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		ch := id[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_' || ch == '.') {
			return false
		}
	}
	return true
}

// newRequestID is 128 random bits in hex.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// requestID gives every request an id: the client's X-Request-ID when it
// is acceptable, else a new one. The id is echoed in the response header,
// attached to the request context (see WithRequestIDs) and quoted in
// problem responses.
func requestID() echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			id := c.Request().Header.Get(echo.HeaderXRequestID)
			if !validRequestID(id) {
				id = newRequestID()
			}
			c.Response().Header().Set(echo.HeaderXRequestID, id)
			req := c.Request()
			c.SetRequest(req.WithContext(context.WithValue(req.Context(), requestIDKey{}, id)))
			return next(c)
		}
	}
}

// WithRequestIDs wraps a slog handler so that every record logged with a
// request's context carries its request_id, including records logged by
// the packages a handler calls.
func WithRequestIDs(h slog.Handler) slog.Handler { return requestIDHandler{h} }

type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r = r.Clone()
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}

// httpMetrics are the Prometheus series of the HTTP layer.
type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	panics   prometheus.Counter
	streams  prometheus.Gauge
}

func newHTTPMetrics(reg prometheus.Registerer) (*httpMetrics, error) {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "azuld_http_requests_total",
			Help: "HTTP requests by method, route template and status code.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "azuld_http_request_duration_seconds",
			Help:    "HTTP request latency by method and route template (event streams excluded).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"method", "route"}),
		panics: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "azuld_http_panics_total",
			Help: "Handler panics turned into 500 responses (should stay 0).",
		}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "azuld_http_event_streams",
			Help: "Open server-sent event streams.",
		}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency, m.panics, m.streams} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register HTTP metrics: %w", err)
		}
	}
	return m, nil
}

// routeOf is the matched route template, or "unmatched": raw paths would
// let any client create metric series at will.
func routeOf(c echo.Context) string {
	if p, ok := c.Get(routeKey).(string); ok {
		return p
	}
	if p := c.Path(); p != "" {
		return p
	}
	return "unmatched"
}

// statusClientClosed is what the log and the metrics record for a request
// whose client disconnected before the answer (nginx's convention).
const statusClientClosed = 499

// routeKey marks requests the router did not match (404, 405).
const routeKey = "azuld.route"

// streamRoute is excluded from the latency histogram: a stream lasts as
// long as the client watches.
const streamRoute = "/v1/games/:id/stream"

// observe renders errors itself (so the final status is known), then logs
// one line per request and records the metrics.
func (s *Server) observe(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if errors.Is(err, echo.ErrNotFound) || errors.Is(err, echo.ErrMethodNotAllowed) {
			c.Set(routeKey, "unmatched")
		}
		if err != nil {
			c.Error(err)
		}
		res := c.Response()
		req := c.Request()
		route := routeOf(c)
		elapsed := time.Since(start)
		status := res.Status
		if status >= 500 && errors.Is(req.Context().Err(), context.Canceled) {
			// The client went away and its cancelled context failed the
			// handler: not a server error. Counted and logged as nginx's
			// 499 (client closed request), so 5xx alerts stay meaningful.
			status = statusClientClosed
		}
		s.metrics.requests.WithLabelValues(req.Method, route, strconv.Itoa(status)).Inc()
		if route != streamRoute {
			s.metrics.latency.WithLabelValues(req.Method, route).Observe(elapsed.Seconds())
		}
		level := slog.LevelInfo
		switch {
		case status == http.StatusServiceUnavailable:
			// No database answers (a fail-over): every request says
			// so until it is over, and none is a fault of the server's.
			level = slog.LevelWarn
		case status >= 500:
			level = slog.LevelError
		}
		s.log.LogAttrs(req.Context(), level, "request",
			slog.String("method", req.Method),
			slog.String("route", route),
			// The path as routed, its secrets (a sign-in link's token)
			// replaced: a token read from the log would sign in.
			slog.String("path", redact.Path(req.URL.Path, c.Path())),
			slog.Int("status", status),
			slog.Int64("bytes", res.Size),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			slog.String("remote", c.RealIP()),
		)
		return nil
	}
}

// recoverPanics turns a handler panic into a 500 problem and logs the
// stack. No input should ever get here: the fuzz tests check that the
// panic counter stays at zero.
func (s *Server) recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler {
				panic(r)
			}
			stack := make([]byte, 8<<10)
			stack = stack[:runtime.Stack(stack, false)]
			s.metrics.panics.Inc()
			s.log.ErrorContext(c.Request().Context(), "handler panic",
				"panic", fmt.Sprint(r), "stack", string(stack))
			err = errors.New("handler panic")
		}()
		return next(c)
	}
}

// bodyLimitOf is the body limit of a route.
func (s *Server) bodyLimitOf(c echo.Context) int64 {
	switch c.Path() {
	case inboundPath:
		return max(s.bodyLimit, reply.MaxSize)
	case "/v1/games/import":
		// An exported game is larger than any other request.
		return max(s.bodyLimit, DefaultImportLimit)
	}
	return s.bodyLimit
}

// limitBody refuses bodies over the limit: at once when Content-Length
// says so, else when reading passes it (see readBody).
func (s *Server) limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		limit := s.bodyLimitOf(c)
		if req.ContentLength > limit {
			return newProblem(http.StatusRequestEntityTooLarge, ProblemPayloadTooLarge,
				"body_size", "Size", num(req.ContentLength), "Limit", num(limit))
		}
		if req.Body != nil {
			req.Body = http.MaxBytesReader(c.Response(), req.Body, limit)
		}
		return next(c)
	}
}
