package api

import (
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/play"
)

// callerKey keeps a request's optional caller once looked up (see
// optionalPlayer), so that the game check and the handler look once.
const callerKey = "azuld.caller"

// caller is the outcome of optionalPlayer.
type caller struct {
	p   *play.Player
	err error
	// limited: the call was counted against the player's limit.
	limited bool
}

// gameRoutes are the route prefixes that read or act on one game: the
// API's and the web pages'. /games/new and /v1/games/import are routes
// of their own, not games.
var gameRoutes = []string{"/v1/games/:id", "/games/:id"}

// gameAccess is the one check of who may see a game (play.MayRead), for
// every route under /v1/games/{id} and every web page under /games/{id}:
// a private game a stranger may not see answers exactly as a game that
// does not exist. The id is read as leniently as any handler reads it
// (the pages take capitals), so that no spelling of it slips past; a
// malformed one is left to the handler, which answers it as no game.
func (s *Server) gameAccess(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		path := c.Path()
		if !isGameRoute(path) {
			return next(c)
		}
		raw := c.Param("id")
		u, err := uuid.Parse(raw)
		if err != nil || len(raw) != 36 {
			return next(c)
		}
		id := u.String()
		web := !strings.HasPrefix(path, "/v1/")
		p, err := s.optionalPlayer(c)
		if err != nil {
			if web {
				// A page reads a session, never a token: a bad
				// Authorization header is no business of its.
				p = nil
			} else {
				return err
			}
		}
		viewer := ""
		if p != nil {
			viewer = p.ID
		}
		if err := s.svc.MayRead(c.Request().Context(), id, viewer); err != nil {
			if web {
				return s.web.NoGame(c, err)
			}
			return err
		}
		return next(c)
	}
}

// isGameRoute reports whether a route reads or acts on one game.
func isGameRoute(path string) bool {
	for _, prefix := range gameRoutes {
		if path == prefix || strings.HasPrefix(path, prefix+"/") {
			return true
		}
	}
	return false
}
