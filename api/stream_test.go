package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/play"
)

// sseMessage is one server-sent event, or a comment.
type sseMessage struct {
	event, id, data, comment string
}

// sseReader reads messages from a stream response.
type sseReader struct {
	res *http.Response
	r   *bufio.Reader
}

// openStream connects to a game's stream; lastEventID "" sends none.
func openStream(t *testing.T, env *testEnv, id, lastEventID string) *sseReader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return openStreamAs(t, ctx, env, id, lastEventID, "")
}

// openStreamAs is openStream with ctx and a player's bearer token ("" for
// none).
func openStreamAs(t *testing.T, ctx context.Context, env *testEnv, id, lastEventID, token string) *sseReader {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.http.URL+"/v1/games/"+id+"/stream", nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	res, err := env.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	return &sseReader{res: res, r: bufio.NewReader(res.Body)}
}

// next reads the next message, failing after a timeout.
func (s *sseReader) next(t *testing.T) sseMessage {
	t.Helper()
	type result struct {
		m   sseMessage
		err error
	}
	ch := make(chan result, 1)
	go func() {
		var m sseMessage
		for {
			line, err := s.r.ReadString('\n')
			if err != nil {
				ch <- result{err: err}
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case line == "":
				ch <- result{m: m}
				return
			case strings.HasPrefix(line, ": "):
				m.comment = line[2:]
			case strings.HasPrefix(line, "event: "):
				m.event = line[7:]
			case strings.HasPrefix(line, "id: "):
				m.id = line[4:]
			case strings.HasPrefix(line, "data: "):
				m.data = line[6:]
			default:
				ch <- result{err: errors.New("unexpected line " + strconv.Quote(line))}
				return
			}
		}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("stream: %v", r.err)
		}
		return r.m
	case <-time.After(10 * time.Second):
		t.Fatal("stream: no message within 10s")
	}
	return sseMessage{}
}

// nextData skips comments (heartbeats) and returns the next message.
func (s *sseReader) nextData(t *testing.T) sseMessage {
	t.Helper()
	for {
		if m := s.next(t); m.comment == "" {
			return m
		}
	}
}

func TestStream(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	g := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: "me"}}})

	s := openStream(t, env, g.ID, "")
	first := s.nextData(t)
	var st game
	if err := json.Unmarshal([]byte(first.data), &st); err != nil {
		t.Fatal(err)
	}
	if first.event != "state" || first.id != strconv.FormatInt(g.Version, 10) || st.Version != g.Version {
		t.Fatalf("first message %+v", first)
	}

	// A move reaches the stream as its events, then the new state.
	res := ana.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", g.LegalMoves[0].Move).mustStatus(t, http.StatusCreated)
	var mr moveResponse
	res.decode(t, &mr)
	for v := g.Version + 1; v <= mr.CurrentVersion; v++ {
		m := s.nextData(t)
		if m.event != "event" || m.id != strconv.FormatInt(v, 10) {
			t.Fatalf("want event %d, got %+v", v, m)
		}
	}
	m := s.nextData(t)
	if m.event != "state" || m.id != strconv.FormatInt(mr.CurrentVersion, 10) {
		t.Fatalf("want the state at %d, got %+v", mr.CurrentVersion, m)
	}

	// Idle streams send heartbeats.
	if hb := s.next(t); hb.comment != "ping" {
		t.Fatalf("want a heartbeat, got %+v", hb)
	}

	// A reconnection with Last-Event-ID gets what it missed, then the state.
	r := openStream(t, env, g.ID, strconv.FormatInt(g.Version, 10))
	for v := g.Version + 1; v <= mr.CurrentVersion; v++ {
		if m := r.nextData(t); m.event != "event" || m.id != strconv.FormatInt(v, 10) {
			t.Fatalf("replay: want event %d, got %+v", v, m)
		}
	}
	if m := r.nextData(t); m.event != "state" || m.id != strconv.FormatInt(mr.CurrentVersion, 10) {
		t.Fatalf("replay: want the state, got %+v", m)
	}

	// Bad requests are problems, not streams.
	env.anonymous(t).call(http.MethodGet, "/v1/games/"+g.ID+"/stream", nil, header{"Last-Event-ID", "x"}).mustStatus(t, http.StatusBadRequest).problem(t)
	env.anonymous(t).call(http.MethodGet, "/v1/games/00000000-0000-0000-0000-000000000000/stream", nil).mustStatus(t, http.StatusNotFound).problem(t)

	// Shutting the server down ends the streams.
	env.srv.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, s.r)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("stream ended with %v, want a clean end", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream outlived the server's Close")
	}
}

// TestStreamSeesOtherReplicas: a move appended through another server
// (another azuld replica on the same database) reaches this server's
// streams through LISTEN/NOTIFY.
func TestStreamSeesOtherReplicas(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: "me"}}})
	s := openStream(t, env, g.ID, "")
	if m := s.nextData(t); m.event != "state" {
		t.Fatalf("first message %+v", m)
	}
	// The other replica: the same service type over its own pool, no HTTP.
	other := newReplica(t, env)
	res, err := other.Move(context.Background(), play.MoveRequest{
		GameID: g.ID, Actor: actorOf(ana), Move: g.LegalMoves[0].Move, Channel: "api",
	})
	if err != nil {
		t.Fatal(err)
	}
	for {
		m := s.nextData(t)
		if m.event == "state" {
			if m.id != strconv.FormatInt(res.Game.Version, 10) {
				t.Fatalf("state %s, want %d", m.id, res.Game.Version)
			}
			return
		}
	}
}
