package notify_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// messages is a game's table talk as its player id reads it.
func (e *env) messages(gameID, viewer string) []play.Message {
	e.t.Helper()
	ms, err := e.svc.Messages(context.Background(), gameID, viewer, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	return ms
}

// talkMailsTo are the message mails the relay has for an address.
func (e *env) talkMailsTo(addr string) []outMail {
	var out []outMail
	for _, m := range e.relay.all() {
		if m.kind == compose.KindTalk && slices.Contains(m.to, addr) {
			out = append(out, m)
		}
	}
	return out
}

// mailsWith counts the mails to addr whose text holds s.
func (e *env) mailsWith(addr, s string) int {
	n := 0
	for _, m := range e.relay.all() {
		if slices.Contains(m.to, addr) && strings.Contains(m.text, s) {
			n++
		}
	}
	return n
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
	ana, ben := e.register("Ana"), e.register("Ben")
	g := e.newPavilion(ana, ben, nil)
	e.waitOpeningMails(g, ana, ben, 30*time.Second)
	players := map[int]play.Player{0: ana, 1: ben}
	mover := players[g.ToAct()[0]]
	other := players[1-g.ToAct()[0]]
	turn := e.turnMail(g.ID, g.ToAct()[0], g.Version)

	body := "1\n\nGood luck, " + other.Name + "!\nThis one is for the star.\n\n-- \n" + mover.Name + "\nhttps://example.org/" + strings.ToLower(mover.Name)
	const id = "<talk-1@example.org>"
	if err := e.sendReply(mover.Email, replyTo(t, turn), turn.header.Get("Message-Id"), id, body); err != nil {
		t.Fatal(err)
	}
	after := e.waitVersion(g.ID, g.Version+1)
	for after.Version < g.Version+2 {
		after = e.waitVersion(g.ID, after.Version)
	}
	recs, err := e.svc.Events(ctx, g.ID, g.Version, 0)
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
	if err := e.sendReply(mover.Email, replyTo(t, turn), turn.header.Get("Message-Id"), id, body); err != nil {
		t.Fatal(err)
	}
	e.caughtUp(t)
	if v := e.eventCount(g.ID); v != g.Version+2 {
		t.Fatalf("the redelivered mail changed the game: version %d, want %d", v, g.Version+2)
	}

	// The other player reads it once, in a message mail or in the turn
	// mail the move caused; the author not at all.
	e.relay.wait(t, "the message to "+other.Name, func(m outMail) bool {
		return slices.Contains(m.to, other.Email) && strings.Contains(m.text, "This one is for the star.")
	})
	e.caughtUp(t)
	time.Sleep(300 * time.Millisecond)
	if n := e.mailsWith(other.Email, "This one is for the star."); n != 1 {
		t.Fatalf("%s got the message in %d mails, want 1", other.Name, n)
	}
	if n := e.mailsWith(mover.Email, "This one is for the star."); n != 0 || len(e.talkMailsTo(mover.Email)) != 0 {
		t.Fatalf("the author got their own message (%d mails)", n)
	}
	for _, m := range e.relay.all() {
		if slices.Contains(m.to, other.Email) && strings.Contains(m.text, "This one is for the star.") {
			if strings.Contains(m.text, "https://example.org/") {
				t.Fatalf("the mail shows the signature:\n%s", m.text)
			}
			if !strings.Contains(m.text, mover.Name+",") {
				t.Fatalf("the mail does not name the author:\n%s", m.text)
			}
		}
	}

	// The other player, to move now, answers with words only: a
	// message, no move; they are told their move is still awaited.
	g2, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	// The turn mail shows the game as it is when it leaves: the message
	// may be in it already.
	turn2 := e.relay.wait(t, "turn mail to "+other.Name, func(m outMail) bool {
		return m.kind == compose.KindTurn && m.game == g.ID && m.seat == 1-g.ToAct()[0] && m.version > g.Version
	})
	if err := e.sendReply(other.Email, replyTo(t, turn2), turn2.header.Get("Message-Id"), "<talk-2@example.org>",
		"Thanks, and the same to you!\nI need to think about this one.\n\nSent from my iPhone"); err != nil {
		t.Fatal(err)
	}
	e.waitVersion(g.ID, g2.Version)
	e.caughtUp(t)
	g3, err := e.svc.Game(ctx, g.ID)
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
	posted := e.relay.wait(t, "the answer to the message", func(m outMail) bool {
		return strings.HasPrefix(m.kind, compose.KindTalkPosted) && slices.Contains(m.to, other.Email)
	})
	if !strings.Contains(posted.text, "went to the table") || !strings.Contains(posted.text, "still your turn") {
		t.Fatalf("the answer does not say the message went to the table and the move is awaited:\n%s", posted.text)
	}
	// The first player had no message mail yet: this one comes at once,
	// and answering it with a message works too.
	talk := e.relay.wait(t, "the message mail to "+mover.Name, func(m outMail) bool {
		return m.kind == compose.KindTalk && slices.Contains(m.to, mover.Email)
	})
	if !strings.Contains(talk.text, other.Name+" wrote at the table of") || !strings.Contains(talk.text, "    I need to think about this one.") {
		t.Fatalf("message mail:\n%s", talk.text)
	}
	if subject := talk.header.Get("Subject"); !strings.Contains(subject, "Table talk in") {
		t.Fatalf("subject %q", subject)
	}
	if err := e.sendReply(mover.Email, replyTo(t, talk), talk.header.Get("Message-Id"), "<talk-3@example.org>", "Take your time."); err != nil {
		t.Fatal(err)
	}
	e.waitVersion(g.ID, g3.Version)
	if ms := e.messages(g.ID, other.ID); len(ms) != 3 || ms[2].Text != "Take your time." || ms[2].PlayerID != mover.ID {
		t.Fatalf("messages = %+v", ms)
	}
	e.relay.onceEach(t)
}

// TestTalkMailRefusedMoveKeepsTheMessage: a move that is refused does not
// lose the message below it, and the refusal says it went to the table.
func TestTalkMailRefusedMoveKeepsTheMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.register("Ana"), e.register("Ben")
	g := e.newPavilion(ana, ben, nil)
	e.waitOpeningMails(g, ana, ben, 30*time.Second)
	players := map[int]play.Player{0: ana, 1: ben}
	mover := players[g.ToAct()[0]]
	turn := e.turnMail(g.ID, g.ToAct()[0], g.Version)
	if err := e.sendReply(mover.Email, replyTo(t, turn), turn.header.Get("Message-Id"), "", "999\nOops, what a hand."); err != nil {
		t.Fatal(err)
	}
	refused := e.relay.wait(t, "refusal", func(m outMail) bool { return strings.HasPrefix(m.kind, compose.KindRefused) })
	if text := strings.Join(strings.Fields(refused.text), " "); !strings.Contains(text, "there is no move 999") || !strings.Contains(text, "went to the table all the same") {
		t.Fatalf("refusal:\n%s", refused.text)
	}
	after, err := e.svc.Game(context.Background(), g.ID)
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

// TestTalkMailsCollected: the first message mail leaves at once; the
// messages written within the interval after it wait and come together
// in one mail once it is over; the author gets none, and a player who
// muted the game gets none.
func TestTalkMailsCollected(t *testing.T) {
	t.Parallel()
	const interval = 3 * time.Second
	e := newEnvWithConfig(t, 2, func(c *notify.Config) { c.TalkInterval = interval })
	ctx := context.Background()
	ana, ben, cy := e.register("Ana"), e.register("Ben"), e.register("Cy")
	g, err := createAccepted(ctx, e.svc, ana, play.CreateGame{Ruleset: "azul-mini",
		Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}, {Player: cy.ID}}, Seed: strings.Repeat("5a", 32)}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.svc.SetMuted(ctx, g.ID, cy.ID, true); err != nil {
		t.Fatal(err)
	}
	e.caughtUp(t)

	if _, err := e.svc.Say(ctx, g.ID, ana, "Hello both, have fun!", "api", ""); err != nil {
		t.Fatal(err)
	}
	first := e.relay.wait(t, "the first message mail", func(m outMail) bool {
		return m.kind == compose.KindTalk && slices.Contains(m.to, ben.Email)
	})
	firstAt := time.Now()
	if !strings.Contains(first.text, "Hello both, have fun!") || !strings.Contains(first.text, "Ana wrote at the table of") {
		t.Fatalf("first message mail:\n%s", first.text)
	}
	if _, err := e.svc.Say(ctx, g.ID, ana, "Second thought: good luck.", "api", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Say(ctx, g.ID, ana, "And a third.", "api", ""); err != nil {
		t.Fatal(err)
	}
	e.caughtUp(t)
	time.Sleep(500 * time.Millisecond)
	if n := len(e.talkMailsTo(ben.Email)); n != 1 && time.Since(firstAt) < interval {
		t.Fatalf("%d message mails within the interval, want 1", n)
	}
	second := e.relay.wait(t, "the collected message mail", func(m outMail) bool {
		return m.kind == compose.KindTalk && slices.Contains(m.to, ben.Email) && m.version != first.version
	})
	if took := time.Since(firstAt); took < interval-500*time.Millisecond {
		t.Fatalf("the second message mail came %v after the first, before the interval of %v", took, interval)
	}
	if !strings.Contains(second.text, "Second thought: good luck.") || !strings.Contains(second.text, "And a third.") ||
		strings.Contains(second.text, "Hello both") || !strings.Contains(second.text, "Ana wrote 2 messages at the table of") {
		t.Fatalf("collected mail:\n%s", second.text)
	}
	// Nothing more comes: both snoozed jobs found nothing left.
	time.Sleep(interval + time.Second)
	if n := len(e.talkMailsTo(ben.Email)); n != 2 {
		t.Fatalf("%d message mails to Ben, want 2", n)
	}
	if n := len(e.talkMailsTo(ana.Email)) + len(e.talkMailsTo(cy.Email)); n != 0 {
		t.Fatalf("%d message mails to the author or the muted player", n)
	}
	if n := e.mailsWith(cy.Email, "good luck"); n != 0 {
		t.Fatalf("the muted player got the messages in %d mails", n)
	}
	var version int64
	if err := e.pool.QueryRow(ctx, `SELECT version FROM talk_mailed WHERE game_id = $1 AND player_id = $2`, g.ID, ben.ID).Scan(&version); err != nil {
		t.Fatal(err)
	}
	if version != e.eventCount(g.ID) {
		t.Fatalf("talk_mailed version %d, want %d", version, e.eventCount(g.ID))
	}
	e.relay.onceEach(t)
}

// TestTurnMailCarriesTheTalk: messages held back by the interval come in
// the player's turn mail, under their heading, and not again.
func TestTurnMailCarriesTheTalk(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // the default interval: an hour
	ctx := context.Background()
	ana, ben := e.register("Ana"), e.register("Ben")
	g := e.newPavilion(ana, ben, nil)
	e.waitOpeningMails(g, ana, ben, 30*time.Second)
	players := map[int]play.Player{0: ana, 1: ben}
	mover := players[g.ToAct()[0]]
	other := players[1-g.ToAct()[0]]

	if _, err := e.svc.Say(ctx, g.ID, mover, "First words.", "web", ""); err != nil {
		t.Fatal(err)
	}
	e.relay.wait(t, "the first message mail", func(m outMail) bool {
		return m.kind == compose.KindTalk && slices.Contains(m.to, other.Email)
	})
	if _, err := e.svc.Say(ctx, g.ID, mover, "Held back for the turn mail.", "web", ""); err != nil {
		t.Fatal(err)
	}
	e.caughtUp(t)
	cur, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	res := e.moveFirst(cur, ana, ben)
	turn := e.turnMail(g.ID, 1-g.ToAct()[0], res.Version)
	if !strings.Contains(turn.text, "At the table:") || !strings.Contains(turn.text, "Held back for the turn mail.") || strings.Contains(turn.text, "First words.") {
		t.Fatalf("turn mail:\n%s", turn.text)
	}
	if n := e.mailsWith(other.Email, "Held back for the turn mail."); n != 1 {
		t.Fatalf("the held message came in %d mails", n)
	}
	if n := len(e.talkMailsTo(other.Email)); n != 1 {
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
	ana, ben := e.register("Anastasia"), e.register("Ben")
	g := e.newPavilion(ana, ben, nil)
	e.waitOpeningMails(g, ana, ben, 30*time.Second)
	if _, err := e.svc.Say(ctx, g.ID, ana, "Hello!", "web", ""); err != nil {
		t.Fatal(err)
	}
	e.relay.wait(t, "the first message mail", func(m outMail) bool {
		return m.kind == compose.KindTalk && slices.Contains(m.to, ben.Email)
	})
	if _, err := e.svc.Say(ctx, g.ID, ana, "I have to go, sorry.", "web", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.DeleteAccount(ctx, ana.ID); err != nil {
		t.Fatal(err)
	}
	m := e.relay.wait(t, "the mail with the erased player's message", func(m outMail) bool {
		return slices.Contains(m.to, ben.Email) && strings.Contains(m.text, "I have to go, sorry.")
	})
	if strings.Contains(m.text, "Anastasia") || !strings.Contains(m.text, "Former player") {
		t.Fatalf("mail after the erasure:\n%s", m.text)
	}
}

// TestTalkPostedWhenTheMailComesAgain: a move by mail that went through
// without its message (as when azuld stops between the two) posts the
// message when the provider delivers the mail again, once.
func TestTalkPostedWhenTheMailComesAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.register("Ana"), e.register("Ben")
	g := e.newPavilion(ana, ben, nil)
	players := map[int]play.Player{0: ana, 1: ben}
	mover := players[g.ToAct()[0]]
	turn := e.turnMail(g.ID, g.ToAct()[0], g.Version)
	const id = "<again@example.org>"
	// The first delivery as far as the move: the same mail, its message
	// not read.
	if err := e.sendReply(mover.Email, replyTo(t, turn), turn.header.Get("Message-Id"), id, "1"); err != nil {
		t.Fatal(err)
	}
	e.waitVersion(g.ID, g.Version)
	for range 2 {
		if err := e.sendReply(mover.Email, replyTo(t, turn), turn.header.Get("Message-Id"), id, "1\nSorry, I pressed send too early."); err != nil {
			t.Fatal(err)
		}
	}
	ms := e.messages(g.ID, mover.ID)
	if len(ms) != 1 || ms[0].Text != "Sorry, I pressed send too early." || ms[0].Version != g.Version+2 {
		t.Fatalf("messages = %+v", ms)
	}
	if v := e.eventCount(g.ID); v != g.Version+2 {
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
	ana, ben := e.register("Ana"), e.register("Ben")
	g := e.newPavilion(ana, ben, nil)
	players := map[int]play.Player{0: ana, 1: ben}
	mover := players[g.ToAct()[0]]
	turn := e.turnMail(g.ID, g.ToAct()[0], g.Version)
	if err := e.sendReply(mover.Email, replyTo(t, turn), turn.header.Get("Message-Id"), "", "1\nThe first one."); err != nil {
		t.Fatal(err)
	}
	e.waitVersion(g.ID, g.Version+1)
	// Not to move now: a message alone, over the limit.
	if err := e.sendReply(mover.Email, replyTo(t, turn), turn.header.Get("Message-Id"), "", "And one more thing to say, everyone!"); err != nil {
		t.Fatal(err)
	}
	refused := e.relay.wait(t, "the refusal of the message", func(m outMail) bool {
		return strings.HasPrefix(m.kind, compose.KindRefused) && slices.Contains(m.to, mover.Email)
	})
	if !strings.Contains(strings.Join(strings.Fields(refused.text), " "), "you have written many messages to this table lately") {
		t.Fatalf("refusal:\n%s", refused.text)
	}
	if ms := e.messages(g.ID, mover.ID); len(ms) != 1 || ms[0].Text != "The first one." {
		t.Fatalf("messages = %+v", ms)
	}
	if v := e.eventCount(g.ID); v != g.Version+2 {
		t.Fatalf("version %d, want %d", v, g.Version+2)
	}
}
