package api

import (
	_ "embed"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// openAPIDocument describes every route (docs/architecture.md §5); a test keeps it
// and the router in step.
//
//go:embed openapi.json
var openAPIDocument []byte

// OpenAPI returns the OpenAPI 3.1 document of the API.
func OpenAPI() []byte { return openAPIDocument }

func (s *Server) openAPI(c echo.Context) error {
	c.Response().Header().Set(echo.HeaderCacheControl, "public, max-age=300")
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, openAPIDocument)
}

// openAPIPath writes an echo route path (/games/:id, /static/*) the
// OpenAPI way (/games/{id}, /static/{path}).
func openAPIPath(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, ":") {
			parts[i] = "{" + p[1:] + "}"
		}
		if p == "*" {
			parts[i] = "{path}"
		}
	}
	return strings.Join(parts, "/")
}
