package play_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/play"
)

// TestHints: in an unrated game the seat that must act gets a legal move
// with reasons, the same for the same version, and the game does not
// change; a hint is refused in a rated game, to the player whose turn it
// is not, to one who holds no seat, and after the end.
func TestHints(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana, ben, cy := e.register(t, "Ana"), e.register(t, "Ben"), e.register(t, "Cy")
	unrated := false
	g, err := e.createAccepted(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Rated: &unrated,
		Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	seat := g.ToAct()[0]
	mover, waiter := ana, ben
	if g.Seats[seat].PlayerID == ben.ID {
		mover, waiter = ben, ana
	}
	h, err := e.svc.Hint(ctx, play.HintRequest{GameID: g.ID, Player: mover})
	if err != nil {
		t.Fatal(err)
	}
	legal := slices.ContainsFunc(g.LegalMoves(seat), func(m engine.Move) bool { return m.Notation == h.Move.Notation })
	if !legal || h.Seat != seat || h.Version != g.Version || len(h.Reasons) == 0 {
		t.Fatalf("hint %+v (legal %v) at seat %d, version %d", h, legal, seat, g.Version)
	}
	again, err := e.svc.Hint(ctx, play.HintRequest{GameID: g.ID, Player: mover, Seat: &seat})
	if err != nil || again.Move.Notation != h.Move.Notation {
		t.Fatalf("the same position's hint: %+v, %v", again, err)
	}
	after, err := e.svc.Game(ctx, g.ID)
	if err != nil || after.Version != g.Version {
		t.Fatalf("a hint changed the game: version %d, %v", after.Version, err)
	}
	for name, c := range map[string]struct {
		req  play.HintRequest
		want error
	}{
		"not your turn": {play.HintRequest{GameID: g.ID, Player: waiter}, engine.ErrNotYourTurn},
		"not your seat": {play.HintRequest{GameID: g.ID, Player: waiter, Seat: &seat}, play.ErrForbidden},
		"no seat":       {play.HintRequest{GameID: g.ID, Player: cy}, play.ErrForbidden},
	} {
		if _, err := e.svc.Hint(ctx, c.req); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", name, err, c.want)
		}
	}

	rated, err := e.createAccepted(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: bots.Level2}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Hint(ctx, play.HintRequest{GameID: rated.ID, Player: ana}); !errors.Is(err, play.ErrHintsOff) {
		t.Fatalf("a hint in a rated game: %v", err)
	}
	over, err := e.createAccepted(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Rated: &unrated, Seats: []play.SeatSpec{{Player: "me"}, {Bot: bots.Level1}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Move(ctx, playerMove(over, ana, `{"type":"resign"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Hint(ctx, play.HintRequest{GameID: over.ID, Player: ana}); !errors.Is(err, engine.ErrGameOver) {
		t.Fatalf("a hint after the end: %v", err)
	}
}
