package api

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// talkMessages is the body of GET /v1/games/{id}/messages.
type talkMessages struct {
	Chat     string         `json:"chat"`
	Muted    bool           `json:"muted"`
	Messages []play.Message `json:"messages"`
}

func TestTalkRoutes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben, eve := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Eve")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}, Visibility: play.VisibilityPrivate})
	path := "/v1/games/" + g.ID + "/messages"

	key := header{"Idempotency-Key", "hello-1"}
	var m play.Message
	ana.call(http.MethodPost, path, map[string]string{"text": " hello\r\nBen "}, key).mustStatus(t, http.StatusCreated).decode(t, &m)
	if m.Text != "hello\nBen" || m.Author != "Ana" || m.Version != g.Version+1 || m.Channel != "api" {
		t.Fatalf("message %+v", m)
	}
	var again play.Message
	ana.call(http.MethodPost, path, map[string]string{"text": "hello\nBen"}, key).mustStatus(t, http.StatusCreated).decode(t, &again)
	if again.Version != m.Version {
		t.Fatalf("the retry wrote again: %+v", again)
	}
	ana.call(http.MethodPost, path, map[string]string{"text": "other"}, key).mustStatus(t, http.StatusUnprocessableEntity)

	for _, bad := range []any{map[string]string{"text": "  "}, map[string]string{"text": strings.Repeat("x", 501)},
		map[string]string{"text": "a\x07b"}, map[string]any{"text": 3}, map[string]string{"txt": "hi"}, "hi"} {
		r := ana.call(http.MethodPost, path, bad)
		if r.Status != http.StatusBadRequest && r.Status != http.StatusUnsupportedMediaType {
			t.Errorf("%v: status %d: %s", bad, r.Status, r.Body)
		}
	}
	// A stranger: the private game is not there; no token: 401.
	eve.call(http.MethodPost, path, map[string]string{"text": "hi"}).mustStatus(t, http.StatusNotFound)
	eve.call(http.MethodGet, path, nil).mustStatus(t, http.StatusNotFound)
	env.anonymous(t).call(http.MethodPost, path, map[string]string{"text": "hi"}).mustStatus(t, http.StatusNotFound)

	var page talkMessages
	ben.call(http.MethodGet, path, nil).mustStatus(t, http.StatusOK).decode(t, &page)
	if page.Chat != play.ChatPlayers || len(page.Messages) != 1 || page.Messages[0].Text != "hello\nBen" {
		t.Fatalf("Ben reads %+v", page)
	}
	ben.call(http.MethodGet, path+"?after="+strconv.FormatInt(m.Version, 10), nil).mustStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Messages) != 0 {
		t.Fatalf("after the message: %+v", page)
	}
	ben.call(http.MethodGet, path+"?after=-1", nil).mustStatus(t, http.StatusBadRequest)

	// Mute, and the report of another's message (once).
	ben.call(http.MethodPut, path+"/mute", map[string]bool{"muted": true}).mustStatus(t, http.StatusOK)
	ben.call(http.MethodGet, path, nil).mustStatus(t, http.StatusOK).decode(t, &page)
	if !page.Muted {
		t.Fatalf("not muted: %+v", page)
	}
	ben.call(http.MethodPut, path+"/mute", map[string]any{}).mustStatus(t, http.StatusBadRequest)
	report := path + "/" + strconv.FormatInt(m.Version, 10) + "/report"
	ben.call(http.MethodPost, report, map[string]string{"reason": "spam"}).mustStatus(t, http.StatusCreated)
	ben.call(http.MethodPost, report, map[string]string{"reason": "spam"}).mustStatus(t, http.StatusOK)
	ana.call(http.MethodPost, report, nil).mustStatus(t, http.StatusBadRequest)
	ben.call(http.MethodPost, path+"/1/report", nil).mustStatus(t, http.StatusNotFound)
	ben.call(http.MethodPost, path+"/x/report", nil).mustStatus(t, http.StatusNotFound)
	if n := env.countOf(t, `SELECT count(*) FROM message_reports`); n != 1 {
		t.Fatalf("%d reports", n)
	}

	// A spectator of a public game may read but not write (403).
	pub := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}, Chat: play.ChatPublic})
	if p := eve.call(http.MethodPost, "/v1/games/"+pub.ID+"/messages", map[string]string{"text": "hi"}).mustStatus(t, http.StatusForbidden).problem(t); p.Type != ProblemForbidden {
		t.Fatalf("a spectator wrote: %+v", p)
	}
	eve.call(http.MethodPut, "/v1/games/"+pub.ID+"/messages/mute", map[string]bool{"muted": true}).mustStatus(t, http.StatusForbidden)
	ben.call(http.MethodPost, "/v1/games/"+pub.ID+"/messages", map[string]string{"text": "welcome, watchers"}).mustStatus(t, http.StatusCreated)
	eve.call(http.MethodGet, "/v1/games/"+pub.ID+"/messages", nil).mustStatus(t, http.StatusOK).decode(t, &page)
	if page.Chat != play.ChatPublic || len(page.Messages) != 1 {
		t.Fatalf("a spectator of a public chat reads %+v", page)
	}
	var st struct {
		Chat string `json:"chat"`
	}
	eve.call(http.MethodGet, "/v1/games/"+pub.ID, nil).mustStatus(t, http.StatusOK).decode(t, &st)
	if st.Chat != play.ChatPublic {
		t.Fatalf("the game says chat %q", st.Chat)
	}
	ana.call(http.MethodPost, "/v1/games", map[string]any{"ruleset": "azul-mini", "seats": []map[string]string{{"player": "me"}, {"bot": "random"}}, "chat": "everyone"}).mustStatus(t, http.StatusBadRequest)
}

