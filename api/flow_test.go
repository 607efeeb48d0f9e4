package api

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/play"
)

func TestPlayersAndTokens(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	anon := env.anonymous(t)

	res := anon.call(http.MethodPost, "/v1/players", map[string]string{"name": "Ana", "email": "ana@example.org"}).mustStatus(t, http.StatusCreated)
	var reg struct {
		ID    string `json:"id"`
		Name  string `json:"name"`
		Token string `json:"token"`
	}
	res.decode(t, &reg)
	if res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("a response with a token must not be stored: %q", res.Header.Get("Cache-Control"))
	}
	// The token carries at least 128 random bits: a 256-bit value in
	// base64url (43 characters) after the prefix.
	if len(reg.Token) < 4+22 {
		t.Errorf("token %q is too short", reg.Token)
	}
	// Only the token's hash is stored.
	var stored int
	sum := sha256.Sum256([]byte(reg.Token))
	err := env.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM api_tokens WHERE position($1::bytea in hash) > 0 OR hash = $2`,
		[]byte(reg.Token), sum[:]).Scan(&stored)
	if err != nil {
		t.Fatal(err)
	}
	if stored != 1 {
		t.Errorf("want the token stored as its SHA-256 only, found %d rows", stored)
	}

	ana := &client{t: t, env: env, token: reg.Token}
	var me play.Player
	ana.call(http.MethodGet, "/v1/me", nil).mustStatus(t, http.StatusOK).decode(t, &me)
	if me.ID != reg.ID || me.Name != "Ana" {
		t.Errorf("me = %+v", me)
	}

	for _, auth := range []string{"", "Bearer", "Bearer nope", "Basic YTpi", "Bearer " + reg.Token + "x", "Bearer azt_" + strings.Repeat("A", 43)} {
		res := anon.call(http.MethodGet, "/v1/me", nil, header{"Authorization", auth})
		p := res.mustStatus(t, http.StatusUnauthorized).problem(t)
		if p.Type != ProblemUnauthenticated || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("Authorization %q: %+v", auth, p)
		}
	}

	for _, body := range []any{map[string]string{"name": ""}, map[string]string{"name": "A", "email": "not an address"},
		map[string]any{"name": "A", "admin": true}, []byte(`{"name":`), []byte(`[]`), []byte(``)} {
		p := anon.call(http.MethodPost, "/v1/players", body).mustStatus(t, http.StatusBadRequest).problem(t)
		if p.Detail == "" {
			t.Errorf("body %v: problem without detail", body)
		}
	}
	var n int
	if err := env.pool.QueryRow(context.Background(), `SELECT count(*) FROM players`).Scan(&n); err != nil || n != 1 {
		t.Errorf("refused registrations must write nothing: %d players (%v)", n, err)
	}
}

// absentColour is an Azul colour factory f does not hold.
func absentColour(t *testing.T, env *testEnv, id string, f int) string {
	t.Helper()
	var st struct {
		Factories []map[string]int `json:"factories"`
	}
	env.anonymous(t).call(http.MethodGet, "/v1/games/"+id, nil).mustStatus(t, http.StatusOK).decode(t, &st)
	for _, c := range []string{"blue", "yellow", "red", "black", "white"} {
		if st.Factories[f][c] == 0 {
			return c
		}
	}
	t.Fatalf("factory %d holds every colour: %v", f, st.Factories[f])
	return ""
}

func TestGameLifecycleAndMoveErrors(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben, cy := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Cy")

	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}})
	if g.Status != play.StatusOpen || len(g.Seats) != 2 || g.Seats[0].PlayerID != ana.Player.ID {
		t.Fatalf("created %+v", g)
	}
	base := "/v1/games/" + g.ID

	// Moves before the game starts are refused.
	ana.call(http.MethodPost, base+"/moves", map[string]string{"notation": "F1 red 1"}).mustStatus(t, http.StatusBadRequest).problem(t)

	// Joining: Ana already sits; Ben takes the free seat; Cy finds none.
	if p := ana.call(http.MethodPost, base+"/join", nil).mustStatus(t, http.StatusForbidden).problem(t); p.Type != ProblemForbidden {
		t.Errorf("double join: %+v", p)
	}
	var joined game
	ben.call(http.MethodPost, base+"/join", nil).mustStatus(t, http.StatusOK).decode(t, &joined)
	if joined.Status != play.StatusActive || len(joined.YourSeats) != 1 || joined.YourSeats[0] != 1 {
		t.Fatalf("after join: %+v", joined)
	}
	cy.call(http.MethodPost, base+"/join", nil).mustStatus(t, http.StatusForbidden).problem(t)

	// The game lists its mover, the ETag is the version, If-None-Match works.
	res := ana.call(http.MethodGet, base, nil).mustStatus(t, http.StatusOK)
	var cur game
	res.decode(t, &cur)
	if res.Header.Get("ETag") != strconv.Quote(strconv.FormatInt(cur.Version, 10)) {
		t.Errorf("ETag %q for version %d", res.Header.Get("ETag"), cur.Version)
	}
	ana.call(http.MethodGet, base, nil, header{"If-None-Match", res.Header.Get("ETag")}).mustStatus(t, http.StatusNotModified)
	ana.call(http.MethodGet, base, nil, header{"If-None-Match", `"1"`}).mustStatus(t, http.StatusOK)
	if len(cur.ToAct) != 1 {
		t.Fatalf("to_act %v", cur.ToAct)
	}
	mover, waiter := ana, ben
	if cur.ToAct[0] == 1 {
		mover, waiter = ben, ana
	}
	moverGame := mover.getGame(g.ID)
	if len(moverGame.LegalMoves) == 0 || len(waiter.getGame(g.ID).LegalMoves) != 0 {
		t.Fatal("only the seat to act has legal moves")
	}

	// The table as text, for terminals.
	text := mover.call(http.MethodGet, base, nil, header{"Accept", "text/plain"}).mustStatus(t, http.StatusOK)
	if !strings.HasPrefix(text.Header.Get("Content-Type"), "text/plain") ||
		!strings.Contains(string(text.Body), "Your legal moves") || !strings.Contains(string(text.Body), moverGame.LegalMoves[0].Notation) {
		t.Errorf("text view:\n%s", text.Body)
	}

	// The state as text: the engine's table alone, now and at a version.
	for _, path := range []string{base + "/state", base + "/state?version=3"} {
		st := env.anonymous(t).call(http.MethodGet, path, nil, header{"Accept", "text/plain"}).mustStatus(t, http.StatusOK)
		body := string(st.Body)
		if !strings.HasPrefix(st.Header.Get("Content-Type"), "text/plain") || !strings.HasPrefix(body, "Azul Mini, 2 players") ||
			strings.Contains(body, "legal moves") || !strings.Contains(strings.Join(st.Header.Values("Vary"), ","), "Accept") {
			t.Errorf("GET %s as text: %v\n%s", path, st.Header, body)
		}
	}

	// Spectators and players list legal moves.
	var lm legalMovesResponse
	mover.call(http.MethodGet, base+"/legal-moves", nil).mustStatus(t, http.StatusOK).decode(t, &lm)
	if len(lm.Moves) != len(moverGame.LegalMoves) || lm.Version != cur.Version {
		t.Errorf("legal-moves %d moves at %d, game %d at %d", len(lm.Moves), lm.Version, len(moverGame.LegalMoves), cur.Version)
	}
	env.anonymous(t).call(http.MethodGet, base+"/legal-moves?seat="+strconv.Itoa(cur.ToAct[0]), nil).mustStatus(t, http.StatusOK)
	env.anonymous(t).call(http.MethodGet, base+"/legal-moves", nil).mustStatus(t, http.StatusUnauthorized).problem(t)
	env.anonymous(t).call(http.MethodGet, base+"/legal-moves?seat=5", nil).mustStatus(t, http.StatusBadRequest).problem(t)

	move := moverGame.LegalMoves[0]
	// Not your turn, not your game, not your seat: 403.
	if p := waiter.call(http.MethodPost, base+"/moves", move.Move).mustStatus(t, http.StatusForbidden).problem(t); p.Type != ProblemNotYourTurn {
		t.Errorf("waiter: %+v", p)
	}
	if p := cy.call(http.MethodPost, base+"/moves", move.Move).mustStatus(t, http.StatusForbidden).problem(t); p.Type != ProblemForbidden {
		t.Errorf("outsider: %+v", p)
	}
	other := 1 - cur.ToAct[0]
	if p := mover.call(http.MethodPost, base+"/moves?seat="+strconv.Itoa(other), move.Move).mustStatus(t, http.StatusForbidden).problem(t); p.Type != ProblemForbidden {
		t.Errorf("someone else's seat: %+v", p)
	}

	// An illegal move names the rule and lists the legal moves.
	colour := absentColour(t, env, g.ID, 0)
	p := mover.call(http.MethodPost, base+"/moves", map[string]any{"type": "take", "factory": 0, "color": colour, "line": 1}).
		mustStatus(t, http.StatusUnprocessableEntity).problem(t)
	if p.Type != ProblemIllegalMove || p.Rule != "azul.no-such-tiles" || !strings.HasPrefix(p.Ref, "docs/rules.md") || len(p.LegalMoves) != len(moverGame.LegalMoves) {
		t.Errorf("illegal move problem: %+v", p)
	}
	// Not a move of this game.
	for _, bad := range []any{map[string]any{"type": "place", "star": 1}, "F99 mauve 9", map[string]any{"type": "take", "factory": "x"}} {
		p := mover.call(http.MethodPost, base+"/moves", bad).mustStatus(t, http.StatusUnprocessableEntity).problem(t)
		if p.Type != ProblemMalformedMove || len(p.LegalMoves) == 0 {
			t.Errorf("%v: %+v", bad, p)
		}
	}
	if v := mover.getGame(g.ID).Version; v != cur.Version {
		t.Fatalf("refused moves changed the game: version %d -> %d", cur.Version, v)
	}

	// A stale If-Match is a conflict; the right one goes through, with an
	// idempotency key.
	stale := mover.call(http.MethodPost, base+"/moves", move.Move, header{"If-Match", `"1"`}).mustStatus(t, http.StatusConflict).problem(t)
	if stale.Type != ProblemVersionConflict || stale.CurrentVersion == nil || *stale.CurrentVersion != cur.Version {
		t.Errorf("stale If-Match: %+v", stale)
	}
	mover.call(http.MethodPost, base+"/moves", move.Move, header{"If-Match", "x"}).mustStatus(t, http.StatusBadRequest).problem(t)
	ifMatch := header{"If-Match", strconv.FormatInt(cur.Version, 10)}
	key := header{"Idempotency-Key", "move-1"}
	first := mover.call(http.MethodPost, base+"/moves", move.Move, ifMatch, key).mustStatus(t, http.StatusCreated)
	var mr moveResponse
	first.decode(t, &mr)
	if mr.Version <= cur.Version || len(mr.Events) == 0 || mr.Events[len(mr.Events)-1].Version != mr.Version {
		t.Fatalf("move result %+v", mr)
	}
	if first.Header.Get("ETag") != strconv.Quote(strconv.FormatInt(mr.CurrentVersion, 10)) {
		t.Errorf("ETag %q, current version %d", first.Header.Get("ETag"), mr.CurrentVersion)
	}
	if mr.Events[0].Meta.Notation != move.Notation || mr.Events[0].Meta.Channel != "api" || mr.Events[0].Meta.CommandID != "move-1" {
		t.Errorf("event meta %+v", mr.Events[0].Meta)
	}
	// The retry replays the first result (even with its now stale If-Match
	// dropped) and writes nothing.
	again := mover.call(http.MethodPost, base+"/moves", move.Move, key).mustStatus(t, http.StatusCreated)
	var mr2 moveResponse
	again.decode(t, &mr2)
	if again.Header.Get("Idempotent-Replayed") != "true" || mr2.Version != mr.Version || len(mr2.Events) != len(mr.Events) {
		t.Errorf("replay: %s", again.Body)
	}
	if v := mover.getGame(g.ID).Version; v != mr.CurrentVersion {
		t.Errorf("the replay wrote: version %d, want %d", v, mr.CurrentVersion)
	}
	// The same key for another move is refused.
	next := mover.getGame(g.ID)
	nextMover := ana
	if next.ToAct[0] == 1 {
		nextMover = ben
	}
	nm := nextMover.getGame(g.ID).LegalMoves[0]
	if nextMover == mover {
		if p := mover.call(http.MethodPost, base+"/moves", nm.Move, key).mustStatus(t, http.StatusUnprocessableEntity).problem(t); p.Type != ProblemIdempotencyMismatch {
			t.Errorf("reused key: %+v", p)
		}
	}

	// Notation as JSON and as text/plain both work.
	nextMover.call(http.MethodPost, base+"/moves", map[string]string{"notation": nm.Notation}).mustStatus(t, http.StatusCreated)
	after := ana.getGame(g.ID)
	m3 := ana
	if after.ToAct[0] == 1 {
		m3 = ben
	}
	m3.call(http.MethodPost, base+"/moves", m3.getGame(g.ID).LegalMoves[0].Notation).mustStatus(t, http.StatusCreated)

	// The turn inbox lists the game for the player to act only, at once
	// (who must act is the move's own write).
	now := ana.getGame(g.ID)
	inbox := func(c *client) turnsResponse {
		var tr turnsResponse
		c.call(http.MethodGet, "/v1/me/turns", nil).mustStatus(t, http.StatusOK).decode(t, &tr)
		return tr
	}
	toAct, idle := ana, ben
	if now.ToAct[0] == 1 {
		toAct, idle = ben, ana
	}
	if tr := inbox(toAct); len(tr.Turns) != 1 || tr.Turns[0].GameID != g.ID {
		t.Errorf("inbox of the player to act: %+v", tr)
	}
	if tr := inbox(idle); len(tr.Turns) != 0 {
		t.Errorf("inbox of the idle player: %+v", tr)
	}

	// The events log pages through every event.
	var all []int64
	next2 := base + "/events?limit=2"
	for next2 != "" {
		var page eventsPage
		env.anonymous(t).call(http.MethodGet, next2, nil).mustStatus(t, http.StatusOK).decode(t, &page)
		for _, e := range page.Events {
			all = append(all, e.Version)
		}
		next2 = page.Next
	}
	if int64(len(all)) != now.Version {
		t.Fatalf("paged %d events, game at version %d", len(all), now.Version)
	}
	for i, v := range all {
		if v != int64(i+1) {
			t.Fatalf("event versions %v", all)
		}
	}
	env.anonymous(t).call(http.MethodGet, base+"/events?limit=0", nil).mustStatus(t, http.StatusBadRequest).problem(t)
	env.anonymous(t).call(http.MethodGet, base+"/state?version=0", nil).mustStatus(t, http.StatusBadRequest).problem(t)
	env.anonymous(t).call(http.MethodGet, base+"/state?version="+strconv.FormatInt(now.Version+1, 10), nil).mustStatus(t, http.StatusBadRequest).problem(t)
	env.anonymous(t).call(http.MethodGet, "/v1/games/"+strings.Repeat("0", 8)+"-0000-0000-0000-000000000000", nil).mustStatus(t, http.StatusNotFound).problem(t)
	env.anonymous(t).call(http.MethodGet, "/v1/games/not-a-uuid/events", nil).mustStatus(t, http.StatusNotFound).problem(t)
}

func TestListGames(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben := env.register(t, "Ana"), env.register(t, "Ben")
	for i := range 3 {
		ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}})
		if i < 2 {
			ben.createGame(play.CreateGame{Ruleset: "summer-pavilion", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}}})
		}
	}
	list := func(q string) gameList {
		var gl gameList
		ana.call(http.MethodGet, "/v1/games"+q, nil).mustStatus(t, http.StatusOK).decode(t, &gl)
		return gl
	}
	if gl := list("?player=me"); len(gl.Games) != 3 {
		t.Errorf("my games: %d", len(gl.Games))
	}
	if gl := list("?ruleset=summer-pavilion"); len(gl.Games) != 2 || gl.Games[0].Status != play.StatusActive {
		t.Errorf("pavilion games: %+v", gl.Games)
	}
	if gl := list("?status=open"); len(gl.Games) != 3 {
		t.Errorf("open games: %d", len(gl.Games))
	}
	if gl := list("?player=" + ben.Player.ID); len(gl.Games) != 2 {
		t.Errorf("Ben's games: %d", len(gl.Games))
	}
	// Paging walks every game once.
	seen := map[string]bool{}
	path := "/v1/games?limit=2"
	for pages := 0; path != ""; pages++ {
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		var gl gameList
		ana.call(http.MethodGet, path, nil).mustStatus(t, http.StatusOK).decode(t, &gl)
		for _, g := range gl.Games {
			if seen[g.ID] {
				t.Errorf("game %s listed twice", g.ID)
			}
			seen[g.ID] = true
		}
		path = gl.Next
	}
	if len(seen) != 5 {
		t.Errorf("paged %d games, want 5", len(seen))
	}
	for _, q := range []string{"?status=lost", "?ruleset=chess", "?player=bob", "?limit=0", "?limit=x", "?cursor=" + strings.Repeat("z", 300)} {
		ana.call(http.MethodGet, "/v1/games"+q, nil).mustStatus(t, http.StatusBadRequest).problem(t)
	}
	env.anonymous(t).call(http.MethodGet, "/v1/games?player=me", nil).mustStatus(t, http.StatusUnauthorized).problem(t)
}

// TestMoveSeatChoice: a player holding several seats names the seat.
func TestMoveSeatChoice(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Options: engine.Options{Wall: "grey"}, Seats: []play.SeatSpec{{Player: "me"}, {Player: "me"}}})
	if len(g.YourSeats) != 2 || g.Status != play.StatusActive {
		t.Fatalf("%+v", g)
	}
	seat := g.ToAct[0]
	var move LegalMove
	for _, m := range g.LegalMoves {
		if m.Seat == seat {
			move = m
			break
		}
	}
	// The legal-moves entry posted back as it is names its seat.
	body, _ := json.Marshal(move)
	res := ana.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", body).mustStatus(t, http.StatusCreated)
	var mr moveResponse
	res.decode(t, &mr)
	if s := mr.Events[0].Meta.Actor.Seat; s == nil || *s != seat {
		t.Errorf("moved for seat %v, want %d", s, seat)
	}
	// Conflicting seats in query and body are refused.
	after := ana.getGame(g.ID)
	m := after.LegalMoves[0]
	body, _ = json.Marshal(map[string]any{"notation": m.Notation, "seat": m.Seat})
	ana.call(http.MethodPost, fmt.Sprintf("/v1/games/%s/moves?seat=%d", g.ID, 1-m.Seat), body).mustStatus(t, http.StatusBadRequest).problem(t)
}
