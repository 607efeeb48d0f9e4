package notify_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// TestTalkMailsCollected: the first message mail leaves at once; the
// messages written within the interval after it wait and come together
// in one mail once it is over; the author gets none, and a player who
// muted the game gets none.
func TestTalkMailsCollected(t *testing.T) {
	t.Parallel()
	const interval = 3 * time.Second
	e := newEnvWithConfig(t, 2, func(c *notify.Config) { c.TalkInterval = interval })
	ctx := context.Background()
	ana, ben, cy := e.Register("Ana"), e.Register("Ben"), e.Register("Cy")
	g, err := mailtest.CreateAccepted(ctx, e.Svc, ana, play.CreateGame{Ruleset: "azul-mini",
		Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}, {Player: cy.ID}}, Seed: strings.Repeat("5a", 32)}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Svc.SetMuted(ctx, g.ID, cy.ID, true); err != nil {
		t.Fatal(err)
	}
	e.CaughtUp(t)

	if _, err := e.Svc.Say(ctx, g.ID, ana, "Hello both, have fun!", "api", ""); err != nil {
		t.Fatal(err)
	}
	first := e.Relay.Wait(t, "the first message mail", func(m outMail) bool {
		return m.Kind == compose.KindTalk && slices.Contains(m.To, ben.Email)
	})
	firstAt := time.Now()
	if !strings.Contains(first.Text, "Hello both, have fun!") || !strings.Contains(first.Text, "Ana wrote at the table of") {
		t.Fatalf("first message mail:\n%s", first.Text)
	}
	if _, err := e.Svc.Say(ctx, g.ID, ana, "Second thought: good luck.", "api", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Svc.Say(ctx, g.ID, ana, "And a third.", "api", ""); err != nil {
		t.Fatal(err)
	}
	e.CaughtUp(t)
	// Nothing to wait for: a mail sent too early would come unasked, so
	// give it room to show up before counting.
	time.Sleep(500 * time.Millisecond)
	if n := len(e.TalkMailsTo(ben.Email)); n != 1 && time.Since(firstAt) < interval {
		t.Fatalf("%d message mails within the interval, want 1", n)
	}
	second := e.Relay.Wait(t, "the collected message mail", func(m outMail) bool {
		return m.Kind == compose.KindTalk && slices.Contains(m.To, ben.Email) && m.Version != first.Version
	})
	if took := time.Since(firstAt); took < interval-500*time.Millisecond {
		t.Fatalf("the second message mail came %v after the first, before the interval of %v", took, interval)
	}
	if !strings.Contains(second.Text, "Second thought: good luck.") || !strings.Contains(second.Text, "And a third.") ||
		strings.Contains(second.Text, "Hello both") || !strings.Contains(second.Text, "Ana wrote 2 messages at the table of") {
		t.Fatalf("collected mail:\n%s", second.Text)
	}
	// Nothing more comes: both snoozed jobs found nothing left. Wait past
	// the interval, when a third mail would be due, before counting.
	time.Sleep(interval + time.Second)
	if n := len(e.TalkMailsTo(ben.Email)); n != 2 {
		t.Fatalf("%d message mails to Ben, want 2", n)
	}
	if n := len(e.TalkMailsTo(ana.Email)) + len(e.TalkMailsTo(cy.Email)); n != 0 {
		t.Fatalf("%d message mails to the author or the muted player", n)
	}
	if n := e.MailsWith(cy.Email, "good luck"); n != 0 {
		t.Fatalf("the muted player got the messages in %d mails", n)
	}
	var version int64
	if err := e.Pool.QueryRow(ctx, `SELECT version FROM talk_mailed WHERE game_id = $1 AND player_id = $2`, g.ID, ben.ID).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != e.EventCount(g.ID) {
		t.Fatalf("talk_mailed version %d, want %d", version, e.EventCount(g.ID))
	}
	e.Relay.OnceEach(t)
}

// TestTurnMailCarriesTheTalk: messages held back by the interval come in
// the player's turn mail, under their heading, and not again.
func TestTurnMailCarriesTheTalk(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // the default interval: an hour
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	e.WaitOpeningMails(g, ana, ben, 30*time.Second)
	players := map[int]play.Player{0: ana, 1: ben}
	mover := players[g.ToAct()[0]]
	other := players[1-g.ToAct()[0]]

	if _, err := e.Svc.Say(ctx, g.ID, mover, "First words.", "web", ""); err != nil {
		t.Fatal(err)
	}
	e.Relay.Wait(t, "the first message mail", func(m outMail) bool {
		return m.Kind == compose.KindTalk && slices.Contains(m.To, other.Email)
	})
	if _, err := e.Svc.Say(ctx, g.ID, mover, "Held back for the turn mail.", "web", ""); err != nil {
		t.Fatal(err)
	}
	e.CaughtUp(t)
	cur, err := e.Svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	res := e.MoveFirst(cur, ana, ben)
	turn := e.TurnMail(g.ID, 1-g.ToAct()[0], res.Version)
	if !strings.Contains(turn.Text, "At the table:") || !strings.Contains(turn.Text, "Held back for the turn mail.") || strings.Contains(turn.Text, "First words.") {
		t.Fatalf("turn mail:\n%s", turn.Text)
	}
	if n := e.MailsWith(other.Email, "Held back for the turn mail."); n != 1 {
		t.Fatalf("the held message came in %d mails", n)
	}
	if n := len(e.TalkMailsTo(other.Email)); n != 1 {
		t.Fatalf("%d message mails, want 1", n)
	}
}

// TestTalkMailNamesAnErasedAuthor: a message whose author deleted their
// account before it was mailed names them "Former player", never by the
// name they had.
func TestTalkMailNamesAnErasedAuthor(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, func(c *notify.Config) { c.TalkInterval = 2 * time.Second })
	ctx := context.Background()
	ana, ben := e.Register("Anastasia"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	e.WaitOpeningMails(g, ana, ben, 30*time.Second)
	if _, err := e.Svc.Say(ctx, g.ID, ana, "Hello!", "web", ""); err != nil {
		t.Fatal(err)
	}
	e.Relay.Wait(t, "the first message mail", func(m outMail) bool {
		return m.Kind == compose.KindTalk && slices.Contains(m.To, ben.Email)
	})
	if _, err := e.Svc.Say(ctx, g.ID, ana, "I have to go, sorry.", "web", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.Svc.DeleteAccount(ctx, ana.ID); err != nil {
		t.Fatal(err)
	}
	m := e.Relay.Wait(t, "the mail with the erased player's message", func(m outMail) bool {
		return slices.Contains(m.To, ben.Email) && strings.Contains(m.Text, "I have to go, sorry.")
	})
	if strings.Contains(m.Text, "Anastasia") || !strings.Contains(m.Text, "Former player") {
		t.Fatalf("mail after the erasure:\n%s", m.Text)
	}
}
