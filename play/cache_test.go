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

// CurrentState serves the legal moves from the game cache brought up to
// date: on a replica whose copy another replica's moves made stale, it
// equals a fresh fold at every version, and it caches what it loads.
func TestCurrentStateFollowsOtherReplicas(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	g, ana, ben := twoPlayerGame(t, e)
	reader := newService(e.pool, e.store, 0)
	players := map[int]play.Player{0: ana, 1: ben}
	for i := 0; i < 60; i++ {
		cur, err := reader.CurrentState(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := newService(e.pool, e.store, -1).Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := viewJSON(t, cur), viewJSON(t, fresh); a != b || cur.Version != fresh.Version {
			t.Fatalf("after %d moves: the current state differs from a fresh fold:\n%s\n%s", i, a, b)
		}
		if cur.Status != play.StatusActive {
			return
		}
		// Every other move the reader itself moves; the others come from
		// the other replica, so the reader's copy falls behind by one or
		// two versions (a move may append several events).
		seat := cur.State.ToAct()[0]
		mover := e.svc
		if i%3 == 0 {
			mover = reader
		}
		if _, err := mover.Move(ctx, playerMove(cur, players[seat], string(cur.LegalMoves(seat)[0].JSON))); err != nil {
			t.Fatalf("move %d: %v", i, err)
		}
	}
	if st := reader.GameCacheStats(); st.Hits == 0 {
		t.Fatalf("the reader's cache was never used: %+v", st)
	}
}

// CurrentState of an unknown or malformed game is not found.
func TestCurrentStateOfNoGame(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	for _, id := range []string{"01a21611-fb1d-71cf-a22b-99aa32ee5eac", "not-a-game"} {
		if _, err := e.svc.CurrentState(context.Background(), id); !errors.Is(err, play.ErrNotFound) {
			t.Fatalf("%s: %v, want not found", id, err)
		}
	}
}
