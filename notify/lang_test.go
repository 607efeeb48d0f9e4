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
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// registerIn registers a player who reads lang in zone.
func (e *env) registerIn(name, lang, zone string) play.Player {
	e.t.Helper()
	p, _, err := e.svc.RegisterPlayer(context.Background(), name, strings.ToLower(name)+"@example.org", play.Preferences{Language: lang, TimeZone: zone})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// newGame creates a 2-player game of ruleset for a (seat 0) and b.
func (e *env) newGame(ruleset string, a, b play.Player, tc *play.TimeControl) *play.Game {
	e.t.Helper()
	g, err := createAccepted(context.Background(), e.svc, a, play.CreateGame{
		Ruleset: ruleset, Seats: []play.SeatSpec{{Player: "me"}, {Player: b.ID}},
		Seed: strings.Repeat("5a", 32), TimeControl: tc,
	}, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

// flatText is a mail's text with its runs of white space one space.
func flatText(m outMail) string { return strings.Join(strings.Fields(m.text), " ") }

// TestEachPlayerInTheirLanguage plays a game of a Dutch and an Italian
// player: each mail goes out in its reader's language, deadlines in the
// reader's zone, and the news of the other's move in the reader's words.
func TestEachPlayerInTheirLanguage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	daan := e.registerIn("Daan", "nl", "Europe/Amsterdam")
	giulia := e.registerIn("Giulia", "it", "America/New_York")
	g := e.newGame("azul-mini", daan, giulia, &play.TimeControl{PerMove: play.Duration(72 * time.Hour)})
	toAct := g.ToAct()[0]
	players := []play.Player{daan, giulia}
	mover, other := players[toAct], players[1-toAct]

	greeting := map[string]string{daan.Email: "Hallo Daan,", giulia.Email: "Ciao Giulia,"}
	english := []string{"Hello", "Your turn", "your turn", "Game page", "Your legal moves", "Since your last move", "points", "wall"}
	check := func(m outMail, p play.Player) {
		t.Helper()
		if !strings.HasPrefix(m.text, greeting[p.Email]) {
			t.Fatalf("the mail to %s does not greet in their language:\n%s", p.Name, m.text)
		}
		for _, w := range english {
			if strings.Contains(m.text, w) {
				t.Fatalf("the mail to %s holds the English %q:\n%s", p.Name, w, m.text)
			}
		}
	}
	first := map[string]outMail{}
	for _, p := range players {
		m := e.relay.wait(t, "first mail to "+p.Name, func(m outMail) bool { return slices.Contains(m.to, p.Email) })
		check(m, p)
		first[p.Email] = m
	}
	// The first turn mail names the deadline in its reader's zone: Daan
	// reads Central European time, Giulia (in New York) Eastern time.
	turn := first[mover.Email]
	if turn.kind != compose.KindTurn {
		t.Fatalf("the first mail to %s is %s", mover.Name, turn.kind)
	}
	zone := map[string]string{daan.Email: "CET", giulia.Email: "EST"}[mover.Email]
	if !strings.Contains(flatText(turn), zone+" (") {
		t.Fatalf("the turn mail to %s does not name the deadline in %s:\n%s", mover.Name, zone, turn.text)
	}
	subject := map[string]string{daan.Email: "Je bent aan de beurt in", giulia.Email: "Tocca a te in"}[mover.Email]
	if !strings.Contains(turn.header.Get("Subject"), strings.Fields(subject)[0]) {
		t.Fatalf("the subject to %s is %q", mover.Name, turn.header.Get("Subject"))
	}

	// The mover plays; the other reads of it in their words.
	res := e.moveFirst(g, players[0], players[1])
	next := e.turnMail(g.ID, 1-toAct, res.Version)
	check(next, other)
	news := map[string]string{daan.Email: "Sinds je laatste zet: " + mover.Name + " nam ", giulia.Email: "Dalla tua ultima mossa: " + mover.Name + " ha preso "}[other.Email]
	if !strings.Contains(flatText(next), news) {
		t.Fatalf("the turn mail to %s does not tell the move in their words (%q):\n%s", other.Name, news, next.text)
	}
	moves := map[string]string{daan.Email: " blauw ", giulia.Email: " blu "}[other.Email]
	if !strings.Contains(next.text, moves) {
		t.Fatalf("the turn mail to %s does not list the moves in their words:\n%s", other.Name, next.text)
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
	daan := e.registerIn("Daan", "nl", "Europe/Amsterdam")
	ben := e.register("Ben")
	g := e.newGame("azul-mini", daan, ben, nil)
	players := []play.Player{daan, ben}
	dutch := 0
	for dutch < 4 {
		cur, err := e.svc.Game(context.Background(), g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status == play.StatusFinished {
			t.Fatal("the game ended before the Dutch replies")
		}
		seat := cur.ToAct()[0]
		m := e.turnMail(g.ID, seat, cur.Version)
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
			if !strings.Contains(m.text, ". "+answer) {
				t.Fatalf("the turn mail does not list %q in Dutch:\n%s", answer, m.text)
			}
			dutch++
		}
		if err := e.sendReply(players[seat].Email, replyTo(t, m), m.header.Get("Message-Id"), "", answer); err != nil {
			t.Fatal(err)
		}
		e.waitVersion(g.ID, cur.Version)
		recs, err := e.svc.Events(context.Background(), g.ID, cur.Version, 1)
		if err != nil || recs[0].Meta.Channel != "email" || recs[0].Meta.Notation != mv.Notation {
			t.Fatalf("reply %q: appended %+v (%v), want %q by email", answer, recs, err, mv.Notation)
		}
	}

	// Summer Pavilion: "g" is the initial of both geel and groen.
	pg := e.newGame("summer-pavilion", daan, ben, nil)
	if pg.ToAct()[0] != 0 {
		e.moveFirst(pg, daan, ben)
	}
	cur, err := e.svc.Game(context.Background(), pg.ID)
	if err != nil {
		t.Fatal(err)
	}
	m := e.turnMail(pg.ID, 0, cur.Version)
	if err := e.sendReply(daan.Email, replyTo(t, m), m.header.Get("Message-Id"), "", "F1 g"); err != nil {
		t.Fatal(err)
	}
	refused := e.relay.wait(t, "the refusal of F1 g", func(m outMail) bool {
		return strings.HasPrefix(m.kind, compose.KindRefused) && m.game == pg.ID && slices.Contains(m.to, daan.Email)
	})
	text := flatText(refused)
	for _, want := range []string{"Hallo Daan,", "is niet gespeeld", "“g” kan", "groen", "geel", "Er is niets veranderd"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the refusal lacks %q:\n%s", want, refused.text)
		}
	}
	if v := e.eventCount(pg.ID); v != cur.Version {
		t.Fatalf("an ambiguous reply changed the game: version %d, want %d", v, cur.Version)
	}
}

// TestUnreachableNoticeInEachReadersLanguage: when a Dutch player's
// address bounces, the other seats are told, each in their language.
func TestUnreachableNoticeInEachReadersLanguage(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, verifying)
	daan := e.registerIn("Daan", "nl", "Europe/Amsterdam")
	giulia := e.registerIn("Giulia", "it", "Europe/Rome")
	jonas := e.registerIn("Jonas", "de", "Europe/Berlin")
	e.markVerified(daan, giulia, jonas)
	g, err := createAccepted(context.Background(), e.svc, daan, play.CreateGame{
		Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: giulia.ID}, {Player: jonas.ID}},
		Seed: strings.Repeat("5a", 32),
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	first := e.relay.wait(t, "first mail to Daan", func(m outMail) bool { return m.game == g.ID && slices.Contains(m.to, daan.Email) })
	rp := returnPath(t, first)
	if err := e.sendBounce(rp, report(t, "postfix-user-unknown.eml", rp)); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[*play.Player]string{&giulia: "Daan potrebbe non ricevere notizie", &jonas: "Daan erfährt womöglich nichts"} {
		told := e.relay.wait(t, "the notice to "+p.Name, func(m outMail) bool {
			return m.kind == compose.KindUnreachable && slices.Contains(m.to, p.Email)
		})
		if !strings.Contains(flatText(told), want) {
			t.Errorf("the notice to %s is not in their language (%q):\n%s", p.Name, want, told.text)
		}
	}
}
