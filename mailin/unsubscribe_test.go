package mailin_test

import (
	"context"
	"errors"
	"fmt"
	"net/smtp"
	"net/textproto"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// TestUnsubscribeMailto answers the List-Unsubscribe mailto as mail
// programs do: to the seat's address with the subject "stop", and a body
// that is empty, a signature, or even a move. Each stops the mails of the
// game, changes nothing else and gets no refusal.
func TestUnsubscribeMailto(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	for i, body := range []string{"", "-- \r\nSent from my phone", "1"} {
		g := e.NewPavilion(ana, ben, nil)
		seat := g.ToAct()[0]
		p := map[int]play.Player{0: ana, 1: ben}[seat]
		turn := e.TurnMail(g.ID, seat, g.Version)
		link := turn.Header.Get("List-Unsubscribe")
		start := strings.Index(link, "<mailto:")
		if start < 0 {
			t.Fatalf("List-Unsubscribe %q has no mailto", link)
		}
		to, query, _ := strings.Cut(strings.TrimSuffix(link[start+len("<mailto:"):], ">"), "?")
		subject := strings.TrimPrefix(query, "subject=")
		raw := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <unsubscribe.%d@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n", p.Email, to, subject, i, body)
		if err := mailtest.SendRaw(e.Inbound, p.Email, to, raw); err != nil {
			t.Fatalf("body %q: %v", body, err)
		}
		var stopped bool
		if err := e.Pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM mail_stops WHERE game_id = $1 AND seat = $2)`, g.ID, seat).Scan(&stopped); err != nil || !stopped {
			t.Fatalf("body %q: mails not stopped (%v)", body, err)
		}
		var refused int
		if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'azuld_mail' AND args->>'game_id' = $1 AND args->>'mail' = $2`, g.ID, compose.KindRefused).Scan(&refused); err != nil || refused != 0 {
			t.Fatalf("body %q: %d refusals (%v)", body, refused, err)
		}
		if v := e.EventCount(g.ID); v != g.Version {
			t.Fatalf("body %q: the stop mail moved the game to version %d", body, v)
		}
	}
}

// TestQuoteOnlyReplyIsAnswered: a reply holding only the quote and a
// signature is answered with a short refusal that says where the move
// goes (the sender most likely meant to move), and changes nothing.
func TestQuoteOnlyReplyIsAnswered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	seat := g.ToAct()[0]
	p := map[int]play.Player{0: ana, 1: ben}[seat]
	turn := e.TurnMail(g.ID, seat, g.Version)
	if err := e.SendReply(p.Email, mailtest.ReplyTo(t, turn), turn.Header.Get("Message-Id"), "<quote-only@example.org>", "\n-- \nAna\n"); err != nil {
		t.Fatal(err)
	}
	m := e.Relay.Wait(t, "refusal", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindRefused) && slices.Contains(m.To, p.Email)
	})
	if !strings.Contains(strings.Join(strings.Fields(m.Text), " "), "the reply holds no move: write the move on the first line, above the quoted mail") {
		t.Fatalf("refusal:\n%s", m.Text)
	}
	if v := e.EventCount(g.ID); v != g.Version {
		t.Fatalf("a quote-only reply moved the game to version %d", v)
	}
}

// TestListenerRefusalsAndPostmaster: through the whole listener, an
// unknown address is refused with one status code, and postmaster@ is
// taken.
func TestListenerRefusalsAndPostmaster(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	err := mailtest.SendRaw(e.Inbound, "a@example.org", "play+"+strings.Repeat("a", 32)+"@"+domain, "From: a@example.org\r\nSubject: x\r\n\r\n1\r\n")
	var te *textproto.Error
	if !errors.As(err, &te) || te.Code != 550 || te.Msg != "5.1.1 No such mailbox" {
		t.Fatalf("unknown address: %v, want 550 5.1.1 No such mailbox", err)
	}
	if err := smtp.SendMail(e.Inbound, nil, "admin@example.org", []string{"postmaster@" + domain}, []byte("From: admin@example.org\r\nSubject: abuse report\r\nDate: "+time.Now().Format(time.RFC1123Z)+"\r\n\r\nhello\r\n")); err != nil {
		t.Fatalf("mail to postmaster: %v", err)
	}
}

// TestReplyFromASeatNotToMove: a player who answers while the other is to
// move is told so and who moves, without a list of moves to choose from
// ("(none)") and without being asked to answer again.
func TestReplyFromASeatNotToMove(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	waiting := 1 - g.ToAct()[0]
	p := map[int]play.Player{0: ana, 1: ben}[waiting]
	started := e.Relay.Wait(t, "start", func(m outMail) bool { return m.Kind == compose.KindStarted && m.Game == g.ID && m.Seat == waiting })
	for i, answer := range []string{"1", "F1 orange"} {
		if err := e.SendReply(p.Email, mailtest.ReplyTo(t, started), started.Header.Get("Message-Id"), fmt.Sprintf("<early.%d@example.org>", i), answer); err != nil {
			t.Fatal(err)
		}
		// The (i+1)th refusal to the player answers this reply.
		var refusals []outMail
		e.Relay.Wait(t, "refusal", func(outMail) bool {
			refusals = refusals[:0]
			for _, m := range e.Relay.All() {
				if strings.HasPrefix(m.Kind, compose.KindRefused) && slices.Contains(m.To, p.Email) {
					refusals = append(refusals, m)
				}
			}
			return len(refusals) > i
		})
		m := refusals[i]
		text := strings.Join(strings.Fields(m.Text), " ")
		if !strings.Contains(text, "was not played: it is not your turn.") || !strings.Contains(text, "Next to move: ") {
			t.Errorf("answer %q: refusal:\n%s", answer, m.Text)
		}
		for _, bad := range []string{"(none)", "answer again", "Your legal moves", "no move 1"} {
			if strings.Contains(text, bad) {
				t.Errorf("answer %q: the refusal says %q:\n%s", answer, bad, m.Text)
			}
		}
	}
	if v := e.EventCount(g.ID); v != g.Version {
		t.Fatalf("an early reply moved the game to version %d", v)
	}
}
