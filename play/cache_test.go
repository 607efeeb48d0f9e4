package play_test

import (
	"context"
	"errors"
	"testing"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// Two replicas on one database each keep their own game cache: moves made
// through one must never let the other decide against its stale copy.
func TestReplicasWithStaleCachesStayConsistent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	g, ana, ben := twoPlayerGame(t, e)
	other := newService(e.pool, e.store, 0)
	replicas := []*play.Service{e.svc, other}
	players := map[int]play.Player{0: ana, 1: ben}

	// Alternate the replica every move, so each one's cached copy is
	// always behind by the other's move; with If-Match on every other
	// move, the stale copy must not turn a current version into a 409.
	for i := 0; i < 40; i++ {
		cur, err := e.svc.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status != play.StatusActive {
			break
		}
		seat := cur.State.ToAct()[0]
		req := playerMove(cur, players[seat], string(cur.LegalMoves(seat)[0].JSON))
		if i%2 == 0 {
			v := cur.Version
			req.ExpectedVersion = &v
		}
		res, err := replicas[i%2].Move(ctx, req)
		if err != nil {
			t.Fatalf("move %d on replica %d: %v", i, i%2, err)
		}
		fresh, err := newService(e.pool, e.store, -1).Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := viewJSON(t, res.Game), viewJSON(t, fresh); a != b || res.Game.Version != fresh.Version {
			t.Fatalf("move %d: the replica's result differs from a fresh fold:\n%s\n%s", i, a, b)
		}
	}

	// A stale If-Match is still refused, whatever a cache holds.
	cur, err := other.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	seat := cur.State.ToAct()[0]
	req := playerMove(cur, players[seat], string(cur.LegalMoves(seat)[0].JSON))
	stale := cur.Version - 1
	req.ExpectedVersion = &stale
	for _, r := range replicas {
		if _, err := r.Move(ctx, req); !errors.Is(err, events.ErrConflict) {
			t.Fatalf("stale If-Match: %v, want a conflict", err)
		}
	}
}
