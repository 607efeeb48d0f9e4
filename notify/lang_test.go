package notify_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
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

// TestDutchRepliesInDutch: a Dutch player answers turn mails in Dutch
// ("F2 rood 3"), through the SMTP listener, for several moves, and each
// is played; an ambiguous Dutch reply in Summer Pavilion ("F1 g": geel or
// groen) is refused in Dutch with the candidates and changes nothing.
func TestDutchRepliesInDutch(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	words, err := notation.New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	daan := e.RegisterIn("Daan", "nl", "Europe/Amsterdam")
	ben := e.Register("Ben")
	g := e.NewGame("azul-mini", daan, ben, nil)
	players := []play.Player{daan, ben}
	dutch := 0
	for dutch < 4 {
		cur, err := e.Svc.Game(context.Background(), g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status == play.StatusFinished {
			t.Fatal("the game ended before the Dutch replies")
		}
		seat := cur.ToAct()[0]
		m := e.TurnMail(g.ID, seat, cur.Version)
		// A move that is not a resignation, written as its player writes.
		var mv engine.Move
		for _, c := range cur.LegalMoves(seat) {
			if c.Notation != "resign" && (mv.Notation == "" || len(c.Notation) > len(mv.Notation)) {
				mv = c
			}
		}
		answer := mv.Notation
		if seat == 0 {
			answer = words.Say("nl", "azul-mini", mv.Notation)
			if answer == mv.Notation {
				t.Fatalf("%q says the same in Dutch", mv.Notation)
			}
			if !strings.Contains(m.Text, ". "+answer) {
				t.Fatalf("the turn mail does not list %q in Dutch:\n%s", answer, m.Text)
			}
			dutch++
		}
		if err := e.SendReply(players[seat].Email, mailtest.ReplyTo(t, m), m.Header.Get("Message-Id"), "", answer); err != nil {
			t.Fatal(err)
		}
		e.WaitVersion(g.ID, cur.Version)
		recs, err := e.Svc.Events(context.Background(), g.ID, cur.Version, 1)
		if err != nil || recs[0].Meta.Channel != "email" || recs[0].Meta.Notation != mv.Notation {
			t.Fatalf("reply %q: appended %+v (%v), want %q by email", answer, recs, err, mv.Notation)
		}
	}

	// Summer Pavilion: "g" is the initial of both geel and groen.
	pg := e.NewGame("summer-pavilion", daan, ben, nil)
	if pg.ToAct()[0] != 0 {
		e.MoveFirst(pg, daan, ben)
	}
	cur, err := e.Svc.Game(context.Background(), pg.ID)
	if err != nil {
		t.Fatal(err)
	}
	m := e.TurnMail(pg.ID, 0, cur.Version)
	if err := e.SendReply(daan.Email, mailtest.ReplyTo(t, m), m.Header.Get("Message-Id"), "", "F1 g"); err != nil {
		t.Fatal(err)
	}
	refused := e.Relay.Wait(t, "the refusal of F1 g", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindRefused) && m.Game == pg.ID && slices.Contains(m.To, daan.Email)
	})
	text := mailtest.FlatText(refused)
	for _, want := range []string{"Hallo Daan,", "is niet gespeeld", "“g” kan", "groen", "geel", "Er is niets veranderd"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the refusal lacks %q:\n%s", want, refused.Text)
		}
	}
	if v := e.EventCount(pg.ID); v != cur.Version {
		t.Fatalf("an ambiguous reply changed the game: version %d, want %d", v, cur.Version)
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
