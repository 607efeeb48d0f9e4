package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/play"
)

func ptr[T any](v T) *T { return &v }

// gameRoute is one route that reads or acts on a game, as a stranger
// would call it.
type gameRoute struct {
	method, path string
	body         any
}

// gameRoutes are every route under /v1/games/{id} and the game's web
// pages ({id} is replaced).
var strangerRoutes = []gameRoute{
	{"GET", "/v1/games/{id}", nil},
	{"GET", "/v1/games/{id}/events", nil},
	{"GET", "/v1/games/{id}/state", nil},
	{"GET", "/v1/games/{id}/state?version=2", nil},
	{"GET", "/v1/games/{id}/stream", nil},
	{"GET", "/v1/games/{id}/diff?from=1&to=2", nil},
	{"GET", "/v1/games/{id}/rounds", nil},
	{"GET", "/v1/games/{id}/export", nil},
	{"GET", "/v1/games/{id}/verify", nil},
	{"GET", "/v1/games/{id}/analysis?version=2", nil},
	{"GET", "/v1/games/{id}/legal-moves?seat=0", nil},
	{"GET", "/v1/games/{id}/takebacks", nil},
	{"GET", "/v1/games/{id}/takebacks/1", nil},
	{"POST", "/v1/games/{id}/takebacks", map[string]any{}},
	{"POST", "/v1/games/{id}/takebacks/1/accept", map[string]any{}},
	{"POST", "/v1/games/{id}/takebacks/1/decline", map[string]any{}},
	{"POST", "/v1/games/{id}/moves", map[string]any{"type": "resign"}},
	{"POST", "/v1/games/{id}/join", map[string]any{}},
	{"GET", "/games/{id}", nil},
	{"GET", "/games/{id}/replay", nil},
	{"GET", "/games/{id}/replay?version=2", nil},
}

var (
	requestIDField = regexp.MustCompile(`"request_id":"[0-9a-f]+"`)
	// A visitor's page carries a fresh CSRF token each time.
	csrfToken = regexp.MustCompile(`(name="csrf-token" content|name="csrf" value)="[a-z0-9]+"`)
)

// sameAsUnknown fails unless a response is the 404 of a game that does
// not exist, byte for byte but for the id and the request id.
func sameAsUnknown(t *testing.T, what string, got, unknown response, id, unknownID string) {
	t.Helper()
	norm := func(b []byte, id string) string {
		s := strings.ReplaceAll(string(b), id, "<id>")
		s = csrfToken.ReplaceAllString(s, `$1=""`)
		return requestIDField.ReplaceAllString(s, `"request_id":""`)
	}
	if got.Status != http.StatusNotFound {
		t.Errorf("%s: status %d, want 404: %.200s", what, got.Status, got.Body)
		return
	}
	if g, u := norm(got.Body, id), norm(unknown.Body, unknownID); g != u {
		i := 0
		for i < len(g) && i < len(u) && g[i] == u[i] {
			i++
		}
		t.Errorf("%s: the 404 differs from an unknown game's at %d:\n%.300s\n%.300s", what, i, g[max(0, i-100):], u[max(0, i-100):])
	}
	if got.Header.Get("Content-Type") != unknown.Header.Get("Content-Type") {
		t.Errorf("%s: content type %q, an unknown game's %q", what, got.Header.Get("Content-Type"), unknown.Header.Get("Content-Type"))
	}
}

func routePath(r gameRoute, id string) string { return strings.ReplaceAll(r.path, "{id}", id) }

