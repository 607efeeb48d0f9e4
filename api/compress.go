package api

import (
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// compressMinLength is the smallest body worth compressing: below it,
// gzip's header and trailer outweigh what it saves.
const compressMinLength = 1024

// compress gzips responses for clients that accept it. The event stream
// is left alone, since a compressor holds back what it has not filled a
// block with and a spectator would see moves late; /metrics compresses
// itself (promhttp), and compressing it again would garble it.
func compress() echo.MiddlewareFunc {
	return middleware.GzipWithConfig(middleware.GzipConfig{
		MinLength: compressMinLength,
		Skipper: func(c echo.Context) bool {
			if c.Path() == streamRoute || c.Path() == "/metrics" {
				return true
			}
			return strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/event-stream")
		},
	})
}
