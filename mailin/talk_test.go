package mailin_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/play"
)

// messages is a game's table talk as its player id reads it.
func (e *env) messages(gameID, viewer string) []play.Message {
	e.T.Helper()
	ms, err := e.Svc.Messages(context.Background(), gameID, viewer, 0)
	if err != nil {
		e.T.Fatal(err)
	}
	return ms
}

// TestTalkByMail: a reply with a move and text plays the move and puts
// the text in the log after it, without the quote and the signature; the
// same mail delivered again posts nothing more; the other player gets
// the message once (in a message mail or in their turn mail, whichever
// is first), the author never; a reply that is only text is a message
// and no move, and its writer, to move, is told so.
func TestTalkByMail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	e.WaitOpeningMails(g, ana, ben, 30*time.Second)
	players := map[int]play.Player{0: ana, 1: ben}
	mover := players[g.ToAct()[0]]
	other := players[1-g.ToAct()[0]]
	turn := e.TurnMail(g.ID, g.ToAct()[0], g.Version)

	body := "1\n\nGood luck, " + other.Name + "!\nThis one is for the star.\n\n-- \n" + mover.Name + "\nhttps://example.org/" + strings.ToLower(mover.Name)
	const id = "<talk-1@example.org>"
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, turn), turn.Header.Get("Message-Id"), id, body); err != nil {
		t.Fatal(err)
	}
	after := e.WaitVersion(g.ID, g.Version+1)
	for after.Version < g.Version+2 {
		after = e.WaitVersion(g.ID, after.Version)
	}
	recs, err := e.Svc.Events(ctx, g.ID, g.Version, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Type == play.EvMessage || recs[1].Type != play.EvMessage {
		var types []string
		for _, r := range recs {
			types = append(types, r.Type)
		}
		t.Fatalf("events after the reply: %v, want the move, then the message", types)
	}
	want := "Good luck, " + other.Name + "!\nThis one is for the star."
	ms := e.messages(g.ID, other.ID)
	if len(ms) != 1 || ms[0].Text != want || ms[0].PlayerID != mover.ID || ms[0].Version != g.Version+2 {
		t.Fatalf("messages = %+v, want one %q by %s at version %d", ms, want, mover.Name, g.Version+2)
	}
	if strings.Contains(string(recs[1].Data), "example.org") || strings.Contains(string(recs[1].Data), "your turn") {
		t.Fatalf("the signature or the quote went into the log: %s", recs[1].Data)
	}

	// Delivered again: nothing more.
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, turn), turn.Header.Get("Message-Id"), id, body); err != nil {
		t.Fatal(err)
	}
	e.CaughtUp(t)
	if v := e.EventCount(g.ID); v != g.Version+2 {
		t.Fatalf("the redelivered mail changed the game: version %d, want %d", v, g.Version+2)
	}

	// The other player reads it once, in a message mail or in the turn
	// mail the move caused; the author not at all.
	e.Relay.Wait(t, "the message to "+other.Name, func(m outMail) bool {
		return slices.Contains(m.To, other.Email) && strings.Contains(m.Text, "This one is for the star.")
	})
	e.CaughtUp(t)
	time.Sleep(300 * time.Millisecond)
	if n := e.MailsWith(other.Email, "This one is for the star."); n != 1 {
		t.Fatalf("%s got the message in %d mails, want 1", other.Name, n)
	}
	if n := e.MailsWith(mover.Email, "This one is for the star."); n != 0 || len(e.TalkMailsTo(mover.Email)) != 0 {
		t.Fatalf("the author got their own message (%d mails)", n)
	}
	for _, m := range e.Relay.All() {
		if slices.Contains(m.To, other.Email) && strings.Contains(m.Text, "This one is for the star.") {
			if strings.Contains(m.Text, "https://example.org/") {
				t.Fatalf("the mail shows the signature:\n%s", m.Text)
			}
			if !strings.Contains(m.Text, mover.Name+",") {
				t.Fatalf("the mail does not name the author:\n%s", m.Text)
			}
		}
	}

	// The other player, to move now, answers with words only: a
	// message, no move; they are told their move is still awaited.
	g2, err := e.Svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The turn mail shows the game as it is when it leaves: the message
	// may be in it already.
	turn2 := e.Relay.Wait(t, "turn mail to "+other.Name, func(m outMail) bool {
		return m.Kind == compose.KindTurn && m.Game == g.ID && m.Seat == 1-g.ToAct()[0] && m.Version > g.Version
	})
	if err := e.SendReply(other.Email, mailtest.ReplyTo(t, turn2), turn2.Header.Get("Message-Id"), "<talk-2@example.org>",
		"Thanks, and the same to you!\nI need to think about this one.\n\nSent from my iPhone"); err != nil {
		t.Fatal(err)
	}
	e.WaitVersion(g.ID, g2.Version)
	e.CaughtUp(t)
	g3, err := e.Svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if g3.Version != g2.Version+1 || g3.StateVersion != g2.StateVersion || !slices.Equal(g3.ToAct(), g2.ToAct()) {
		t.Fatalf("a message changed the game: version %d→%d, state %d→%d", g2.Version, g3.Version, g2.StateVersion, g3.StateVersion)
	}
	ms = e.messages(g.ID, mover.ID)
	if len(ms) != 2 || ms[1].Text != "Thanks, and the same to you!\nI need to think about this one." || ms[1].PlayerID != other.ID {
		t.Fatalf("messages = %+v", ms)
	}
	posted := e.Relay.Wait(t, "the answer to the message", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindTalkPosted) && slices.Contains(m.To, other.Email)
	})
	if !strings.Contains(posted.Text, "went to the table") || !strings.Contains(posted.Text, "still your turn") {
		t.Fatalf("the answer does not say the message went to the table and the move is awaited:\n%s", posted.Text)
	}
	// The first player had no message mail yet: this one comes at once,
	// and answering it with a message works too.
	talk := e.Relay.Wait(t, "the message mail to "+mover.Name, func(m outMail) bool {
		return m.Kind == compose.KindTalk && slices.Contains(m.To, mover.Email)
	})
	if !strings.Contains(talk.Text, other.Name+" wrote at the table of") || !strings.Contains(talk.Text, "    I need to think about this one.") {
		t.Fatalf("message mail:\n%s", talk.Text)
	}
	if subject := talk.Header.Get("Subject"); !strings.Contains(subject, "Table talk in") {
		t.Fatalf("subject %q", subject)
	}
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, talk), talk.Header.Get("Message-Id"), "<talk-3@example.org>", "Take your time."); err != nil {
		t.Fatal(err)
	}
	e.WaitVersion(g.ID, g3.Version)
	if ms := e.messages(g.ID, other.ID); len(ms) != 3 || ms[2].Text != "Take your time." || ms[2].PlayerID != mover.ID {
		t.Fatalf("messages = %+v", ms)
	}
	e.Relay.OnceEach(t)
}