// TestPrivateGameIsNotFoundToStrangers: once every seat of a private game
// is taken, every route of the game answers a stranger (no token, or a
// player without a seat) exactly as for a game that does not exist; its
// players read it; while a seat is free, anyone with the id may read it
// and join; the lists show it to its players only.
func TestPrivateGameIsNotFoundToStrangers(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben, cy := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Cy")
	anon := env.anonymous(t)

	// Private while a seat is free: the id is the invitation.
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Rated: ptr(false), Seats: []play.SeatSpec{{Player: "me"}, {}}})
	anon.call(http.MethodGet, "/v1/games/"+g.ID, nil).mustStatus(t, http.StatusOK)
	anon.call(http.MethodGet, "/games/"+g.ID, nil).mustStatus(t, http.StatusOK)
	var joined game
	ben.call(http.MethodPost, "/v1/games/"+g.ID+"/join", nil).mustStatus(t, http.StatusOK).decode(t, &joined)
	if joined.Status != play.StatusActive {
		t.Fatalf("joined game is %s", joined.Status)
	}
	// A move, so that version 2 and a move exist.
	mover := ana
	if joined.Seats[joined.ToAct[0]].PlayerID == ben.Player.ID {
		mover = ben
	}
	legal := mover.getGame(g.ID).LegalMoves[0]
	mover.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", map[string]any{"move": legal.Move}).mustStatus(t, http.StatusCreated)

	unknownID := "0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f"
	for _, r := range strangerRoutes {
		unknown := anon.call(r.method, routePath(r, unknownID), r.body)
		for _, who := range []struct {
			name string
			c    *client
		}{{"anonymous", anon}, {"a player without a seat", cy}} {
			got := who.c.call(r.method, routePath(r, g.ID), r.body)
			unknownToThem := who.c.call(r.method, routePath(r, unknownID), r.body)
			sameAsUnknown(t, who.name+" "+r.method+" "+r.path, got, unknownToThem, g.ID, unknownID)
		}
		if unknown.Status != http.StatusNotFound {
			t.Errorf("%s %s of an unknown game: %d", r.method, r.path, unknown.Status)
		}
	}
	// No other spelling of the id slips past (the pages take capitals).
	for _, path := range []string{"/games/" + strings.ToUpper(g.ID), "/v1/games/" + strings.ToUpper(g.ID), "/games/" + strings.ToUpper(g.ID) + "/replay"} {
		if res := anon.call(http.MethodGet, path, nil); res.Status != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", path, res.Status)
		}
	}
	// The players read it (the stream aside: it would not end).
	for _, p := range []*client{ana, ben} {
		for _, r := range strangerRoutes {
			if r.method != http.MethodGet || strings.HasSuffix(r.path, "/stream") {
				continue
			}
			// (Take-back 1 does not exist: its 404 is about the take-back.)
			if res := p.call(r.method, routePath(r, g.ID), nil); res.Status == http.StatusNotFound && !bytes.Contains(res.Body, []byte("no take-back")) {
				t.Errorf("%s: %s %s is 404 to a seated player: %s", p.Player.Name, r.method, r.path, res.Body)
			}
		}
	}
	ana.call(http.MethodGet, "/v1/games/"+g.ID+"/export", nil).mustStatus(t, http.StatusOK)

	// Lists: its players only.
	listed := func(c *client, query string) bool {
		var list struct {
			Games []struct {
				ID         string `json:"id"`
				Visibility string `json:"visibility"`
				Rated      bool   `json:"rated"`
			} `json:"games"`
		}
		c.call(http.MethodGet, "/v1/games"+query, nil).mustStatus(t, http.StatusOK).decode(t, &list)
		for _, x := range list.Games {
			if x.ID == g.ID {
				if x.Visibility != "private" || x.Rated {
					t.Errorf("listed as %s, rated %v", x.Visibility, x.Rated)
				}
				return true
			}
		}
		return false
	}
	for _, c := range []struct {
		c     *client
		query string
		want  bool
	}{
		{anon, "", false}, {anon, "?player=" + ana.Player.ID, false}, {cy, "", false}, {cy, "?status=active", false},
		{ana, "", true}, {ben, "?player=me", true}, {ana, "?status=active", true},
	} {
		if got := listed(c.c, c.query); got != c.want {
			t.Errorf("%q lists the private game to %q: %v, want %v", c.query, c.c.Player.Name, got, c.want)
		}
	}
}

