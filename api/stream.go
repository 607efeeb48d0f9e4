package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/presence"
)

// streamWriteTimeout bounds one write to a stream client; a client that
// stops reading is dropped instead of holding the handler forever.
const streamWriteTimeout = 30 * time.Second

// streamPage is how many events a stream reads from the store at once.
const streamPage = 500

// stream serves GET /v1/games/{id}/stream as server-sent events:
//
//   - "event" messages, one per stored event (data: the event record,
//     id: its version), for the events after Last-Event-ID;
//   - a "state" message (data: the state JSON, id: its version) on
//     connect and after every batch of new events;
//   - a comment every heartbeat interval.
//
// New events are noticed through PostgreSQL LISTEN/NOTIFY, so a move
// appended by any azuld replica reaches the streams of every replica.
func (s *Server) stream(c echo.Context) error {
	id, err := gameID(c)
	if err != nil {
		return err
	}
	if s.listener == nil {
		return newProblem(http.StatusServiceUnavailable, ProblemUnavailable, "no_streams")
	}
	lastSent, err := lastEventID(c)
	if err != nil {
		return err
	}
	// The client's address as the server determines it (clientIP: the
	// peer, or what a trusted proxy says).
	leave, refused := s.streams.enter(c.RealIP())
	if refused != nil {
		return refused
	}
	defer leave()
	ctx := c.Request().Context()
	// Subscribe before the first read, so nothing appended in between is
	// missed.
	notices, cancel := s.listener.Subscribe(id)
	defer cancel()
	g, err := s.svc.Game(ctx, id)
	if err != nil {
		return err
	}
	// Who reads decides whether the table talk among the events keeps
	// its text (the chat setting never changes; a seat taken later
	// counts from the next connection).
	mayReadTalk := g.MayReadTalk(s.viewerID(c))
	if lastSent > g.Version {
		lastSent = g.Version
	}

	s.metrics.streams.Inc()
	defer s.metrics.streams.Dec()
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-cache")
	h.Set("X-Accel-Buffering", "no")
	c.Response().WriteHeader(http.StatusOK)
	w := &sseWriter{rc: http.NewResponseController(c.Response()), w: c.Response()}

	// Replay what the client missed, then the current state.
	if lastSent >= 0 && lastSent < g.Version {
		if lastSent, err = s.sendEvents(ctx, w, id, lastSent, mayReadTalk); err != nil {
			return nil
		}
	}
	if err := w.send("state", g.Version, g.View()); err != nil {
		return nil
	}
	if lastSent < g.Version {
		lastSent = g.Version
	}

	// A seated player with the stream open is at the table: their turn
	// mails wait (see package presence).
	here, stay := s.atTable(ctx, g, c)
	defer stay.stop()
	heartbeat := time.NewTicker(s.heartbeat)
	defer heartbeat.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.closing:
			return nil
		case <-here:
			stay.touch(ctx)
		case <-heartbeat.C:
			if err := w.comment("ping"); err != nil {
				return nil
			}
		case n, ok := <-notices:
			if !ok {
				// The listener stopped (shutdown): the client reconnects
				// with Last-Event-ID and misses nothing.
				return nil
			}
			if !drain(notices, n, lastSent) {
				continue
			}
			next, err := s.sendEvents(ctx, w, id, lastSent, mayReadTalk)
			if err != nil {
				return nil
			}
			if next == lastSent {
				continue
			}
			lastSent = next
			g, err := s.svc.Game(ctx, id)
			if err != nil {
				// A client that went away cancels ctx: nothing went wrong.
				if ctx.Err() == nil {
					s.log.WarnContext(ctx, "stream: reload failed", "game", id, "err", err.Error())
				}
				return nil
			}
			if err := w.send("state", g.Version, g.View()); err != nil {
				return nil
			}
			if g.Version > lastSent {
				lastSent = g.Version
			}
		}
	}
}

// tableStay is a seated player's presence at a game's table for one
// stream: renewed by touch, ended by calling it.
type tableStay struct {
	s      *Server
	stream *presence.Stream
	ticker *time.Ticker
}

