package mailin_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

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