// TestPublicGameIsReadByAnyone: the same routes of a public game answer
// a visitor (no 404), and the state shows the settings.
func TestPublicGameIsReadByAnyone(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "greedy"}}})
	anon := env.anonymous(t)
	var state struct {
		Rated      bool   `json:"rated"`
		Visibility string `json:"visibility"`
		Takebacks  bool   `json:"takebacks"`
		YourSeats  []int  `json:"your_seats"`
		LegalMoves []any  `json:"legal_moves"`
	}
	anon.call(http.MethodGet, "/v1/games/"+g.ID, nil).mustStatus(t, http.StatusOK).decode(t, &state)
	if !state.Rated || state.Visibility != "public" || state.Takebacks || len(state.YourSeats) != 0 || len(state.LegalMoves) != 0 {
		t.Errorf("a visitor reads %+v", state)
	}
	for _, path := range []string{"/v1/games/" + g.ID + "/events", "/v1/games/" + g.ID + "/rounds", "/games/" + g.ID, "/games/" + g.ID + "/replay"} {
		anon.call(http.MethodGet, path, nil).mustStatus(t, http.StatusOK)
	}
	// A rated game refuses take-backs, with its own problem.
	p := ana.call(http.MethodPost, "/v1/games/"+g.ID+"/takebacks", map[string]any{}).mustStatus(t, http.StatusConflict).problem(t)
	if p.Type != ProblemTakebacksOff || !strings.Contains(p.Detail, "without take-backs") {
		t.Errorf("take-back in a rated game: %+v", p)
	}
	// A seeded game asked to be rated is refused and says why.
	p = ana.call(http.MethodPost, "/v1/games", play.CreateGame{Ruleset: "azul-mini", Seed: strings.Repeat("ab", 32), Rated: ptr(true),
		Seats: []play.SeatSpec{{Player: "me"}, {Bot: "greedy"}}}).mustStatus(t, http.StatusBadRequest).problem(t)
	if !strings.Contains(p.Detail, "public seed cannot be rated") {
		t.Errorf("rated with a seed: %+v", p)
	}
}

// TestWatchListOverHTTP: ?watch=1 lists the running public games, the
// best-rated seat first, then the latest move, in pages; private,
// finished and open games are not on it.
func TestWatchListOverHTTP(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben, cy, dan := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Cy"), env.register(t, "Dan")
	// Ben is rated in two-player Azul Mini; the others are not.
	if _, err := env.pool.Exec(t.Context(), `INSERT INTO ratings (ruleset, players, subject, player_id, mu, sigma, games, last_game_at)
		VALUES ('azul-mini', 2, $1::text, $1::uuid, 30, 2, 20, now())`, ben.Player.ID); err != nil {
		t.Fatal(err)
	}
	greedy := play.SeatSpec{Bot: "greedy"}
	cyGame := cy.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, greedy}})
	benGame := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	danGame := dan.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, greedy}}) // latest move among the 0s
	private := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Visibility: "private", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	finished := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{greedy, {Bot: "random"}}})
	open := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}})
	if finished.Status != play.StatusFinished || open.Status != play.StatusOpen {
		t.Fatalf("statuses %s, %s", finished.Status, open.Status)
	}
	var got []string
	next := "/v1/games?watch=1&limit=2"
	for pages := 0; next != ""; pages++ {
		var page struct {
			Games []struct {
				ID string `json:"id"`
			} `json:"games"`
			Next string `json:"next"`
		}
		env.anonymous(t).call(http.MethodGet, next, nil).mustStatus(t, http.StatusOK).decode(t, &page)
		for _, g := range page.Games {
			got = append(got, g.ID)
		}
		if next = page.Next; pages > 4 {
			t.Fatal("no end")
		}
	}
	want := []string{benGame.ID, danGame.ID, cyGame.ID}
	if !slices.Equal(got, want) {
		t.Fatalf("watch list %v, want %v (private %s, finished %s, open %s)", got, want, private.ID, finished.ID, open.ID)
	}
	for _, bad := range []string{"?watch=2", "?watch=1&status=active", "?watch=1&player=me"} {
		res := ana.call(http.MethodGet, "/v1/games"+bad, nil).mustStatus(t, http.StatusBadRequest)
		if !bytes.Contains(res.Body, []byte("watch")) {
			t.Errorf("%s: %s", bad, res.Body)
		}
	}
}

// TestUnratedGameLeavesRatingsUnchanged: a finished unrated game changes
// no rating; a rated one does (the check could fail).
func TestUnratedGameLeavesRatingsUnchanged(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	bots := []play.SeatSpec{{Bot: "greedy"}, {Bot: "random"}}
	count := func() (n int) {
		env.caughtUp(t)
		if err := env.pool.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM ratings) + (SELECT count(*) FROM rating_history)`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Rated: ptr(false), Visibility: "public", Seats: bots})
	if g.Status != play.StatusFinished {
		t.Fatalf("bots-only game is %s", g.Status)
	}
	if n := count(); n != 0 {
		t.Fatalf("an unrated game wrote %d rating rows", n)
	}
	ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: bots})
	if n := count(); n != 4 {
		t.Fatalf("a rated game wrote %d rating rows, want 4", n)
	}
	var list json.RawMessage
	env.anonymous(t).call(http.MethodGet, "/v1/ratings?ruleset=azul-mini&players=2&provisional=1", nil).mustStatus(t, http.StatusOK).decode(t, &list)
}