// A move sent with the If-Match of the version before a message goes
// through: the message changed nothing in the game.
func TestMoveIfMatchBeforeMessage(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben := env.register(t, "Ana"), env.register(t, "Ben")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	mover, other := ana, ben
	if g.Seats[g.ToAct[0]].PlayerID == ben.Player.ID {
		mover, other = ben, ana
	}
	before := mover.getGame(g.ID)
	other.call(http.MethodPost, "/v1/games/"+g.ID+"/messages", map[string]string{"text": "your move!"}).mustStatus(t, http.StatusCreated)
	move := before.LegalMoves[0]
	mover.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", map[string]any{"move": move.Move},
		header{"If-Match", strconv.Quote(strconv.FormatInt(before.Version, 10))}).mustStatus(t, http.StatusCreated)
	// The same version after a move is stale.
	after := mover.getGame(g.ID)
	next := other
	if after.Seats[after.ToAct[0]].PlayerID == mover.Player.ID {
		next = mover
	}
	nextMoves := next.getGame(g.ID).LegalMoves
	next.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", map[string]any{"move": nextMoves[0].Move},
		header{"If-Match", strconv.FormatInt(before.Version, 10)}).mustStatus(t, http.StatusConflict)
}

// A stranger never reads the text of a private chat of a public game,
// through any route that returns events.
func TestStrangerCannotReadPrivateChat(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben, eve := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Eve")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}, Visibility: play.VisibilityPublic})
	const secret = "ZEBRA-SECRET"
	var m play.Message
	ben.call(http.MethodPost, "/v1/games/"+g.ID+"/messages", map[string]string{"text": "plan " + secret}).mustStatus(t, http.StatusCreated).decode(t, &m)
	v := strconv.FormatInt(m.Version, 10)
	prev := strconv.FormatInt(m.Version-1, 10)
	routes := []string{
		"/v1/games/" + g.ID + "/messages",
		"/v1/games/" + g.ID + "/events",
		"/v1/games/" + g.ID + "/events?format=jsonl",
		"/v1/games/" + g.ID + "/events?type=game.message",
		"/v1/games/" + g.ID + "/diff?from=" + prev + "&to=" + v,
		"/v1/games/" + g.ID + "/diff?from=1&to=" + v,
		"/v1/games/" + g.ID + "/export",
		"/v1/games/" + g.ID + "/state?version=" + v,
		"/v1/games/" + g.ID + "/rounds",
		"/v1/games/" + g.ID,
		"/v1/games/" + g.ID + "/verify",
		"/games/" + g.ID,
		"/games/" + g.ID + "/replay?version=" + v,
	}
	for _, who := range []*client{eve, env.anonymous(t)} {
		for _, path := range routes {
			r := who.call(http.MethodGet, path, nil)
			if r.Status != http.StatusOK {
				t.Errorf("%s: status %d: %s", path, r.Status, r.Body)
			}
			if strings.Contains(string(r.Body), secret) {
				t.Errorf("%s shows a stranger the private chat: %s", path, r.Body)
			}
		}
	}
	// The live stream, replayed from the start.
	s := openStream(t, env, g.ID, "0")
	for {
		msg := s.nextData(t)
		if strings.Contains(msg.data, secret) {
			t.Fatalf("the stream shows a stranger the private chat: %s", msg.data)
		}
		if msg.event == "state" {
			break
		}
	}
	// The players read it on the same routes.
	for _, path := range routes[:3] {
		if r := ana.call(http.MethodGet, path, nil); !strings.Contains(string(r.Body), secret) {
			t.Errorf("%s hides the chat from a player: %s", path, r.Body)
		}
	}
}

// Messages are limited per player and game: the refused one is not
// written.
func TestMessagesLimited(t *testing.T) {
	t.Parallel()
	env := newLimitedEnv(t, map[string]string{limits.MessagesGame: "2/h"})
	ana, ben := env.register(t, "Ana"), env.register(t, "Ben")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	path := "/v1/games/" + g.ID + "/messages"
	for i := range 2 {
		ana.call(http.MethodPost, path, map[string]string{"text": "hi " + strconv.Itoa(i)}).mustStatus(t, http.StatusCreated)
	}
	mustBeLimited(t, ana.call(http.MethodPost, path, map[string]string{"text": "too many"}), limits.MessagesGame)
	// Ben's own count, and Ana's in another game, are apart.
	ben.call(http.MethodPost, path, map[string]string{"text": "calm down"}).mustStatus(t, http.StatusCreated)
	var page talkMessages
	ana.call(http.MethodGet, path, nil).mustStatus(t, http.StatusOK).decode(t, &page)
	if len(page.Messages) != 3 {
		t.Fatalf("%d messages written", len(page.Messages))
	}
}
