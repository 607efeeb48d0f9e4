package api

import (
	"context"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/play"
)

// TestStreamRecordsPresence: a seated player's stream of a game puts them
// at its table for as long as it is open, on every replica (the rows are
// in the database); a stranger's or an anonymous stream does not.
func TestStreamRecordsPresence(t *testing.T) {
	t.Parallel()
	// A player's presence is kept when their turn mails wait for it.
	env := newTestEnvAt(t, pg.ServerRoleURL(t, pg.NewDatabase(t)), 0, func(c *setup) { c.app.AwayDelay = time.Minute })
	store := env.parts.Presence
	ana, ben, eve := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Eve")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	at := func(p *client) (bool, time.Time) {
		t.Helper()
		here, last, err := store.At(context.Background(), g.ID, p.Player.ID)
		if err != nil {
			t.Fatal(err)
		}
		return here, last
	}

	ctx, leave := context.WithCancel(context.Background())
	defer leave()
	s := openStreamAs(t, ctx, env, g.ID, "", ana.token)
	if m := s.nextData(t); m.event != "state" {
		t.Fatalf("first message %+v", m)
	}
	waitFor(t, "Ana at the table", func() bool { here, _ := at(ana); return here })
	eveStream := openStreamAs(t, context.Background(), env, g.ID, "", eve.token)
	eveStream.nextData(t)
	anon := openStream(t, env, g.ID, "")
	anon.nextData(t)
	if here, last := at(eve); here || !last.IsZero() {
		t.Fatalf("Eve, who holds no seat, is at the table (%v, %v)", here, last)
	}
	if here, _ := at(ben); here {
		t.Fatal("Ben is at the table without a stream")
	}

	leave()
	waitFor(t, "Ana gone from the table", func() bool { here, last := at(ana); return !here && !last.IsZero() })
}

// waitFor polls a condition for up to 30 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventually.True(t, 30*time.Second, cond, "timed out waiting for %s", what)
}
