package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// MIMEJSONLines is the media type of JSON lines (one JSON value a line).
const MIMEJSONLines = "application/x-ndjson"

// DefaultImportLimit bounds the body of POST /v1/games/import: a long
// four-player game exports to well under a megabyte.
const DefaultImportLimit = 8 << 20

// auditPage is one page of a game's audit trail.
type auditPage struct {
	GameID string          `json:"game_id"`
	Events []play.LogEvent `json:"events"`
	// Next is the URL of the next page, present when this page is full.
	Next string `json:"next,omitempty"`
}

// maxTypeFilters bounds ?type= values.
const maxTypeFilters = 32

// gameEvents serves the audit trail: paginated (after, limit), filtered
// by type (repeated or comma-separated) and seat, as JSON or, with
// ?format=jsonl or Accept: application/x-ndjson, as JSON lines.
func (s *Server) gameEvents(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	after, err := queryInt(c, "after", 0, 0, 1<<53)
	if err != nil {
		return err
	}
	lines := c.QueryParam("format") == "jsonl" || strings.Contains(c.Request().Header.Get(echo.HeaderAccept), MIMEJSONLines)
	if f := c.QueryParam("format"); f != "" && f != "jsonl" && f != "json" {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "events_format")
	}
	def := int64(defaultEventsLimit)
	if lines {
		def = 0
	}
	limit, err := queryInt(c, "limit", def, 1, maxEventsLimit)
	if err != nil {
		return err
	}
	seat, err := querySeat(c)
	if err != nil {
		return err
	}
	var types []string
	for _, v := range c.QueryParams()["type"] {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				types = append(types, t)
			}
		}
	}
	if len(types) > maxTypeFilters {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "type_filters", "Max", num(maxTypeFilters))
	}
	reader := s.reader(c)
	// The descriptions are in the reader's language; say which.
	c.Response().Header().Set("Content-Language", reader.Lang())
	evs, err := s.svc.AuditLog(c.Request().Context(), id, play.LogQuery{After: after, Limit: int(limit), Types: types, Seat: seat, Reader: reader, Viewer: s.viewerID(c)})
	if err != nil {
		return err
	}
	if lines {
		var buf bytes.Buffer
		for _, e := range evs {
			if err := writeJSONLine(&buf, e); err != nil {
				return err
			}
		}
		c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s-events.jsonl"`, id))
		return c.Blob(http.StatusOK, MIMEJSONLines, buf.Bytes())
	}
	page := auditPage{GameID: id, Events: evs}
	if limit > 0 && int64(len(evs)) == limit {
		q := url.Values{"after": {strconv.FormatInt(evs[len(evs)-1].Version, 10)}, "limit": {strconv.FormatInt(limit, 10)}}
		for _, t := range types {
			q.Add("type", t)
		}
		if seat != nil {
			q.Set("seat", strconv.Itoa(*seat))
		}
		page.Next = fmt.Sprintf("/v1/games/%s/events?%s", id, q.Encode())
		c.Response().Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, page.Next))
	}
	return c.JSON(http.StatusOK, page)
}

// writeJSONLine appends v as one line of JSON.
func writeJSONLine(buf *bytes.Buffer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf.Write(b)
	buf.WriteByte('\n')
	return nil
}

// exportGame serves the whole log as JSON lines, for ImportGame and
// `azuld verify`.
func (s *Server) exportGame(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := s.svc.ExportFor(c.Request().Context(), id, s.viewerID(c), &buf); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition, fmt.Sprintf(`attachment; filename="%s.jsonl"`, id))
	return c.Blob(http.StatusOK, MIMEJSONLines, buf.Bytes())
}

// importGame stores an exported log as a new game.
func (s *Server) importGame(c echo.Context) error {
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	recs, err := play.ReadRecords(bytes.NewReader(body))
	if err != nil {
		return err
	}
	// An imported game is a game created.
	if err := s.limitAccount(c, limits.Games, p); err != nil {
		return err
	}
	g, err := s.svc.ImportGame(c.Request().Context(), recs)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/v1/games/"+g.ID)
	c.Response().Header().Set("ETag", etag(g.Version))
	return c.JSON(http.StatusCreated, g.View())
}

