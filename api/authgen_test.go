package api

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/azuld/azuld/play"
)

// TestAuthCacheFollowsTheGeneration: a moved generation empties the
// cache at the next reading, readings are at most AuthGenerationEvery
// apart unless forced, and a lookup that began before a move is never
// cached.
func TestAuthCacheFollowsTheGeneration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Unix(1000, 0)
	c := newAuthCache(time.Hour)
	c.now = func() time.Time { return now }
	var shared int64
	reads := 0
	read := func(context.Context) (int64, error) { reads++; return shared, nil }
	ana := play.Player{ID: "a", Name: "Ana"}

	if err := c.sync(ctx, read, false); err != nil || reads != 1 {
		t.Fatalf("first sync: %v, %d reads", err, reads)
	}
	c.put("azt_x", ana, c.generation())
	if _, ok := c.get("azt_x"); !ok {
		t.Fatal("not cached")
	}

	// Another replica revokes: within the bound nothing is read...
	shared++
	now = now.Add(AuthGenerationEvery / 2)
	if err := c.sync(ctx, read, false); err != nil || reads != 1 {
		t.Fatalf("read again within the bound: %v, %d reads", err, reads)
	}
	if _, ok := c.get("azt_x"); !ok {
		t.Fatal("emptied without a reading")
	}
	// ...and past it the cache empties.
	now = now.Add(AuthGenerationEvery)
	if err := c.sync(ctx, read, false); err != nil || reads != 2 {
		t.Fatalf("no reading past the bound: %v, %d reads", err, reads)
	}
	if _, ok := c.get("azt_x"); ok {
		t.Fatal("a token cached before the revocation is still served")
	}

	// A lookup that began before a move is not cached after it.
	began := c.generation()
	shared++
	if err := c.sync(ctx, read, true); err != nil || reads != 3 {
		t.Fatalf("a forced sync did not read: %v, %d reads", err, reads)
	}
	c.put("azt_y", ana, began)
	if _, ok := c.get("azt_y"); ok {
		t.Fatal("a lookup from before the move was cached")
	}

	// A slow reading older than the current generation changes nothing.
	c.put("azt_z", ana, c.generation())
	stale := func(context.Context) (int64, error) { return shared - 1, nil }
	if err := c.sync(ctx, stale, true); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get("azt_z"); !ok {
		t.Fatal("an older generation emptied the cache")
	}

	// A failed reading trusts nothing cached, and is retried next time.
	boom := errors.New("database down")
	if err := c.sync(ctx, func(context.Context) (int64, error) { return 0, boom }, false); err != nil {
		// Not due yet: no reading.
		t.Fatalf("a sync that was not due read: %v", err)
	}
	if err := c.sync(ctx, func(context.Context) (int64, error) { return 0, boom }, true); !errors.Is(err, boom) {
		t.Fatalf("the failed reading was not reported: %v", err)
	}
	if _, ok := c.get("azt_z"); ok {
		t.Fatal("served from the cache without a generation")
	}
	if err := c.sync(ctx, read, false); err != nil || reads != 4 {
		t.Fatalf("after a failure the next request does not read: %v, %d reads", err, reads)
	}
}