// TestTalkMailRefusedMoveKeepsTheMessage: a move that is refused does not
// lose the message below it, and the refusal says it went to the table.
func TestTalkMailRefusedMoveKeepsTheMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	e.WaitOpeningMails(g, ana, ben, 30*time.Second)
	players := map[int]play.Player{0: ana, 1: ben}
	mover := players[g.ToAct()[0]]
	turn := e.TurnMail(g.ID, g.ToAct()[0], g.Version)
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, turn), turn.Header.Get("Message-Id"), "", "999\nOops, what a hand."); err != nil {
		t.Fatal(err)
	}
	refused := e.Relay.Wait(t, "refusal", func(m outMail) bool { return strings.HasPrefix(m.Kind, compose.KindRefused) })
	if text := strings.Join(strings.Fields(refused.Text), " "); !strings.Contains(text, "there is no move 999") || !strings.Contains(text, "went to the table all the same") {
		t.Fatalf("refusal:\n%s", refused.Text)
	}
	after, err := e.Svc.Game(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.StateVersion != g.StateVersion || after.Version != g.Version+1 {
		t.Fatalf("version %d (state %d), want %d (state %d)", after.Version, after.StateVersion, g.Version+1, g.StateVersion)
	}
	if ms := e.messages(g.ID, mover.ID); len(ms) != 1 || ms[0].Text != "Oops, what a hand." {
		t.Fatalf("messages = %+v", ms)
	}
}

