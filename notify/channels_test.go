package notify_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// TestTurnMailHasItsWebhook: in a three-player game where Cy stopped
// the game's mails, the players talk while their turn mails wait to be
// sent (the workers are down), and Ben resigns at the end. Every turn
// mail names a turn whose your_turn webhook the player's endpoint got
// (same game, seat and version), and Cy, who gets no mail, still hears
// of each of her turns by webhook.
func TestTurnMailHasItsWebhook(t *testing.T) {
	t.Parallel()
	// Only enqueued at first: the mails and webhooks wait.
	e := newEnvWith(t, 0)
	ctx := context.Background()
	players := []play.Player{e.Register("Ana"), e.Register("Ben"), e.Register("Cy")}
	catchers := map[string]*hookCatcher{}
	for _, p := range players {
		c := &hookCatcher{secret: "whsec_" + strings.Repeat("k", 20)}
		srv := httptest.NewServer(c)
		t.Cleanup(srv.Close)
		if _, err := e.N.RegisterWebhook(ctx, p.ID, srv.URL, c.secret); err != nil {
			t.Fatal(err)
		}
		catchers[p.ID] = c
	}
	g, err := mailtest.CreateAccepted(ctx, e.Svc, players[0], play.CreateGame{Ruleset: "azul-mini",
		Seats: []play.SeatSpec{{Player: "me"}, {Player: players[1].ID}, {Player: players[2].ID}}, Seed: strings.Repeat("3c", 32)}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.N.StopMails(ctx, g.ID, 2); err != nil {
		t.Fatal(err)
	}
	for range 6 {
		g = e.moveAny(g.ID, players)
		// Someone who is not to act says something: table talk, no turn.
		talker := players[(g.ToAct()[0]+1)%3]
		if _, err := e.Svc.Say(ctx, g.ID, talker, "nice one", "api", ""); err != nil {
			t.Fatal(err)
		}
	}
	e.CaughtUp(t)
	// The workers start: every job runs on the game as it is now.
	e.Start(e.NewNotifier(2))
	e.deliveriesDone(t)
	// The last turn mail has been read; Ben resigns.
	seat := 1
	if _, err := e.Svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: players[1].ID}, Seat: &seat, Notation: "resign", Channel: "api"}); err != nil {
		t.Fatal(err)
	}
	e.CaughtUp(t)
	e.deliveriesDone(t)

	turnMails := 0
	for seat, p := range players {
		c := catchers[p.ID]
		c.mu.Lock()
		hooks := map[int64]bool{}
		for _, h := range c.accepted {
			if h.Event == "your_turn" && h.GameID == g.ID && h.Seat == seat {
				hooks[h.Version] = true
			}
		}
		c.mu.Unlock()
		mails := 0
		for _, m := range e.Relay.All() {
			if m.Kind != compose.KindTurn || m.Game != g.ID || m.Seat != seat {
				continue
			}
			mails++
			if !hooks[m.Version] {
				t.Errorf("%s's turn mail %s names version %d, which no your_turn webhook of theirs names (their webhooks: %v)",
					p.Name, m.Header.Get("Message-Id"), m.Version, slices.Sorted(mapKeys(hooks)))
			}
		}
		if seat == 2 && (mails != 0 || len(hooks) == 0) {
			t.Errorf("Cy, who stopped mails, got %d turn mails and %d your_turn webhooks", mails, len(hooks))
		}
		turnMails += mails
	}
	if turnMails == 0 {
		t.Error("no turn mail at all")
	}
}

// moveAny plays the first legal move (not resign) of the seat to act
// and returns the game after it.
func (e *env) moveAny(gameID string, players []play.Player) *play.Game {
	e.T.Helper()
	g, err := e.Svc.Game(context.Background(), gameID)
	if err != nil {
		e.T.Fatal(err)
	}
	seat := g.ToAct()[0]
	legal := slices.DeleteFunc(g.LegalMoves(seat), func(m engine.Move) bool { return strings.HasPrefix(m.Notation, "resign") })
	res, err := e.Svc.Move(context.Background(), play.MoveRequest{GameID: gameID, Actor: events.Actor{Kind: "player", PlayerID: players[seat].ID},
		Seat: &seat, Move: legal[0].JSON, Channel: "api"})
	if err != nil {
		e.T.Fatal(err)
	}
	return res.Game
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// deliveriesDone waits until no mail or webhook job is left to run.
func (e *env) deliveriesDone(t testing.TB) {
	t.Helper()
	var open int
	eventually.True(t, 30*time.Second, func() bool {
		if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job
			WHERE kind IN ('azuld_mail', 'azuld_webhook') AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&open); err != nil {
			t.Fatal(err)
		}
		return open == 0
	}, "%d deliveries still to run", eventually.Last(func() any { return open }))
}
