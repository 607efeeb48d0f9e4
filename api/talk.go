package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// messagesPage is the answer of GET /v1/games/{id}/messages.
type messagesPage struct {
	GameID string `json:"game_id"`
	// Chat is the game's chat setting: who besides its players reads.
	Chat string `json:"chat"`
	// Muted: the caller, a player, muted the game's table talk.
	Muted    bool           `json:"muted"`
	Messages []play.Message `json:"messages"`
}

// sayRequest is the body of POST /v1/games/{id}/messages.
type sayRequest struct {
	Text string `json:"text"`
}

// muteRequest is the body of PUT /v1/games/{id}/messages/mute.
type muteRequest struct {
	Muted *bool `json:"muted"`
}

// reportRequest is the body of POST /v1/games/{id}/messages/{version}/report.
type reportRequest struct {
	Reason string `json:"reason"`
}

// reportResponse answers a report.
type reportResponse struct {
	GameID  string `json:"game_id"`
	Version int64  `json:"version"`
	// Created is false when the caller had reported the message before.
	Created bool `json:"created"`
}

// listMessages serves GET /v1/games/{id}/messages?after=V: the game's
// table talk after version V, oldest first; to players always, to others
// only when the game's chat is public (else an empty list).
func (s *Server) listMessages(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	after, err := queryInt(c, "after", 0, 0, 1<<53)
	if err != nil {
		return err
	}
	viewer := s.viewerID(c)
	ctx := c.Request().Context()
	msgs, err := s.svc.Messages(ctx, id, viewer, after)
	if err != nil {
		return err
	}
	g, err := s.svc.CurrentState(ctx, id)
	if err != nil {
		return err
	}
	page := messagesPage{GameID: id, Chat: g.Chat, Messages: msgs}
	if viewer != "" && len(g.SeatsOf(viewer)) > 0 {
		if page.Muted, err = s.svc.Muted(ctx, id, viewer); err != nil {
			return err
		}
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-cache")
	c.Response().Header().Add("Vary", "Authorization")
	c.Response().Header().Add("Vary", "Cookie")
	return c.JSON(http.StatusOK, page)
}

// postMessage serves POST /v1/games/{id}/messages {"text": "..."}: a
// player writes to the table (201 with the message). Idempotency-Key
// makes a retry return the first message. 403 for anyone without a seat,
// 400 for a text that is empty, too long or holds control characters, 429
// past the messages limits.
func (s *Server) postMessage(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	key, err := idempotencyKey(c)
	if err != nil {
		return err
	}
	var req sayRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	// Bad text is refused before anything is counted or read.
	if _, err := play.CleanMessage(req.Text); err != nil {
		return err
	}
	ctx := c.Request().Context()
	g, err := s.svc.CurrentState(ctx, id)
	if err != nil {
		return err
	}
	if len(g.SeatsOf(p.ID)) == 0 {
		return newProblem(http.StatusForbidden, ProblemForbidden, "talk_not_seated")
	}
	if err := s.limitMessage(c, id, p); err != nil {
		return err
	}
	m, err := s.svc.Say(ctx, id, p, req.Text, channelOf(c), key)
	if errors.Is(err, play.ErrForbidden) {
		return newProblem(http.StatusForbidden, ProblemForbidden, "talk_not_seated")
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, m)
}

// limitMessage counts a message against the per-game limit (looked at
// first, in the database, without counting) and the per-account one.
func (s *Server) limitMessage(c echo.Context, gameID string, p play.Player) error {
	ctx := c.Request().Context()
	key := gameID + ":" + p.ID
	if err := s.limits.Peek(ctx, limits.MessagesGame, key); err != nil {
		return err
	}
	if err := s.limits.Allow(ctx, limits.Messages, p.ID); err != nil {
		return err
	}
	return s.limits.Allow(ctx, limits.MessagesGame, key)
}

// muteMessages serves PUT /v1/games/{id}/messages/mute {"muted": bool}:
// a player's choice not to be sent the game's messages.
func (s *Server) muteMessages(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	var req muteRequest
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	if req.Muted == nil {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "talk_muted_needed")
	}
	if err := s.svc.SetMuted(c.Request().Context(), id, p.ID, *req.Muted); err != nil {
		if errors.Is(err, play.ErrForbidden) {
			return newProblem(http.StatusForbidden, ProblemForbidden, "talk_not_seated")
		}
		return err
	}
	return c.JSON(http.StatusOK, map[string]any{"game_id": id, "muted": *req.Muted})
}

// reportMessage serves POST /v1/games/{id}/messages/{version}/report
// {"reason": "..."}: a player reports another player's message to the
// operators (azuld reports). 201 the first time, 200 after.
func (s *Server) reportMessage(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	p, err := s.authenticate(c)
	if err != nil {
		return err
	}
	version, err := strconv.ParseInt(c.Param("version"), 10, 64)
	if err != nil || version < 1 {
		return newProblem(http.StatusNotFound, ProblemNotFound, "not_found")
	}
	var req reportRequest
	if err := decodeJSON(c, &req, true); err != nil {
		return err
	}
	created, err := s.svc.ReportMessage(c.Request().Context(), id, p, version, req.Reason)
	if errors.Is(err, play.ErrForbidden) {
		return newProblem(http.StatusForbidden, ProblemForbidden, "talk_not_seated")
	}
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return c.JSON(status, reportResponse{GameID: id, Version: version, Created: created})
}
