package mailin_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mailin"
)

// FuzzReceive feeds inbound mails to Receive on a game in progress. No
// input may panic; a game's state changes only when the outcome is
// "applied" (otherwise only table talk may be appended); an unreadable
// mail is mailin.ErrMalformed. In the input, {to} stands for the
// seat's reply address, {from} for its player's address and {irt} for
// the Message-ID of the turn mail.
func FuzzReceive(f *testing.F) {
	e := newEnv(f)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	seat := g.ToAct()[0]
	from := []string{ana.Email, ben.Email}[seat]
	turn := e.TurnMail(g.ID, seat, g.Version)
	to := mailtest.ReplyTo(f, turn)
	irt := turn.Header.Get("Message-Id")

	for _, seed := range []string{
		"From: {from}\r\nTo: {to}\r\nMessage-ID: <s1@x>\r\nIn-Reply-To: {irt}\r\n\r\n1\r\n> quoted\r\n",
		"From: {from}\r\nTo: {to}\r\nMessage-ID: <s2@x>\r\n\r\n99999999999999999999\r\n",
		"From: {from}\r\nTo: {to}\r\nMessage-ID: <s3@x>\r\n\r\n{\"type\":\"take\",\"factory\":-1}\r\n",
		"From: {from}\r\nTo: {to}\r\nMessage-ID: <s4@x>\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n--b\r\nContent-Type: text/html; charset=koi8-r\r\n\r\n<p>resign</p>\r\n--b--\r\n",
		"From: mallory@example.org\r\nTo: {to}\r\n\r\n1\r\n",
		"To: play+@mail.test\r\n\r\n",
		"\x00\xff",
		"From: {from}\r\nTo: {to}\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!!\r\n",
		"From: {from}\r\nTo: {to}\r\nMessage-ID: <s5@x>\r\nIn-Reply-To: {irt}\r\n\r\n1\r\nNice one.\r\n-- \r\nsig\r\n",
		"From: {from}\r\nTo: {to}\r\nMessage-ID: <s6@x>\r\n\r\nHello there, how are you all?\r\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		raw = strings.NewReplacer("{to}", to, "{from}", from, "{irt}", irt).Replace(raw)
		version := func() int64 {
			cur, err := e.Svc.Game(context.Background(), g.ID)
			if err != nil {
				t.Fatal(err)
			}
			return cur.StateVersion
		}
		before := version()
		out, err := e.In.Receive(context.Background(), mailin.Envelope{}, []byte(raw))
		after := version()
		if err != nil && !errors.Is(err, mailin.ErrMalformed) {
			t.Fatalf("Receive: %v", err)
		}
		if after != before && out != mailin.OutcomeApplied {
			t.Fatalf("outcome %q (%v) but the game moved from %d to %d", out, err, before, after)
		}
	})
}