// verifyGame re-derives every draw of a game from its revealed seed.
func (s *Server) verifyGame(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	v, err := s.svc.Verify(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, v)
}

// gameDiff compares two versions of a game.
func (s *Server) gameDiff(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	if c.QueryParam("from") == "" || c.QueryParam("to") == "" {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "diff_range")
	}
	from, err := queryInt(c, "from", 0, 1, 1<<53)
	if err != nil {
		return err
	}
	to, err := queryInt(c, "to", 0, 1, 1<<53)
	if err != nil {
		return err
	}
	reader := s.reader(c)
	// The descriptions are in the reader's language; say which.
	c.Response().Header().Set("Content-Language", reader.Lang())
	d, err := s.svc.Diff(c.Request().Context(), id, from, to, reader, s.viewerID(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

// gameRounds serves per-round summaries.
func (s *Server) gameRounds(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	rounds, err := s.svc.Rounds(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"game_id": id, "rounds": rounds})
}

// takebackBody is the optional body of POST /v1/games/{id}/takebacks.
type takebackBody struct {
	// Moves is how many of the seat's own moves to take back (default 1).
	Moves int  `json:"moves"`
	Seat  *int `json:"seat"`
}

func (s *Server) requestTakeback(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	var body takebackBody
	if err := decodeJSON(c, &body, true); err != nil {
		return err
	}
	if body.Moves < 0 || body.Moves > play.MaxTakebackMoves {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "takeback_moves", "Max", num(play.MaxTakebackMoves))
	}
	if body.Seat != nil && (*body.Seat < 0 || *body.Seat >= maxSeats) {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "seat_range", "Max", num(maxSeats-1))
	}
	res, err := s.svc.RequestTakeback(c.Request().Context(), play.TakebackRequest{
		GameID: id, Player: p, Seat: body.Seat, Moves: body.Moves, Channel: channelOf(c),
	})
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, fmt.Sprintf("/v1/games/%s/takebacks/%d", id, res.Takeback.ID))
	return s.takebackResponse(c, http.StatusCreated, res)
}

// listTakebacks lists a game's take-back requests and how each ended.
func (s *Server) listTakebacks(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	list, err := s.svc.Takebacks(c.Request().Context(), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"game_id": id, "takebacks": list})
}

// getTakeback serves one take-back request.
func (s *Server) getTakeback(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	tid, err := takebackID(c)
	if err != nil {
		return err
	}
	list, err := s.svc.Takebacks(c.Request().Context(), id)
	if err != nil {
		return err
	}
	for _, t := range list {
		if t.ID == tid {
			return c.JSON(http.StatusOK, t)
		}
	}
	return newProblem(http.StatusNotFound, ProblemNotFound, "no_takeback", "ID", num(tid))
}

// takebackID reads the {tid} path parameter.
func takebackID(c echo.Context) (int64, error) {
	tid, err := strconv.ParseInt(c.Param("tid"), 10, 64)
	if err != nil || tid < 1 {
		return 0, newProblem(http.StatusNotFound, ProblemNotFound, "takeback_id")
	}
	return tid, nil
}

func (s *Server) acceptTakeback(c echo.Context) error { return s.answerTakeback(c, true) }

func (s *Server) declineTakeback(c echo.Context) error { return s.answerTakeback(c, false) }

func (s *Server) answerTakeback(c echo.Context, accept bool) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	tid, err := takebackID(c)
	if err != nil {
		return err
	}
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	res, err := s.svc.AnswerTakeback(c.Request().Context(), id, tid, p, accept, channelOf(c))
	if err != nil {
		return err
	}
	return s.takebackResponse(c, http.StatusOK, res)
}

// takebackResponse is a take-back's status with the game after it.
func (s *Server) takebackResponse(c echo.Context, status int, res *play.TakebackResult) error {
	c.Response().Header().Set("ETag", etag(res.Game.Version))
	return c.JSON(status, map[string]any{
		"takeback": res.Takeback,
		"version":  res.Game.Version,
		"events":   res.Events,
		"game":     res.Game.View(),
	})
}

// viewerID is the caller's player id, or "" for a visitor (the game check
// has looked the caller up already).
func (s *Server) viewerID(c echo.Context) string {
	if p, err := s.optionalPlayer(c); err == nil && p != nil {
		return p.ID
	}
	return ""
}
