package notify_test

import (
	"context"
	"testing"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// TestCleanupForgetsOldIdempotencyKeys: the daily clean-up deletes the
// idempotency keys older than their retention, and only those; a retry
// within the retention gets its first result, one after it is a new
// request.
func TestCleanupForgetsOldIdempotencyKeys(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, 0)
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	old, recent := e.NewPavilion(ana, ben, nil), e.NewPavilion(ana, ben, nil)
	resign := func(g *play.Game) (*play.MoveResult, error) {
		return e.Svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: ana.ID},
			Notation: "resign", Channel: "api", IdempotencyKey: "resign-" + g.ID})
	}
	for _, g := range []*play.Game{old, recent} {
		if _, err := resign(g); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.Pool.Exec(ctx, `UPDATE idempotency_keys SET created_at = now() - interval '8 days' WHERE stream_id = $1`, old.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.N.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, err := e.Pool.Query(ctx, `SELECT stream_id::text FROM idempotency_keys`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		left = append(left, id)
	}
	if rows.Err() != nil || len(left) != 1 || left[0] != recent.ID {
		t.Fatalf("keys left for %v (%v), want only the recent game's %s", left, rows.Err(), recent.ID)
	}
	if res, err := resign(recent); err != nil || !res.Replayed {
		t.Fatalf("retry within the retention: %+v, %v; want the first result", res, err)
	}
	// The old game is over: its retry, now a new request, is refused.
	if res, err := resign(old); err == nil || (res != nil && res.Replayed) {
		t.Fatalf("retry after the retention: %+v, %v; want a new request, refused", res, err)
	}
}
