package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/play"
)

// TestMovesAndTableInThePlayersWords: a move posted as text/plain may be
// in the player's words; an ambiguous one is refused with its candidates
// and changes nothing; the text/plain table is in the reader's words.
func TestMovesAndTableInThePlayersWords(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben := env.register(t, "Ana"), env.register(t, "Ben")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	base := "/v1/games/" + g.ID
	words, err := notation.New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}

	// The table as text in German: the rulebook's words, the legal
	// moves in German words.
	text := string(ana.call(http.MethodGet, base, nil, header{"Accept", "text/plain"}, header{"Accept-Language", "de"}).mustStatus(t, http.StatusOK).Body)
	for _, want := range []string{"Partie " + g.ID, "Musterreihen", "Bodenreihe", "Startspielermarker", "Deine erlaubten Züge", "Platz 0: F1 "} {
		if !strings.Contains(text, want) {
			t.Errorf("German table lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "floor") || strings.Contains(text, "Your legal") {
		t.Errorf("German table has English:\n%s", text)
	}

	// An ambiguous Italian initial (b: blu or bianco) is refused, in
	// Italian, and the game does not move.
	res := ana.call(http.MethodPost, base+"/moves", "F1 b 1", header{"Accept-Language", "it"})
	res.mustStatus(t, http.StatusUnprocessableEntity)
	if p := res.problem(t); p.Type != ProblemMalformedMove || !strings.Contains(p.Detail, "blu o bianco") {
		t.Errorf("ambiguous move: %+v", p)
	}
	if v := ana.getGame(g.ID).Version; v != g.Version {
		t.Fatalf("a refused move changed the game: version %d, was %d", v, g.Version)
	}

	// The first legal move, said in Dutch, is played.
	first := g.LegalMoves[0].Notation
	dutch := words.Say("nl", "azul-mini", first)
	if dutch == first {
		t.Fatalf("%q has no Dutch words", first)
	}
	ana.call(http.MethodPost, base+"/moves", dutch, header{"Accept-Language", "nl"}).mustStatus(t, http.StatusCreated)
	var log struct {
		Events []auditEvent `json:"events"`
	}
	ana.call(http.MethodGet, base+"/events", nil, header{"Accept-Language", "nl"}).mustStatus(t, http.StatusOK).decode(t, &log)
	last := log.Events[len(log.Events)-1]
	if last.Meta.Notation != first {
		t.Errorf("the log keeps %q, want the notation %q", last.Meta.Notation, first)
	}
	if !strings.HasPrefix(last.Description, "Ana ") || strings.Contains(last.Description, " took ") {
		t.Errorf("Dutch description %q", last.Description)
	}
}
