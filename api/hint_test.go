package api

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// hintResponse is the body of GET /v1/games/{id}/hint.
type hintResponse struct {
	Version  int64  `json:"version"`
	Seat     int    `json:"seat"`
	Notation string `json:"notation"`
	Reasons  []struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
	} `json:"reasons"`
}

// TestHintEndpoint: on her turn in an unrated game Ana gets a legal move
// with reasons in words (in her language), which she may then play; a
// visitor is asked to sign in, another player is refused (a private
// game's stranger finds no game, as everywhere), a hint is
// refused when it is not her turn and in a rated game (409 hints-off,
// saying why), and none of it changes the game.
func TestHintEndpoint(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, bea := env.register(t, "Ana"), env.register(t, "Bea")
	unrated := false
	// Public, so that others may see it and be refused for who they are.
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Rated: &unrated, Visibility: play.VisibilityPublic,
		Seats: []play.SeatSpec{{Player: "me"}, {Bot: bots.Level1}}})
	path := "/v1/games/" + g.ID + "/hint"
	var h hintResponse
	ana.call(http.MethodGet, path, nil).mustStatus(t, http.StatusOK).decode(t, &h)
	legal := slices.ContainsFunc(g.LegalMoves, func(m LegalMove) bool { return m.Seat == 0 && m.Notation == h.Notation })
	if !legal || h.Seat != 0 || h.Version != g.Version || len(h.Reasons) == 0 {
		t.Fatalf("hint %+v (legal %v) at version %d", h, legal, g.Version)
	}
	for _, r := range h.Reasons {
		if r.Kind == "" || r.Text == "" || strings.Contains(r.Text, "tell.") {
			t.Errorf("reason %+v", r)
		}
	}
	var nl hintResponse
	ana.call(http.MethodGet, path, nil, header{"Accept-Language", "nl"}).mustStatus(t, http.StatusOK).decode(t, &nl)
	if nl.Notation != h.Notation || len(nl.Reasons) != len(h.Reasons) || nl.Reasons[0].Text == h.Reasons[0].Text {
		t.Errorf("the same hint in Dutch: %+v, in English %+v", nl, h)
	}

	env.anonymous(t).call(http.MethodGet, path, nil).mustStatus(t, http.StatusUnauthorized).problem(t)
	private := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Rated: &unrated, Seats: []play.SeatSpec{{Player: "me"}, {Bot: bots.Level1}}})
	bea.call(http.MethodGet, "/v1/games/"+private.ID+"/hint", nil).mustStatus(t, http.StatusNotFound).problem(t)
	if p := bea.call(http.MethodGet, path, nil).mustStatus(t, http.StatusForbidden).problem(t); p.Type != ProblemForbidden {
		t.Errorf("another player: %+v", p)
	}
	if p := ana.call(http.MethodGet, path+"?seat=1", nil).mustStatus(t, http.StatusForbidden).problem(t); p.Type != ProblemForbidden {
		t.Errorf("the bot's seat: %+v", p)
	}
	// Ana plays the hint; the bot answers at once (level 1 is quick).
	ana.call(http.MethodPost, "/v1/games/"+g.ID+"/moves", map[string]string{"notation": h.Notation}).mustStatus(t, http.StatusCreated)

	// A rated game against a bot: Ana's turn, and still no hint.
	rated := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: bots.Level1}}})
	if !rated.Rated || len(rated.ToAct) != 1 || rated.ToAct[0] != 0 {
		t.Fatalf("rated game %+v", rated)
	}
	p := ana.call(http.MethodGet, "/v1/games/"+rated.ID+"/hint", nil).mustStatus(t, http.StatusConflict).problem(t)
	if p.Type != ProblemHintsOff || !strings.Contains(p.Detail, "rated") {
		t.Errorf("a hint in a rated game: %+v", p)
	}
	var after game
	ana.call(http.MethodGet, "/v1/games/"+rated.ID, nil).mustStatus(t, http.StatusOK).decode(t, &after)
	if after.Version != rated.Version {
		t.Fatalf("a refused hint changed the game: version %d, was %d", after.Version, rated.Version)
	}
}

// TestHintsAreLimited: past the hints limit a hint is a 429 naming it;
// a refused hint (a rated game) uses up nothing.
func TestHintsAreLimited(t *testing.T) {
	t.Parallel()
	env := newLimitedEnv(t, map[string]string{limits.Hints: "2/h"})
	ana := env.register(t, "Ana")
	unrated := false
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Rated: &unrated, Seats: []play.SeatSpec{{Player: "me"}, {Bot: bots.Level1}}})
	rated := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: bots.Level1}}})
	for range 3 {
		ana.call(http.MethodGet, "/v1/games/"+rated.ID+"/hint", nil).mustStatus(t, http.StatusConflict)
	}
	for range 2 {
		ana.call(http.MethodGet, "/v1/games/"+g.ID+"/hint", nil).mustStatus(t, http.StatusOK)
	}
	mustBeLimited(t, ana.call(http.MethodGet, "/v1/games/"+g.ID+"/hint", nil), limits.Hints)
}