// atTable records the stream's player at the game's table when they
// hold a seat in it, and returns the channel on which to renew it and
// the stay to renew and end. Presence is a courtesy: a failure to record
// it is logged and the stream goes on.
func (s *Server) atTable(ctx context.Context, g *play.Game, c echo.Context) (<-chan time.Time, *tableStay) {
	stay := &tableStay{s: s}
	viewer := s.viewerID(c)
	if s.presence == nil || viewer == "" || len(g.SeatsOf(viewer)) == 0 || g.Status == play.StatusFinished {
		return nil, stay
	}
	stream, err := s.presence.Open(ctx, g.ID, viewer)
	if err != nil {
		s.log.WarnContext(ctx, "stream: presence not recorded", "game", g.ID, "err", err.Error())
		return nil, stay
	}
	stay.stream, stay.ticker = stream, time.NewTicker(presence.Refresh)
	return stay.ticker.C, stay
}

func (t *tableStay) touch(ctx context.Context) {
	if err := t.stream.Touch(ctx); err != nil && ctx.Err() == nil {
		t.s.log.WarnContext(ctx, "stream: presence not renewed", "err", err.Error())
	}
}

// stop ends the stay: the player left the table now.
func (t *tableStay) stop() {
	if t.stream == nil {
		return
	}
	t.ticker.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := t.stream.Close(ctx); err != nil {
		t.s.log.WarnContext(ctx, "stream: presence not closed", "err", err.Error())
	}
}

// sendEvents sends every stored event after version after and returns the
// version of the last one sent.
func (s *Server) sendEvents(ctx context.Context, w *sseWriter, id string, after int64, mayReadTalk bool) (int64, error) {
	for {
		recs, err := s.svc.Events(ctx, id, after, streamPage)
		if err != nil {
			return after, err
		}
		recs = play.HideTalk(recs, mayReadTalk)
		for _, rec := range recs {
			if err := w.send("event", rec.Version, rec); err != nil {
				return after, err
			}
			after = rec.Version
		}
		if len(recs) < streamPage {
			return after, nil
		}
	}
}

// lastEventID reads the Last-Event-ID header a reconnecting EventSource
// sends (or ?last_event_id=, for clients that cannot set headers); -1
// when absent.
func lastEventID(c echo.Context) (int64, error) {
	text := strings.TrimSpace(c.Request().Header.Get("Last-Event-ID"))
	if text == "" {
		text = c.QueryParam("last_event_id")
	}
	if text == "" {
		return -1, nil
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil || v < 0 {
		return 0, newProblem(http.StatusBadRequest, ProblemBadRequest, "last_event_id")
	}
	return v, nil
}

// drain empties a notice channel (one reload covers them all) and reports
// whether any of the notices, first included, may bring news: a notice
// of version 0 (the listener reconnected: anything may have changed) or
// of a version past the last one sent.
func drain(ch <-chan events.Notice, first events.Notice, lastSent int64) bool {
	news := first.Version == 0 || first.Version > lastSent
	for {
		select {
		case n, ok := <-ch:
			if !ok {
				return news
			}
			news = news || n.Version == 0 || n.Version > lastSent
		default:
			return news
		}
	}
}

// sseWriter writes server-sent event messages and flushes each.
type sseWriter struct {
	rc  *http.ResponseController
	w   http.ResponseWriter
	buf bytes.Buffer
}

// send writes one message; data is JSON on a single line.
func (w *sseWriter) send(event string, id int64, data any) error {
	body, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("encode %s message: %w", event, err)
	}
	w.buf.Reset()
	fmt.Fprintf(&w.buf, "event: %s\nid: %d\ndata: %s\n\n", event, id, body)
	return w.flush()
}

// comment writes a comment line (ignored by clients; keeps the connection
// alive through proxies).
func (w *sseWriter) comment(text string) error {
	w.buf.Reset()
	fmt.Fprintf(&w.buf, ": %s\n\n", text)
	return w.flush()
}

func (w *sseWriter) flush() error {
	// The deadline error is ignored: a server without write deadlines
	// simply has none to extend.
	_ = w.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if _, err := w.w.Write(w.buf.Bytes()); err != nil {
		return fmt.Errorf("write stream: %w", err)
	}
	if err := w.rc.Flush(); err != nil {
		return fmt.Errorf("flush stream: %w", err)
	}
	return nil
}
