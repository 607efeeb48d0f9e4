package mailin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// TestTakebackByEmail: a player asks by mail to take back a move, the other
// player is asked by mail and consents by mail, and the game goes back;
// answering when nothing is pending changes nothing and is answered.
func TestTakebackByEmail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	players := map[int]play.Player{0: ana, 1: ben}
	first := g.ToAct()[0]
	mover, other := players[first], players[1-first]

	// Nothing to answer yet: the reply is refused and the log stays.
	start := e.TurnMail(g.ID, first, g.Version)
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, start), start.Header.Get("Message-Id"), "", "accept"); err != nil {
		t.Fatal(err)
	}
	e.Relay.Wait(t, "refusal of an answer with nothing pending", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindRefused) && m.To[0] == mover.Email && strings.Contains(m.Text, "no take-back request")
	})
	if v := e.EventCount(g.ID); v != g.Version {
		t.Fatalf("a refused answer changed the log: version %d, want %d", v, g.Version)
	}

	// The first player moves, then asks by mail to take it back.
	before := g
	res, err := e.Svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: mover.ID},
		Move: g.LegalMoves(first)[0].JSON, Channel: "api"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, start), start.Header.Get("Message-Id"), "", "undo"); err != nil {
		t.Fatal(err)
	}
	asked := e.Relay.Wait(t, "take-back request to the other player", func(m outMail) bool {
		return m.Kind == compose.KindTakeback && m.To[0] == other.Email
	})
	if !strings.Contains(asked.Text, mover.Name) || !strings.Contains(asked.Text, "accept") {
		t.Fatalf("the request mail does not say who asks and how to answer:\n%s", asked.Text)
	}
	requested, err := e.Svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p := requested.PendingTakeback(); p == nil || p.ToVersion != before.Version {
		t.Fatalf("pending take-back %+v, want one back to version %d", p, before.Version)
	}

	// The other player consents by answering that mail.
	if err := e.SendReply(other.Email, mailtest.ReplyTo(t, asked), asked.Header.Get("Message-Id"), "", "Accept."); err != nil {
		t.Fatal(err)
	}
	after := e.WaitVersion(g.ID, requested.Version)
	if p := after.PendingTakeback(); p != nil {
		t.Fatalf("the take-back is still pending: %+v", p)
	}
	if a, b := viewOf(t, after), viewOf(t, before); a != b {
		t.Fatalf("after the take-back the table differs from before the move:\n%s\n%s", a, b)
	}
	recs, err := e.Svc.Events(ctx, g.ID, res.Version, 0)
	if err != nil {
		t.Fatal(err)
	}
	last := recs[len(recs)-1]
	if last.Type != play.EvTakenBack || last.Meta.Channel != "email" {
		t.Fatalf("last event %s by %q, want %s by email", last.Type, last.Meta.Channel, play.EvTakenBack)
	}
	// The mover's turn comes back, and is announced again, with the
	// take-back told and the undone move not.
	again := e.TurnMail(g.ID, first, after.Version)
	text := strings.Join(strings.Fields(again.Text), " ")
	if !strings.Contains(text, fmt.Sprintf("A take-back was agreed: the game went back to version %d.", before.Version)) || strings.Contains(text, mover.Name+" took ") {
		t.Fatalf("the turn mail after the take-back does not tell it, or tells the undone move:\n%s", again.Text)
	}
}

// viewOf is the engine's part of a game's state JSON.
func viewOf(t *testing.T, g *play.Game) string {
	t.Helper()
	b, err := json.Marshal(g.State.View())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTakebackByEmailRefusedWhenOff: "undo" by mail in a game created
// without take-backs is refused by mail, saying so, and the log stays.
func TestTakebackByEmailRefusedWhenOff(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	off := false
	g, err := mailtest.CreateAccepted(ctx, e.Svc, ana, play.CreateGame{Ruleset: "summer-pavilion", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}},
		Seed: strings.Repeat("5b", 32), Takebacks: &off}, "")
	if err != nil {
		t.Fatal(err)
	}
	players := map[int]play.Player{0: ana, 1: ben}
	first := g.ToAct()[0]
	mover := players[first]
	start := e.TurnMail(g.ID, first, g.Version)
	res, err := e.Svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: mover.ID},
		Move: g.LegalMoves(first)[0].JSON, Channel: "api"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, start), start.Header.Get("Message-Id"), "", "undo"); err != nil {
		t.Fatal(err)
	}
	e.Relay.Wait(t, "refusal of a take-back in a game without them", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindRefused) && m.To[0] == mover.Email && strings.Contains(m.Text, "created without take-backs")
	})
	if v := e.EventCount(g.ID); v != res.Version {
		t.Fatalf("a refused take-back changed the log: version %d, want %d", v, res.Version)
	}
}
