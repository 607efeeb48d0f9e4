package mailin_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// TestRematchByEmail: the game-over mail says how to have a rematch (in
// each reader's language); a German player's "Revanche" to it creates the
// rematch and is answered; the other player is invited by mail, a
// stranger's "accept" to that invitation changes nothing, and the
// player's own "yes" takes the seat: the rematch starts.
func TestRematchByEmail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana := e.Register("Ana")
	ben, _, err := e.Svc.RegisterPlayer(ctx, "Ben", "ben@example.org", play.Preferences{Language: "de"})
	if err != nil {
		t.Fatal(err)
	}
	g := e.NewPavilion(ana, ben, nil)
	old := e.EndByResignation(g)

	over := map[string]outMail{}
	for _, p := range []play.Player{ana, ben} {
		over[p.Name] = e.Relay.Wait(t, "game over to "+p.Name, func(m outMail) bool {
			return m.Kind == compose.KindGameOver && m.Game == old.ID && m.To[0] == p.Email
		})
	}
	if text := mailtest.Flat(over["Ana"].Text); !strings.Contains(text, "Another game? Reply “rematch” and the same players are invited to a rematch") {
		t.Fatalf("Ana's game-over mail does not offer a rematch:\n%s", over["Ana"].Text)
	}
	if text := mailtest.Flat(over["Ben"].Text); !strings.Contains(text, "Noch eine Partie? Antworte „Revanche“") {
		t.Fatalf("Ben's game-over mail does not offer a rematch in German:\n%s", over["Ben"].Text)
	}
	t.Logf("game over, en:\n%s", over["Ana"].Text)
	t.Logf("game over, de:\n%s", over["Ben"].Text)

	// Ben asks in his words.
	if err := e.SendReply(ben.Email, mailtest.ReplyTo(t, over["Ben"]), over["Ben"].Header.Get("Message-Id"), "", "Revanche!"); err != nil {
		t.Fatal(err)
	}
	invitation := e.Relay.Wait(t, "the rematch invitation to Ana", func(m outMail) bool {
		return m.Kind == compose.KindRematch && m.To[0] == ana.Email
	})
	created := e.Relay.Wait(t, "the answer to Ben's request", func(m outMail) bool {
		return m.Kind == compose.KindRematchCreated && m.To[0] == ben.Email
	})
	t.Logf("invitation, en:\n%s", invitation.Text)
	t.Logf("answer to the request, de:\n%s", created.Text)
	if text := mailtest.Flat(invitation.Text); !strings.Contains(text, "Ben asks for a rematch of Azul: Summer Pavilion") || !strings.Contains(text, "Reply “accept” (or “yes”) to play") {
		t.Fatalf("the invitation does not say who asks and how to answer:\n%s", invitation.Text)
	}
	if text := mailtest.Flat(created.Text); !strings.Contains(text, "Deine Revanche steht bereit") || !strings.Contains(text, "Die Revanche wartet darauf, dass Ana annimmt") {
		t.Fatalf("the answer to Ben does not name the rematch and whom it waits for:\n%s", created.Text)
	}
	linked, err := e.Svc.Game(ctx, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	rematch, err := e.Svc.Game(ctx, linked.Rematch)
	if err != nil || linked.Rematch == "" || invitation.Game != rematch.ID {
		t.Fatalf("the invitation is about game %s, the rematch is %q (%v)", invitation.Game, linked.Rematch, err)
	}
	recs, err := e.Svc.Events(ctx, rematch.ID, 0, 1)
	if err != nil || recs[0].Meta.Channel != "email" || recs[0].Meta.Actor.PlayerID != ben.ID {
		t.Fatalf("the rematch's first event: %+v %v", recs, err)
	}

	// A stranger answers Ana's invitation: nothing happens.
	if err := e.SendReply("mallory@example.org", mailtest.ReplyTo(t, invitation), invitation.Header.Get("Message-Id"), "", "accept"); err != nil {
		t.Fatal(err)
	}
	// Ana answers with another word: she is told what she may answer.
	if err := e.SendReply(ana.Email, mailtest.ReplyTo(t, invitation), invitation.Header.Get("Message-Id"), "", "F1 red 1"); err != nil {
		t.Fatal(err)
	}
	refusal := e.Relay.Wait(t, "the refusal of a move to an invitation", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindRefused) && m.To[0] == ana.Email && m.Game == rematch.ID
	})
	if !strings.Contains(mailtest.Flat(refusal.Text), "this is an invitation to a rematch: reply “accept” to play or “decline” to say no") {
		t.Fatalf("the refusal does not say how to answer:\n%s", refusal.Text)
	}
	if v := e.EventCount(rematch.ID); v != rematch.Version {
		t.Fatalf("the stranger's and the refused answers changed the rematch: version %d, want %d", v, rematch.Version)
	}
	// Her own "yes" takes the seat: the rematch starts.
	if err := e.SendReply(ana.Email, mailtest.ReplyTo(t, invitation), invitation.Header.Get("Message-Id"), "", "Yes, please."); err != nil {
		t.Fatal(err)
	}
	started := e.WaitVersion(rematch.ID, rematch.Version)
	if started.Status != play.StatusActive || len(started.SeatsOf(ana.ID)) != 1 {
		t.Fatalf("after Ana's yes the rematch is %s with seats %+v", started.Status, started.Seats)
	}
	// Rotation: Ana sat at 0 and Ben at 1; now Ben at 0, Ana at 1.
	if started.Seats[0].PlayerID != ben.ID || started.Seats[1].PlayerID != ana.ID {
		t.Fatalf("seats of the rematch: %+v", started.Seats)
	}
	e.Relay.Wait(t, "the rematch's first mail to Ana", func(m outMail) bool {
		return (m.Kind == compose.KindTurn || m.Kind == compose.KindStarted) && m.Game == rematch.ID && m.To[0] == ana.Email
	})
	for _, m := range e.Relay.All() {
		if slices.Contains(m.To, "mallory@example.org") {
			t.Fatalf("the stranger got a mail: %s", m.Kind)
		}
	}
}

