package web

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// talkView is the "Table talk" panel of a game's page: shown to its
// players, and to everyone else when the game's chat is public.
type talkView struct {
	// Show: the viewer may read the table talk.
	Show bool
	// CanWrite: the viewer holds a seat (and the page is the table).
	CanWrite bool
	// Muted: the viewer, a player, muted the game's messages.
	Muted bool
	// Public: the game's chat is public.
	Public   bool
	Messages []talkLine
	// Hidden counts the messages written after the version a replay
	// shows (they appear as the replay moves on).
	Hidden int
	// Max is the longest message, in characters.
	Max int
	// Draft and Error are a message the form did not send and why, in
	// the reader's words: shown in and next to the form.
	Draft, Error string
}

// talkRefusal is a message the form did not send: its text, the error
// and the status of the page that shows them.
type talkRefusal struct {
	draft  string
	err    error
	status int
}

// talkLine is one message as the page shows it.
type talkLine struct {
	Version int64
	Author  string
	Text    string
	At      time.Time
	// Mine: the viewer wrote it; CanReport: the viewer may report it
	// (a player, and another player's message).
	Mine, CanReport bool
}

// newTalkView reads the table talk of the game id up to version upTo as
// viewer (nil: a visitor) may read it.
func (w *Web) newTalkView(ctx context.Context, l *i18n.Localizer, g *play.Game, me *play.Player, view string, upTo int64) (*talkView, error) {
	viewer := ""
	if me != nil {
		viewer = me.ID
	}
	seated := viewer != "" && len(g.SeatsOf(viewer)) > 0
	t := &talkView{Show: g.MayReadTalk(viewer), Public: g.ChatIsPublic(), CanWrite: seated && view == "table", Max: play.MaxMessageRunes}
	if !t.Show {
		return t, nil
	}
	msgs, err := w.svc.Messages(ctx, g.ID, viewer, 0)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if m.Version > upTo {
			t.Hidden++
			continue
		}
		author := m.Author
		if m.Erased {
			author = l.T("talk.former_player")
		}
		mine := m.PlayerID == viewer
		t.Messages = append(t.Messages, talkLine{Version: m.Version, Author: author, Text: m.Text, At: m.At, Mine: mine, CanReport: seated && !mine})
	}
	if seated {
		if t.Muted, err = w.svc.Muted(ctx, g.ID, viewer); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// talkForm reads a talk form's session, CSRF token and game id.
func (w *Web) talkForm(c echo.Context) (*session, string, bool, error) {
	s, ok, err := w.requireSession(c)
	if !ok {
		return nil, "", false, err
	}
	if err := checkForm(c, s); err != nil {
		return s, "", false, w.fail(c, s, err)
	}
	id, err := gameID(c)
	if err != nil {
		return s, "", false, w.fail(c, s, err)
	}
	return s, id, true, nil
}

// talkError is a talk form's refusal in the reader's words.
func talkError(err error) error {
	var input *play.InputError
	switch {
	case errors.As(err, &input):
		return errorf(play.ErrInvalid, "talk.web.error."+input.Code, input.Args...)
	case errors.Is(err, play.ErrForbidden):
		return errorf(play.ErrForbidden, "talk.web.error.not_seated")
	}
	return err
}

// say is POST /games/{id}/messages (text): the "Send" button of the
// table talk, without script. Counted as the API counts messages.
func (w *Web) say(c echo.Context) error {
	s, id, ok, err := w.talkForm(c)
	if !ok {
		return err
	}
	ctx := c.Request().Context()
	text := c.FormValue("text")
	// A refused message is shown again in the form with the reason
	// next to it, not on a page of its own: nothing typed is lost.
	again := func(err error) error {
		status, show := statusOf(err)
		if !show {
			return w.fail(c, s, err)
		}
		var refusal *limits.Refusal
		if errors.As(err, &refusal) {
			c.Response().Header().Set("Retry-After", strconv.Itoa(refusal.RetryAfter))
		}
		return w.gamePage(c, "table", &talkRefusal{draft: text, err: err, status: status})
	}
	if _, err := play.CleanMessage(text); err != nil {
		return again(talkError(err))
	}
	g, err := w.svc.CurrentState(ctx, id)
	if err != nil {
		return w.fail(c, s, err)
	}
	if len(g.SeatsOf(s.Player.ID)) == 0 {
		return w.fail(c, s, talkError(play.ErrForbidden))
	}
	if err := w.limitMessage(ctx, id, s.Player); err != nil {
		return again(err)
	}
	// The form's own key makes a second click (or a reload that posts
	// again) say it once.
	if _, err := w.svc.Say(ctx, id, s.Player, text, "web", c.FormValue("key")); err != nil {
		return again(talkError(err))
	}
	return c.Redirect(http.StatusSeeOther, "/games/"+id+"#talk")
}

// limitMessage counts a message as the API does (limits.MessagesGame,
// limits.Messages).
func (w *Web) limitMessage(ctx context.Context, gameID string, p play.Player) error {
	key := gameID + ":" + p.ID
	if err := w.limits.Peek(ctx, limits.MessagesGame, key); err != nil {
		return err
	}
	if err := w.limits.Allow(ctx, limits.Messages, p.ID); err != nil {
		return err
	}
	return w.limits.Allow(ctx, limits.MessagesGame, key)
}

// mute is POST /games/{id}/messages/mute (muted=1 or 0).
func (w *Web) mute(c echo.Context) error {
	s, id, ok, err := w.talkForm(c)
	if !ok {
		return err
	}
	muted := c.FormValue("muted") == "1"
	if err := w.svc.SetMuted(c.Request().Context(), id, s.Player.ID, muted); err != nil {
		return w.fail(c, s, talkError(err))
	}
	return c.Redirect(http.StatusSeeOther, "/games/"+id+"#talk")
}

// report is POST /games/{id}/messages/{version}/report (reason).
func (w *Web) report(c echo.Context) error {
	s, id, ok, err := w.talkForm(c)
	if !ok {
		return err
	}
	version, err := strconv.ParseInt(c.Param("version"), 10, 64)
	if err != nil || version < 1 {
		return w.fail(c, s, errorf(play.ErrNotFound, "talk.web.error.no_message"))
	}
	if _, err := w.svc.ReportMessage(c.Request().Context(), id, s.Player, version, c.FormValue("reason")); err != nil {
		if errors.Is(err, play.ErrNotFound) {
			err = errorf(play.ErrNotFound, "talk.web.error.no_message")
		}
		return w.fail(c, s, talkError(err))
	}
	return c.Redirect(http.StatusSeeOther, "/games/"+id+"?reported="+strconv.FormatInt(version, 10)+"#talk")
}
