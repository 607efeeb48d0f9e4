package mailin_test

import (
	"context"
	"net/mail"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// TestInvitationByMail: a player named for a seat is invited by mail in
// their language; a reply that is neither yes nor no is refused with how
// to answer; their no by reply (in their language) frees the seat, and
// the creator hears of it.
func TestInvitationByMail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana, daan := e.Register("Ana"), e.RegisterIn("Daan", "nl", "Europe/Amsterdam")
	g, err := e.Svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: daan.ID}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	inv := e.Relay.Wait(t, "invitation to Daan", func(m outMail) bool { return m.Kind == compose.KindInvited && slices.Contains(m.To, daan.Email) })
	text := strings.Join(strings.Fields(inv.Text), " ")
	if !strings.HasPrefix(mailtest.SubjectOf(inv), "Uitnodiging voor ") {
		t.Fatalf("the invitation's subject is %q", mailtest.SubjectOf(inv))
	}
	if !strings.Contains(text, "Ana nodigt je uit") || !strings.Contains(text, "“akkoord”") || !strings.Contains(text, "“weiger”") || !strings.Contains(text, "verloopt de uitnodiging") {
		t.Fatalf("the invitation does not say who invites and how to answer:\n%s", inv.Text)
	}
	from := mail.Address{Name: daan.Name, Address: daan.Email}
	if err := e.sendClientReply(clientStyles[0], from, inv, "1"); err != nil {
		t.Fatal(err)
	}
	refused := e.Relay.Wait(t, "refusal to Daan", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindRefused) && slices.Contains(m.To, daan.Email)
	})
	if !strings.Contains(strings.Join(strings.Fields(refused.Text), " "), "dit is een uitnodiging voor een spel") {
		t.Fatalf("the refusal does not say how to answer an invitation:\n%s", refused.Text)
	}
	if after, err := e.Svc.Game(ctx, g.ID); err != nil || after.Version != g.Version {
		t.Fatalf("a refused reply changed the game: %v, %+v", err, after)
	}
	if err := e.sendClientReply(clientStyles[1], from, inv, "weiger"); err != nil {
		t.Fatal(err)
	}
	after := e.WaitVersion(g.ID, g.Version)
	if after.Status != play.StatusOpen || after.Seats[1].Reserved != "" || !slices.Equal(after.Declined, []string{daan.ID}) {
		t.Fatalf("after Daan's no: %q, seat 1 %+v", after.Status, after.Seats[1])
	}
	news := e.Relay.Wait(t, "decline news to Ana", func(m outMail) bool { return m.Kind == compose.KindInviteDeclined && slices.Contains(m.To, ana.Email) })
	if !strings.Contains(news.Text, "Daan declined your invitation") {
		t.Fatalf("the news of the decline:\n%s", news.Text)
	}
	for _, m := range e.Relay.All() {
		if m.Kind == compose.KindRematchDeclined || m.Kind == compose.KindInvitation {
			t.Fatalf("a %s mail was sent for an invitation to a new game:\n%s", m.Kind, m.Text)
		}
	}
}