// TestRematchDeclinedByEmail: a "no" to the invitation frees the seat and
// the player who asked hears of it; a "rematch" to a running game's mail
// is refused.
func TestRematchDeclinedByEmail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana := e.Register("Ana")
	ben, _, err := e.Svc.RegisterPlayer(ctx, "Ben", "ben@example.org", play.Preferences{Language: "it"})
	if err != nil {
		t.Fatal(err)
	}
	g := e.NewPavilion(ana, ben, nil)
	first := g.ToAct()[0]
	turn := e.TurnMail(g.ID, first, g.Version)
	mover := []play.Player{ana, ben}[first]
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, turn), turn.Header.Get("Message-Id"), "", "rematch"); err != nil {
		t.Fatal(err)
	}
	e.Relay.Wait(t, "the refusal of a rematch of a running game", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindRefused) && m.To[0] == mover.Email && strings.Contains(mailtest.Flat(m.Text), "once the game is over")
	})
	old := e.EndByResignation(e.WaitVersion(g.ID, 0))
	rematch, _, err := e.Svc.Rematch(ctx, old.ID, ana, "api")
	if err != nil {
		t.Fatal(err)
	}
	invitation := e.Relay.Wait(t, "the invitation to Ben, in Italian", func(m outMail) bool {
		return m.Kind == compose.KindRematch && m.To[0] == ben.Email
	})
	t.Logf("invitation, it:\n%s", invitation.Text)
	if !strings.Contains(mailtest.Flat(invitation.Text), "Ana chiede la rivincita di") {
		t.Fatalf("the Italian invitation:\n%s", invitation.Text)
	}
	// No answer to Ana: she asked on the web.
	if err := e.SendReply(ben.Email, mailtest.ReplyTo(t, invitation), invitation.Header.Get("Message-Id"), "", "No, grazie"); err != nil {
		t.Fatal(err)
	}
	declined := e.Relay.Wait(t, "the news of the decline to Ana", func(m outMail) bool {
		return m.Kind == compose.KindRematchDeclined && m.To[0] == ana.Email
	})
	t.Logf("declined, en:\n%s", declined.Text)
	if !strings.Contains(mailtest.Flat(declined.Text), "Ben declined your rematch of") {
		t.Fatalf("the news of the decline:\n%s", declined.Text)
	}
	after, err := e.Svc.Game(ctx, rematch.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Awaiting()) != 0 || len(after.Declined) != 1 || after.Declined[0] != ben.ID {
		t.Fatalf("after Ben's no: %+v", after)
	}
	for _, m := range e.Relay.All() {
		if m.Kind == compose.KindRematchCreated {
			t.Fatal("a rematch asked for on the web was answered by mail")
		}
	}
}
