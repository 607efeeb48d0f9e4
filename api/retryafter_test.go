package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// TestEvery503SaysWhenToRetry: a 503 carries Retry-After (and a problem
// its retry_after), whoever writes it: a request that ran out of time
// while the primary fails over, a route switched off, a page rendered
// with 503; a 503 with its own Retry-After keeps it.
func TestEvery503SaysWhenToRetry(t *testing.T) {
	t.Parallel()
	env := newTestEnvAt(t, pg.ServerRoleURL(t, pg.NewDatabase(t)), 0, func(c *setup) { c.app.DatabaseURL = "" })
	ana := env.register(t, "Ana")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}}})
	// Handlers as the pages and a timed-out command end.
	env.srv.echo.GET("/test/timed-out", func(echo.Context) error { return fmt.Errorf("move: %w", context.DeadlineExceeded) })
	env.srv.echo.GET("/test/page", func(c echo.Context) error { return c.HTML(http.StatusServiceUnavailable, "<p>try later</p>") })
	env.srv.echo.GET("/test/own", func(c echo.Context) error {
		c.Response().Header().Set("Retry-After", "86400")
		return c.HTML(http.StatusServiceUnavailable, "<p>tomorrow</p>")
	})
	want := strconv.Itoa(events.RetryAfterSeconds)
	for path, retry := range map[string]string{
		"/test/timed-out":               want,
		"/v1/games/" + g.ID + "/stream": want,
		"/test/page":                    want,
		"/test/own":                     "86400",
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+ana.token)
		env.srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != retry {
			t.Errorf("%s: %d, Retry-After %q, want 503 with %q", path, rec.Code, rec.Header().Get("Retry-After"), retry)
		}
		if rec.Header().Get("Content-Type") == "application/problem+json" {
			var p Problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || strconv.Itoa(p.RetryAfter) != retry {
				t.Errorf("%s: problem %s (%v) does not repeat the Retry-After", path, rec.Body, err)
			}
		}
	}
}
