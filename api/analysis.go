package api

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/play"
)

// analysisRetryAfter is the Retry-After of a 202: about the time one
// analysis takes.
const analysisRetryAfter = 2

// gameAnalysis serves GET /v1/games/{id}/analysis?version=N: the search
// bot's evaluation of every legal move of the seat that moved at version
// N of a finished game, the move played and the best move. It is computed
// by a job worker on the first request (202 until it is stored) and kept.
// A running game gets 403: no help while it is played.
func (s *Server) gameAnalysis(c echo.Context) error {
	if s.notifier == nil {
		return errNoNotifier()
	}
	id, err := gameID(c)
	if err != nil {
		return err
	}
	version, err := queryInt(c, "version", 0, 1, 1<<53)
	if err != nil {
		return err
	}
	if version == 0 {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "analysis_version")
	}
	ctx := c.Request().Context()
	g, err := s.svc.Game(ctx, id)
	if err != nil {
		return err
	}
	if g.Status != play.StatusFinished {
		return newProblem(http.StatusForbidden, ProblemForbidden, "analysis_unfinished")
	}
	if version >= g.Version {
		return newProblem(http.StatusBadRequest, ProblemInvalidRequest, "analysis_last", "Version", num(version), "Last", num(g.Version))
	}
	result, ready, err := s.notifier.RequestAnalysis(ctx, id, version)
	if err != nil {
		return err
	}
	if !ready {
		c.Response().Header().Set("Retry-After", strconv.Itoa(analysisRetryAfter))
		return c.JSON(http.StatusAccepted, map[string]any{"status": "computing", "game_id": id, "version": version})
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "public, max-age=31536000, immutable")
	return c.JSONBlob(http.StatusOK, result)
}
