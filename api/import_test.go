package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// TestImportNamesNobodyHere: an exported log is a file anyone can write.
// A forged one that seats a player of this server (by their id) adds
// nothing to that player: not to their profile's results and games, not
// to their turn inbox, not to the game lists filtered by them. The
// imported game still verifies and replays, with seats that belong to
// nobody (not even the importer).
func TestImportNamesNobodyHere(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, bea, cy := env.register(t, "Ana"), env.register(t, "Bea"), env.register(t, "Cy")
	anon := env.anonymous(t)
	ndjson := header{"Content-Type", MIMEJSONLines}

	// A public seed lets a running game be imported too. Ana's seat is
	// to act; the forged log gives it to Cy.
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seed: strings.Repeat("3c", 32),
		Visibility: play.VisibilityPrivate, Seats: []play.SeatSpec{{Player: "me"}, {Player: bea.Player.ID}}})
	forge := func() []byte {
		t.Helper()
		body := string(ana.call(http.MethodGet, "/v1/games/"+g.ID+"/export", nil).mustStatus(t, http.StatusOK).Body)
		if !strings.Contains(body, ana.Player.ID) {
			t.Fatal("the export does not name Ana")
		}
		return []byte(strings.ReplaceAll(body, ana.Player.ID, cy.Player.ID))
	}
	var running game
	bea.call(http.MethodPost, "/v1/games/import", forge(), ndjson).mustStatus(t, http.StatusCreated).decode(t, &running)
	if running.Status != play.StatusActive || !running.Imported || len(running.YourSeats) != 0 {
		t.Fatalf("the imported running game: %+v", running)
	}
	// Its seats are nobody's: no id of this server, no name. Nobody could
	// read a private one, so an import is public.
	for _, s := range running.Seats {
		if !s.Imported || !projections.ImportedPlayer(s.PlayerID) || s.Name != "" {
			t.Errorf("imported seat %+v", s)
		}
	}
	var vis struct {
		Visibility string `json:"visibility"`
	}
	anon.call(http.MethodGet, "/v1/games/"+running.ID, nil).mustStatus(t, http.StatusOK).decode(t, &vis)
	if vis.Visibility != play.VisibilityPublic {
		t.Errorf("the import is %q", vis.Visibility)
	}
	// Cy cannot move in it, and it is not his turn.
	cy.call(http.MethodPost, "/v1/games/"+running.ID+"/moves", map[string]string{"type": "resign"}).mustStatus(t, http.StatusForbidden)

	// The original game ends; its forged log is imported.
	ana.resign(g.ID)
	var done game
	bea.call(http.MethodPost, "/v1/games/import", forge(), ndjson).mustStatus(t, http.StatusCreated).decode(t, &done)
	if done.Status != play.StatusFinished || !done.Imported || done.Rated {
		t.Fatalf("the imported finished game: %+v", done)
	}
	env.caughtUp(t)

	var turns turnsResponse
	cy.call(http.MethodGet, "/v1/me/turns", nil).mustStatus(t, http.StatusOK).decode(t, &turns)
	if len(turns.Turns) != 0 {
		t.Errorf("Cy's turns hold an imported game: %+v", turns.Turns)
	}
	p := anon.publicProfile(cy.Player.ID)
	if len(p.Results) != 0 || len(p.RecentGames) != 0 || len(p.RunningGames) != 0 {
		t.Errorf("Cy's profile counts an imported game: %+v", p)
	}
	for _, who := range []*client{anon, cy, bea} {
		var list gameList
		who.call(http.MethodGet, "/v1/games?player="+cy.Player.ID, nil).mustStatus(t, http.StatusOK).decode(t, &list)
		if len(list.Games) != 0 {
			t.Errorf("the games of Cy list %d games", len(list.Games))
		}
	}
	var mine gameList
	cy.call(http.MethodGet, "/v1/games?player=me", nil).mustStatus(t, http.StatusOK).decode(t, &mine)
	if len(mine.Games) != 0 {
		t.Errorf("Cy's own games list %d games", len(mine.Games))
	}
	// Nor the importer's: Bea imported a record, she did not play it.
	if p := bea.publicProfile(bea.Player.ID); len(p.Results) != 1 || len(p.RecentGames) != 1 || p.RecentGames[0].ID != g.ID {
		t.Errorf("Bea's profile: %+v", p)
	}

	// It verifies and replays; its log names no player of this server.
	var v play.Verification
	anon.call(http.MethodGet, "/v1/games/"+done.ID+"/verify", nil).mustStatus(t, http.StatusOK).decode(t, &v)
	if v.Result != play.VerifyPass {
		t.Fatalf("verify of the import: %+v %+v", v, v.Mismatch)
	}
	anon.call(http.MethodGet, "/v1/games/"+done.ID+"/state?version=3", nil).mustStatus(t, http.StatusOK)
	log := string(anon.call(http.MethodGet, "/v1/games/"+done.ID+"/events", nil).mustStatus(t, http.StatusOK).Body)
	for _, id := range []string{ana.Player.ID, bea.Player.ID, cy.Player.ID} {
		if strings.Contains(log, id) {
			t.Errorf("the imported log names %s", id)
		}
	}
	for _, name := range []string{"Ana", "Bea", "Cy"} {
		if strings.Contains(log, name) {
			t.Errorf("the imported log's descriptions name %s", name)
		}
	}
}
