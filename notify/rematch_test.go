package notify_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// endByResignation ends a game from newPavilion: the seat to act
// resigns. It returns the finished game.
func (e *env) endByResignation(g *play.Game) *play.Game {
	e.t.Helper()
	seat := g.ToAct()[0]
	res, err := e.svc.Move(context.Background(), play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: g.Seats[seat].PlayerID},
		Seat: &seat, Notation: "resign", Channel: "api"})
	if err != nil {
		e.t.Fatal(err)
	}
	if res.Game.Status != play.StatusFinished {
		e.t.Fatalf("after the resignation the game is %s", res.Game.Status)
	}
	return res.Game
}

// TestRematchByEmail: the game-over mail says how to have a rematch (in
// each reader's language); a German player's "Revanche" to it creates the
// rematch and is answered; the other player is invited by mail, a
// stranger's "accept" to that invitation changes nothing, and the
// player's own "yes" takes the seat: the rematch starts.
func TestRematchByEmail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana := e.register("Ana")
	ben, _, err := e.svc.RegisterPlayer(ctx, "Ben", "ben@example.org", play.Preferences{Language: "de"})
	if err != nil {
		t.Fatal(err)
	}
	g := e.newPavilion(ana, ben, nil)
	old := e.endByResignation(g)

	over := map[string]outMail{}
	for _, p := range []play.Player{ana, ben} {
		over[p.Name] = e.relay.wait(t, "game over to "+p.Name, func(m outMail) bool {
			return m.kind == compose.KindGameOver && m.game == old.ID && m.to[0] == p.Email
		})
	}
	if text := flat(over["Ana"].text); !strings.Contains(text, "Another game? Reply “rematch” and the same players are invited to a rematch") {
		t.Fatalf("Ana's game-over mail does not offer a rematch:\n%s", over["Ana"].text)
	}
	if text := flat(over["Ben"].text); !strings.Contains(text, "Noch eine Partie? Antworte „Revanche“") {
		t.Fatalf("Ben's game-over mail does not offer a rematch in German:\n%s", over["Ben"].text)
	}
	t.Logf("game over, en:\n%s", over["Ana"].text)
	t.Logf("game over, de:\n%s", over["Ben"].text)

	// Ben asks in his words.
	if err := e.sendReply(ben.Email, replyTo(t, over["Ben"]), over["Ben"].header.Get("Message-Id"), "", "Revanche!"); err != nil {
		t.Fatal(err)
	}
	invitation := e.relay.wait(t, "the rematch invitation to Ana", func(m outMail) bool {
		return m.kind == compose.KindRematch && m.to[0] == ana.Email
	})
	created := e.relay.wait(t, "the answer to Ben's request", func(m outMail) bool {
		return m.kind == compose.KindRematchCreated && m.to[0] == ben.Email
	})
	t.Logf("invitation, en:\n%s", invitation.text)
	t.Logf("answer to the request, de:\n%s", created.text)
	if text := flat(invitation.text); !strings.Contains(text, "Ben asks for a rematch of Azul: Summer Pavilion") || !strings.Contains(text, "Reply “accept” (or “yes”) to play") {
		t.Fatalf("the invitation does not say who asks and how to answer:\n%s", invitation.text)
	}
	if text := flat(created.text); !strings.Contains(text, "Deine Revanche steht bereit") || !strings.Contains(text, "Die Revanche wartet darauf, dass Ana annimmt") {
		t.Fatalf("the answer to Ben does not name the rematch and whom it waits for:\n%s", created.text)
	}
	linked, err := e.svc.Game(ctx, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	rematch, err := e.svc.Game(ctx, linked.Rematch)
	if err != nil || linked.Rematch == "" || invitation.game != rematch.ID {
		t.Fatalf("the invitation is about game %s, the rematch is %q (%v)", invitation.game, linked.Rematch, err)
	}
	recs, err := e.svc.Events(ctx, rematch.ID, 0, 1)
	if err != nil || recs[0].Meta.Channel != "email" || recs[0].Meta.Actor.PlayerID != ben.ID {
		t.Fatalf("the rematch's first event: %+v %v", recs, err)
	}

	// A stranger answers Ana's invitation: nothing happens.
	if err := e.sendReply("mallory@example.org", replyTo(t, invitation), invitation.header.Get("Message-Id"), "", "accept"); err != nil {
		t.Fatal(err)
	}
	// Ana answers with another word: she is told what she may answer.
	if err := e.sendReply(ana.Email, replyTo(t, invitation), invitation.header.Get("Message-Id"), "", "F1 red 1"); err != nil {
		t.Fatal(err)
	}
	refusal := e.relay.wait(t, "the refusal of a move to an invitation", func(m outMail) bool {
		return strings.HasPrefix(m.kind, compose.KindRefused) && m.to[0] == ana.Email && m.game == rematch.ID
	})
	if !strings.Contains(flat(refusal.text), "this is an invitation to a rematch: reply “accept” to play or “decline” to say no") {
		t.Fatalf("the refusal does not say how to answer:\n%s", refusal.text)
	}
	if v := e.eventCount(rematch.ID); v != rematch.Version {
		t.Fatalf("the stranger's and the refused answers changed the rematch: version %d, want %d", v, rematch.Version)
	}
	// Her own "yes" takes the seat: the rematch starts.
	if err := e.sendReply(ana.Email, replyTo(t, invitation), invitation.header.Get("Message-Id"), "", "Yes, please."); err != nil {
		t.Fatal(err)
	}
	started := e.waitVersion(rematch.ID, rematch.Version)
	if started.Status != play.StatusActive || len(started.SeatsOf(ana.ID)) != 1 {
		t.Fatalf("after Ana's yes the rematch is %s with seats %+v", started.Status, started.Seats)
	}
	// Rotation: Ana sat at 0 and Ben at 1; now Ben at 0, Ana at 1.
	if started.Seats[0].PlayerID != ben.ID || started.Seats[1].PlayerID != ana.ID {
		t.Fatalf("seats of the rematch: %+v", started.Seats)
	}
	e.relay.wait(t, "the rematch's first mail to Ana", func(m outMail) bool {
		return (m.kind == compose.KindTurn || m.kind == compose.KindStarted) && m.game == rematch.ID && m.to[0] == ana.Email
	})
	for _, m := range e.relay.all() {
		if slices.Contains(m.to, "mallory@example.org") {
			t.Fatalf("the stranger got a mail: %s", m.kind)
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
	ana := e.register("Ana")
	ben, _, err := e.svc.RegisterPlayer(ctx, "Ben", "ben@example.org", play.Preferences{Language: "it"})
	if err != nil {
		t.Fatal(err)
	}
	g := e.newPavilion(ana, ben, nil)
	first := g.ToAct()[0]
	turn := e.turnMail(g.ID, first, g.Version)
	mover := []play.Player{ana, ben}[first]
	if err := e.sendReply(mover.Email, replyTo(t, turn), turn.header.Get("Message-Id"), "", "rematch"); err != nil {
		t.Fatal(err)
	}
	e.relay.wait(t, "the refusal of a rematch of a running game", func(m outMail) bool {
		return strings.HasPrefix(m.kind, compose.KindRefused) && m.to[0] == mover.Email && strings.Contains(flat(m.text), "once the game is over")
	})
	old := e.endByResignation(e.waitVersion(g.ID, 0))
	rematch, _, err := e.svc.Rematch(ctx, old.ID, ana, "api")
	if err != nil {
		t.Fatal(err)
	}
	invitation := e.relay.wait(t, "the invitation to Ben, in Italian", func(m outMail) bool {
		return m.kind == compose.KindRematch && m.to[0] == ben.Email
	})
	t.Logf("invitation, it:\n%s", invitation.text)
	if !strings.Contains(flat(invitation.text), "Ana chiede la rivincita di") {
		t.Fatalf("the Italian invitation:\n%s", invitation.text)
	}
	// No answer to Ana: she asked on the web.
	if err := e.sendReply(ben.Email, replyTo(t, invitation), invitation.header.Get("Message-Id"), "", "No, grazie"); err != nil {
		t.Fatal(err)
	}
	declined := e.relay.wait(t, "the news of the decline to Ana", func(m outMail) bool {
		return m.kind == compose.KindRematchDeclined && m.to[0] == ana.Email
	})
	t.Logf("declined, en:\n%s", declined.text)
	if !strings.Contains(flat(declined.text), "Ben declined your rematch of") {
		t.Fatalf("the news of the decline:\n%s", declined.text)
	}
	after, err := e.svc.Game(ctx, rematch.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Awaiting()) != 0 || len(after.Declined) != 1 || after.Declined[0] != ben.ID {
		t.Fatalf("after Ben's no: %+v", after)
	}
	for _, m := range e.relay.all() {
		if m.kind == compose.KindRematchCreated {
			t.Fatal("a rematch asked for on the web was answered by mail")
		}
	}
}

// flat is a mail's text with its line breaks as spaces.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestRematchInvitationOnlyToVerifiedAddresses: with addresses verified
// before mail, a rematch invitation to a player whose address is not
// verified is not sent (the delivery log says why).
func TestRematchInvitationOnlyToVerifiedAddresses(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, verifying)
	ctx := context.Background()
	ana, ben := e.register("Ana"), e.register("Ben")
	e.markVerified(ana)
	old := e.endByResignation(e.newPavilion(ana, ben, nil))
	rematch, _, err := e.svc.Rematch(ctx, old.ID, ana, "api")
	if err != nil {
		t.Fatal(err)
	}
	seat := rematch.ReservedFor(ben.ID)[0]
	if why := e.skipped(rematch.ID, seat, compose.KindRematch); !strings.Contains(why, "verified") {
		t.Fatalf("the invitation to an unverified address was skipped as %q", why)
	}
	if n := e.mailsTo(compose.KindRematch, ben.Email); n != 0 {
		t.Fatalf("%d invitations reached the unverified address", n)
	}
}
