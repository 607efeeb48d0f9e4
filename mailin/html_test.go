package mailin_test

import (
	"context"
	"fmt"
	"mime/quotedprintable"
	"net/smtp"
	"strings"
	"testing"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// TestHTMLOnlyLatin1Reply: a reply written as HTML only, in ISO-8859-1 and
// quoted-printable, moves like a plain one; an automatic reply does not.
func TestHTMLOnlyLatin1Reply(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	seat := g.ToAct()[0]
	p := map[int]play.Player{0: ana, 1: ben}[seat]
	turn := e.TurnMail(g.ID, seat, g.Version)
	to := mailtest.ReplyTo(t, turn)

	auto := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: Abwesenheit\r\nAuto-Submitted: auto-replied\r\nMessage-ID: <auto@example.org>\r\nIn-Reply-To: %s\r\n\r\n1\r\n", p.Email, to, turn.Header.Get("Message-Id"))
	if err := smtp.SendMail(e.Inbound, nil, p.Email, []string{to}, []byte(auto)); err != nil {
		t.Fatal(err)
	}
	if e.EventCount(g.ID) != g.Version {
		t.Fatal("an automatic reply moved")
	}

	var body strings.Builder
	qp := quotedprintable.NewWriter(&body)
	// "Très bien" in Latin-1, then the move, then the quote.
	_, _ = qp.Write([]byte("<html><body><div>1</div><div>Tr\xe8s bien</div><blockquote>It is your turn.</blockquote></body></html>"))
	_ = qp.Close()
	raw := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: =?iso-8859-1?q?R=E9p?=\r\nMessage-ID: <html@example.org>\r\nIn-Reply-To: %s\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n%s\r\n",
		p.Email, to, turn.Header.Get("Message-Id"), strings.ReplaceAll(body.String(), "\n", "\r\n"))
	if err := smtp.SendMail(e.Inbound, nil, p.Email, []string{to}, []byte(raw)); err != nil {
		t.Fatal(err)
	}
	e.WaitVersion(g.ID, g.Version)
	recs, err := e.Svc.Events(context.Background(), g.ID, g.Version, 1)
	if err != nil || recs[0].Meta.Channel != "email" {
		t.Fatalf("appended %+v (%v)", recs, err)
	}
	e.Relay.Wait(t, "confirmation", func(m outMail) bool { return m.Kind == compose.KindAccepted && m.Version == g.Version+1 })
	// The line below the move is a message to the table, after it.
	e.WaitVersion(g.ID, g.Version+1)
	if ms := e.messages(g.ID, p.ID); len(ms) != 1 || ms[0].Text != "Très bien" || ms[0].Version != g.Version+2 {
		t.Fatalf("messages = %+v", ms)
	}
}
