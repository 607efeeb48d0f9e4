package notify_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// TestExpiredInvitationTellsTheCreator: an invitation left unanswered
// past its time frees the seat, and the creator hears of it once.
func TestExpiredInvitationTellsTheCreator(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g, err := e.Svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	e.Relay.Wait(t, "invitation to Ben", func(m outMail) bool { return m.Kind == compose.KindInvited && slices.Contains(m.To, ben.Email) })
	// The server's sweep, a week and a minute on.
	later := time.Now().Add(play.DefaultInvitationTTL + time.Minute)
	sweeper := play.New(play.Config{Pool: e.Pool, Store: events.NewStore(e.Pool), Rules: rulesets.All(),
		Now: func() time.Time { return later }})
	for range 2 {
		if _, err := sweeper.ExpireInvitations(ctx); err != nil {
			t.Fatal(err)
		}
	}
	after := e.WaitVersion(g.ID, g.Version)
	if after.Seats[1].Reserved != "" || after.Version != g.Version+1 {
		t.Fatalf("after the expiry: version %d (created at %d), seat 1 %+v", after.Version, g.Version, after.Seats[1])
	}
	news := e.Relay.Wait(t, "expiry news to Ana", func(m outMail) bool { return m.Kind == compose.KindInviteExpired && slices.Contains(m.To, ana.Email) })
	if !strings.Contains(news.Text, "Ben did not answer your invitation") || !strings.HasPrefix(mailtest.SubjectOf(news), "Invitation expired: ") {
		t.Fatalf("the news of the expiry (%q):\n%s", mailtest.SubjectOf(news), news.Text)
	}
	e.CaughtUp(t)
	if n := e.MailsTo(compose.KindInviteExpired, ana.Email); n != 1 {
		t.Fatalf("%d expiry mails to Ana, want 1", n)
	}
}
