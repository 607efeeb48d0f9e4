package notify_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// TestEachPlayerInTheirLanguage plays a game of a Dutch and an Italian
// player: each mail goes out in its reader's language, deadlines in the
// reader's zone, and the news of the other's move in the reader's words.
func TestEachPlayerInTheirLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	daan := e.RegisterIn("Daan", "nl", "Europe/Amsterdam")
	giulia := e.RegisterIn("Giulia", "it", "America/New_York")
	g := e.NewGame("azul-mini", daan, giulia, &play.TimeControl{PerMove: play.Duration(72 * time.Hour)})
	toAct := g.ToAct()[0]
	players := []play.Player{daan, giulia}
	mover, other := players[toAct], players[1-toAct]

	greeting := map[string]string{daan.Email: "Hallo Daan,", giulia.Email: "Ciao Giulia,"}
	english := []string{"Hello", "Your turn", "your turn", "Game page", "Your legal moves", "Since your last move", "points", "wall"}
	check := func(m outMail, p play.Player) {
		t.Helper()
		if !strings.HasPrefix(m.Text, greeting[p.Email]) {
			t.Fatalf("the mail to %s does not greet in their language:\n%s", p.Name, m.Text)
		}
		for _, w := range english {
			if strings.Contains(m.Text, w) {
				t.Fatalf("the mail to %s holds the English %q:\n%s", p.Name, w, m.Text)
			}
		}
	}
	first := map[string]outMail{}
	for _, p := range players {
		m := e.Relay.Wait(t, "first mail to "+p.Name, func(m outMail) bool { return slices.Contains(m.To, p.Email) })
		check(m, p)
		first[p.Email] = m
	}
	// The first turn mail names the deadline in its reader's zone: Daan
	// reads Central European time, Giulia (in New York) Eastern time.
	turn := first[mover.Email]
	if turn.Kind != compose.KindTurn {
		t.Fatalf("the first mail to %s is %s", mover.Name, turn.Kind)
	}
	zone := map[string]string{daan.Email: "CET", giulia.Email: "EST"}[mover.Email]
	if !strings.Contains(mailtest.FlatText(turn), zone+" (") {
		t.Fatalf("the turn mail to %s does not name the deadline in %s:\n%s", mover.Name, zone, turn.Text)
	}
	subject := map[string]string{daan.Email: "Je bent aan de beurt in", giulia.Email: "Tocca a te in"}[mover.Email]
	if !strings.Contains(turn.Header.Get("Subject"), strings.Fields(subject)[0]) {
		t.Fatalf("the subject to %s is %q", mover.Name, turn.Header.Get("Subject"))
	}

	// The mover plays; the other reads of it in their words.
	res := e.MoveFirst(g, players[0], players[1])
	next := e.TurnMail(g.ID, 1-toAct, res.Version)
	check(next, other)
	news := map[string]string{daan.Email: "Sinds je laatste zet: " + mover.Name + " nam ", giulia.Email: "Dalla tua ultima mossa: " + mover.Name + " ha preso "}[other.Email]
	if !strings.Contains(mailtest.FlatText(next), news) {
		t.Fatalf("the turn mail to %s does not tell the move in their words (%q):\n%s", other.Name, news, next.Text)
	}
	moves := map[string]string{daan.Email: " blauw ", giulia.Email: " blu "}[other.Email]
	if !strings.Contains(next.Text, moves) {
		t.Fatalf("the turn mail to %s does not list the moves in their words:\n%s", other.Name, next.Text)
	}
}

// TestUnreachableNoticeInEachReadersLanguage: when a Dutch player's
// address bounces, the other seats are told, each in their language.
func TestUnreachableNoticeInEachReadersLanguage(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, mailtest.Verifying)
	daan := e.RegisterIn("Daan", "nl", "Europe/Amsterdam")
	giulia := e.RegisterIn("Giulia", "it", "Europe/Rome")
	jonas := e.RegisterIn("Jonas", "de", "Europe/Berlin")
	e.MarkVerified(daan, giulia, jonas)
	g, err := mailtest.CreateAccepted(context.Background(), e.Svc, daan, play.CreateGame{
		Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: giulia.ID}, {Player: jonas.ID}},
		Seed: strings.Repeat("5a", 32),
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	first := e.Relay.Wait(t, "first mail to Daan", func(m outMail) bool { return m.Game == g.ID && slices.Contains(m.To, daan.Email) })
	rp := mailtest.ReturnPath(t, first)
	if err := e.SendBounce(rp, mailtest.Report(t, "postfix-user-unknown.eml", rp)); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[*play.Player]string{&giulia: "Daan potrebbe non ricevere notizie", &jonas: "Daan erfährt womöglich nichts"} {
		told := e.Relay.Wait(t, "the notice to "+p.Name, func(m outMail) bool {
			return m.Kind == compose.KindUnreachable && slices.Contains(m.To, p.Email)
		})
		if !strings.Contains(mailtest.FlatText(told), want) {
			t.Errorf("the notice to %s is not in their language (%q):\n%s", p.Name, want, told.Text)
		}
	}
}
