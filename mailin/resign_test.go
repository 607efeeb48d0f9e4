package mailin_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// TestResignByMailAnyTime: a player may resign by mail whenever the API
// lets them, also when it is not their turn. Ana answers an old reminder
// with "resign" after her time control moved for her and the game went
// on without her.
func TestResignByMailAnyTime(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	tc := &play.TimeControl{PerMove: play.Duration(time.Hour), OnTimeout: "bot", RemindBefore: play.Duration(10 * time.Minute)}
	g := e.NewPavilion(ana, ben, tc)
	players := map[int]play.Player{0: ana, 1: ben}
	seat := g.ToAct()[0]
	p := players[seat]
	e.TurnMail(g.ID, seat, g.Version)
	e.FireTimers(g.ID, notify.ActionRemind)
	reminder := e.Relay.Wait(t, "reminder", func(m outMail) bool { return strings.HasPrefix(m.Kind, compose.KindReminder) && m.Seat == seat })

	e.FireTimers(g.ID, notify.ActionDeadline)
	cur := e.WaitVersion(g.ID, g.Version)
	// The others move on, and more: until it is someone else's turn.
	for moved := 0; moved < 3 || slices.Contains(cur.ToAct(), seat); moved++ {
		cur = e.MoveFirst(cur, ana, ben).Game
	}

	if err := e.SendReply(p.Email, mailtest.ReplyTo(t, reminder), reminder.Header.Get("Message-Id"), "<resign@example.org>", "resign"); err != nil {
		t.Fatal(err)
	}
	over := e.WaitVersion(g.ID, cur.Version)
	if over.Status != play.StatusFinished {
		t.Fatalf("the game is %s after the resignation", over.Status)
	}
	recs, err := e.Svc.Events(context.Background(), g.ID, cur.Version, 1)
	if err != nil {
		t.Fatal(err)
	}
	if m := recs[0].Meta; m.Channel != "email" || m.Notation != "resign" || m.Actor.Seat == nil || *m.Actor.Seat != seat {
		t.Fatalf("the resignation was recorded as %+v", m)
	}
	if f := over.State.Final(); f == nil || !slices.ContainsFunc(f.Players, func(fp engine.FinalPlayer) bool { return fp.Seat == seat && fp.Resigned }) {
		t.Fatalf("the final result does not show %s resigned: %+v", p.Name, f)
	}
	for _, m := range e.Relay.All() {
		if strings.HasPrefix(m.Kind, compose.KindRefused) && slices.Contains(m.To, p.Email) {
			t.Fatalf("the resignation was refused:\n%s", m.Text)
		}
	}
}
