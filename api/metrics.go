package api

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsHandler serves the Prometheus metrics for an operator's own
// listener (AZUL_METRICS_ADDR), which is where they are read: the
// address, not a token, keeps strangers out.
func (s *Server) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{})
}

// publicMetrics is /metrics on the public handler: not served (404, as
// for any unknown route) unless a metrics token is configured, and then
// only to a request that sends it. The metrics tell a stranger how busy
// the server is, its limits' state and its memory: operators' data.
func (s *Server) publicMetrics(c echo.Context) error {
	if s.metricsToken == "" {
		return newProblem(http.StatusNotFound, ProblemNotFound, "no_route")
	}
	token, ok := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.metricsToken)) != 1 {
		return newProblem(http.StatusUnauthorized, ProblemUnauthenticated, "metrics_token")
	}
	s.MetricsHandler().ServeHTTP(c.Response(), c.Request())
	return nil
}
