package events_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
)

// TestSnapshotsChangeNoLoadedState plays random complete games of every
// rule set, reads them at every version the way the command path does
// (latest snapshot, then the events after it, saving a snapshot every 16
// events), and checks each state against the engine's own fold; then
// deletes every snapshot and checks again.
func TestSnapshotsChangeNoLoadedState(t *testing.T) {
	t.Parallel()
	configs := []engine.Config{
		{Ruleset: "summer-pavilion", Players: 4},
		{Ruleset: "summer-pavilion", Players: 2, Options: engine.Options{Board: "monochrome"}},
		{Ruleset: "summer-pavilion-mini", Players: 3},
		{Ruleset: "azul-mini", Players: 2},
		{Ruleset: "azul-mini", Players: 4, Options: engine.Options{Wall: "grey"}},
	}
	for i, cfg := range configs {
		t.Run(fmt.Sprintf("%s/%dp/%s%s", cfg.Ruleset, cfg.Players, cfg.Options.Board, cfg.Options.Wall), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			pool := newPool(t, 4)
			store := events.NewStore(pool)
			rng := rand.New(rand.NewPCG(uint64(i), 42))
			g := playRandomGame(t, cfg, rng)
			id := appendGame(t, store, g)
			t.Logf("%d events in %d appends", g.events(), len(g.batches))
			folding := engineFolding(g.rules, 16)

			check := func(stage string, version int64, f events.Folding[engine.State]) events.Loaded[engine.State] {
				t.Helper()
				loaded, err := events.LoadState(ctx, store, id, version, f)
				if err != nil {
					t.Fatalf("%s: load at %d: %v", stage, version, err)
				}
				want := version
				if want == 0 {
					want = int64(g.events())
				}
				if loaded.Version != want {
					t.Fatalf("%s: loaded version %d, want %d", stage, loaded.Version, want)
				}
				got, err := loaded.State.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, g.states[want]) {
					t.Fatalf("%s: the state at version %d (from the snapshot at %d) differs from the engine's fold:\n%s\n%s",
						stage, want, loaded.SnapshotVersion, got, g.states[want])
				}
				return loaded
			}

			// Every version an append ends at, in order: snapshots are
			// written on the way.
			end := int64(0)
			fromSnapshot := 0
			for _, batch := range g.batches {
				end += int64(len(batch))
				if check("growing", end, folding).SnapshotVersion > 0 {
					fromSnapshot++
				}
			}
			snapshots := count(t, pool, `SELECT count(*) FROM snapshots WHERE stream_id = $1`, id)
			if snapshots < int64(g.events()/16)/2 || fromSnapshot < len(g.batches)/2 {
				t.Fatalf("%d events: %d snapshots written, %d of %d loads from a snapshot", g.events(), snapshots, fromSnapshot, len(g.batches))
			}
			// Random versions, including ones inside a batch.
			for range 40 {
				check("random", 1+rng.Int64N(int64(g.events())), folding)
			}
			check("all", 0, folding)

			if err := store.DeleteSnapshots(ctx, id); err != nil {
				t.Fatal(err)
			}
			noSnapshots := engineFolding(g.rules, 0)
			for v := int64(1); v <= int64(g.events()); v += 1 + rng.Int64N(7) {
				if l := check("without snapshots", v, noSnapshots); l.SnapshotVersion != 0 {
					t.Fatalf("a snapshot at %d was used after they were all deleted", l.SnapshotVersion)
				}
			}
			check("without snapshots", 0, noSnapshots)
		})
	}
}

// TestSnapshotFormatAndBadSnapshots: a snapshot of another state format
// is never read, one that fails to decode is skipped, and neither changes
// the state.
func TestSnapshotFormatAndBadSnapshots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := newPool(t, 4)
	store := events.NewStore(pool)
	g := playRandomGame(t, engine.Config{Ruleset: "azul-mini", Players: 3}, rand.New(rand.NewPCG(7, 7)))
	id := appendGame(t, store, g)
	f := engineFolding(g.rules, 0)
	last := int64(g.events())

	// Another format at the last version: garbage that would fail if read.
	if err := store.SaveSnapshot(ctx, id, last, f.Format+1, []byte("not a state")); err != nil {
		t.Fatal(err)
	}
	// This format, a version earlier, undecodable.
	if err := store.SaveSnapshot(ctx, id, last-1, f.Format, []byte(`{"broken":`)); err != nil {
		t.Fatal(err)
	}
	var bad []int64
	f.BadSnapshot = func(v int64, err error) { bad = append(bad, v) }
	decoded := 0
	decode := f.Decode
	f.Decode = func(data []byte) (engine.State, error) {
		decoded++
		if bytes.Equal(data, []byte("not a state")) {
			t.Error("a snapshot of another format was decoded")
		}
		return decode(data)
	}
	loaded, err := events.LoadState(ctx, store, id, 0, f)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := loaded.State.MarshalJSON(); !bytes.Equal(got, g.states[last]) || loaded.SnapshotVersion != 0 {
		t.Fatalf("state from snapshot %d differs or came from a bad snapshot", loaded.SnapshotVersion)
	}
	if decoded != 1 || len(bad) != 1 || bad[0] != last-1 {
		t.Fatalf("decoded %d snapshots, reported bad ones %v; want 1 and [%d]", decoded, bad, last-1)
	}

	// A good snapshot of this format is used, from its version on.
	good := g.states[last-5]
	if err := store.SaveSnapshot(ctx, id, last-5, f.Format, good); err != nil {
		t.Fatal(err)
	}
	version, data, found, err := store.LatestSnapshot(ctx, id, f.Format, last-2)
	if err != nil || !found || version != last-5 || !bytes.Equal(data, good) {
		t.Fatalf("latest snapshot at or before %d: %d %v %v", last-2, version, found, err)
	}
	loaded, err = events.LoadState(ctx, store, id, last-2, f)
	if err != nil || loaded.SnapshotVersion != last-5 || loaded.Version != last-2 {
		t.Fatalf("load at %d: from %d to %d, %v", last-2, loaded.SnapshotVersion, loaded.Version, err)
	}
	if got, _ := loaded.State.MarshalJSON(); !bytes.Equal(got, g.states[last-2]) {
		t.Fatal("the state from a snapshot differs from the fold")
	}

	// Snapshots are refused for versions the stream does not have.
	for _, v := range []int64{0, -1, last + 1} {
		if err := store.SaveSnapshot(ctx, id, v, f.Format, good); !errors.Is(err, events.ErrInvalid) {
			t.Errorf("snapshot at version %d: %v", v, err)
		}
	}
	if err := store.SaveSnapshot(ctx, newStreamID(), 1, f.Format, good); !errors.Is(err, events.ErrInvalid) {
		t.Errorf("snapshot of an unknown stream: %v", err)
	}
	if _, _, found, err := store.LatestSnapshot(ctx, newStreamID(), f.Format, last); found || err != nil {
		t.Errorf("latest snapshot of an unknown stream: %v %v", found, err)
	}
	if err := store.DeleteSnapshots(ctx, id); err != nil {
		t.Fatal(err)
	}
	if n := count(t, pool, `SELECT count(*) FROM snapshots`); n != 0 {
		t.Fatalf("%d snapshots left", n)
	}
}