// TestTalkPostedWhenTheMailComesAgain: a move by mail that went through
// without its message (as when azuld stops between the two) posts the
// message when the provider delivers the mail again, once.
func TestTalkPostedWhenTheMailComesAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	players := map[int]play.Player{0: ana, 1: ben}
	mover := players[g.ToAct()[0]]
	turn := e.TurnMail(g.ID, g.ToAct()[0], g.Version)
	const id = "<again@example.org>"
	// The first delivery as far as the move: the same mail, its message
	// not read.
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, turn), turn.Header.Get("Message-Id"), id, "1"); err != nil {
		t.Fatal(err)
	}
	e.WaitVersion(g.ID, g.Version)
	for range 2 {
		if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, turn), turn.Header.Get("Message-Id"), id, "1\nSorry, I pressed send too early."); err != nil {
			t.Fatal(err)
		}
	}
	ms := e.messages(g.ID, mover.ID)
	if len(ms) != 1 || ms[0].Text != "Sorry, I pressed send too early." || ms[0].Version != g.Version+2 {
		t.Fatalf("messages = %+v", ms)
	}
	if v := e.EventCount(g.ID); v != g.Version+2 {
		t.Fatalf("version %d, want %d: the move played once, the message once", v, g.Version+2)
	}
}

// talkLimits are the limits of table talk on a real limiter, as the
// server's api.RateLimits apply them by name.
type talkLimits struct {
	l *limits.Limiter
	p limits.Policy
}

func (t talkLimits) check(ctx context.Context, name, key string, peek bool) error {
	rule, on := t.p.Rule(name)
	if !on {
		return nil
	}
	var d limits.Decision
	var err error
	if peek {
		d, err = t.l.Peek(ctx, rule, key)
	} else {
		d, err = t.l.Allow(ctx, rule, key)
	}
	if err != nil || d.Allowed {
		return err
	}
	return limits.Refuse(rule, d)
}

func (t talkLimits) Allow(ctx context.Context, name, key string) error {
	return t.check(ctx, name, key, false)
}

func (t talkLimits) Peek(ctx context.Context, name, key string) error {
	return t.check(ctx, name, key, true)
}

// TestTalkByMailCountsAgainstTheLimits: messages sent by mail count
// against the limits of table talk; one over them is not posted, and
// its writer is told so, while the move beside it is played.
func TestTalkByMailCountsAgainstTheLimits(t *testing.T) {
	t.Parallel()
	policy, err := limits.ParsePolicy(func(name string) string {
		if name == limits.MessagesGame {
			return "1/h"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWithInbound(t, 2, func(c *mailin.Config) {
		c.TalkLimits = talkLimits{l: limits.New(c.Pool, limits.Options{}), p: policy}
	})
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	players := map[int]play.Player{0: ana, 1: ben}
	mover := players[g.ToAct()[0]]
	turn := e.TurnMail(g.ID, g.ToAct()[0], g.Version)
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, turn), turn.Header.Get("Message-Id"), "", "1\nThe first one."); err != nil {
		t.Fatal(err)
	}
	e.WaitVersion(g.ID, g.Version+1)
	// Not to move now: a message alone, over the limit.
	if err := e.SendReply(mover.Email, mailtest.ReplyTo(t, turn), turn.Header.Get("Message-Id"), "", "And one more thing to say, everyone!"); err != nil {
		t.Fatal(err)
	}
	refused := e.Relay.Wait(t, "the refusal of the message", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindRefused) && slices.Contains(m.To, mover.Email)
	})
	if !strings.Contains(strings.Join(strings.Fields(refused.Text), " "), "you have written many messages to this table lately") {
		t.Fatalf("refusal:\n%s", refused.Text)
	}
	if ms := e.messages(g.ID, mover.ID); len(ms) != 1 || ms[0].Text != "The first one." {
		t.Fatalf("messages = %+v", ms)
	}
	if v := e.EventCount(g.ID); v != g.Version+2 {
		t.Fatalf("version %d, want %d", v, g.Version+2)
	}
}
