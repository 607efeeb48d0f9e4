package play

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
)

// variant is one rule set with options and a player count.
type variant struct {
	ruleset string
	players int
	options engine.Options
}

// variants lists every rule set, option and player count.
func variants() []variant {
	var out []variant
	for players := 2; players <= 4; players++ {
		out = append(out,
			variant{"azul-mini", players, engine.Options{}},
			variant{"azul-mini", players, engine.Options{Wall: "grey"}},
			variant{"summer-pavilion", players, engine.Options{}},
			variant{"summer-pavilion", players, engine.Options{Board: "monochrome"}},
			variant{"summer-pavilion", players, engine.Options{WildOrder: []string{"purple", "green", "orange", "yellow", "blue", "red"}}},
			variant{"summer-pavilion-mini", players, engine.Options{}},
		)
	}
	return out
}

// foldedGame folds a game of v through the same path as a load (Game.apply
// on stored records): created, then moves chosen by rng until moves have
// been played or the game ends. Every batch has its own command id.
func foldedGame(t testing.TB, reg engine.Registry, v variant, rng *rand.Rand, moves int) *Game {
	t.Helper()
	rules, err := reg.Get(v.ruleset)
	if err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	var seed engine.Seed
	for i := range seed {
		seed[i] = byte(rng.IntN(256))
	}
	seats := make([]Seat, v.players)
	for i := range seats {
		seats[i] = Seat{Seat: i, PlayerID: uuid.NewString()}
	}
	cfg := engine.Config{Ruleset: v.ruleset, Players: v.players, Options: v.options}
	created, err := json.Marshal(gameCreated{Config: cfg, Seats: seats, SeedCommitment: seed.Commitment(), CreatedBy: seats[0].PlayerID})
	if err != nil {
		t.Fatal(err)
	}
	g := newGame(id)
	at := time.Now()
	fold := func(typ string, schema int, data []byte, meta events.Meta) {
		at = at.Add(time.Minute)
		rec := events.Record{StreamID: id, Version: g.Version + 1, Type: typ, Schema: schema, Data: data, Meta: meta, RecordedAt: at}
		if err := g.apply(reg, rec); err != nil {
			t.Fatal(err)
		}
	}
	foldEngine := func(evs []engine.Event, meta events.Meta) {
		recs, err := EngineEvents(evs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			fold(r.Type, r.Schema, r.Data, meta)
		}
	}
	system := events.Meta{Actor: events.Actor{Kind: "system"}, CommandID: uuid.NewString()}
	fold(EvGameCreated, 1, created, system)
	start, err := rules.Start(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	foldEngine(start, system)
	for range moves {
		if g.State.Over() {
			break
		}
		seat := g.State.ToAct()[0]
		legal := g.State.LegalMoves(seat)
		m := legal[rng.IntN(len(legal))]
		evs, err := rules.Decide(g.State, seat, m.Command, seed)
		if err != nil {
			t.Fatal(err)
		}
		s := seat
		foldEngine(evs, events.Meta{Actor: events.Actor{Kind: "player", PlayerID: seats[seat].PlayerID, Seat: &s}, CommandID: uuid.NewString(), Channel: "api"})
	}
	return g
}

// manyGames folds n running games of every variant in turn, each stopped
// after a random number of moves (the cache holds running games only).
func manyGames(t testing.TB, n int, seed uint64) []*Game {
	reg := rulesets.All()
	rng := rand.New(rand.NewPCG(seed, 1))
	vs := variants()
	out := make([]*Game, 0, n)
	for i := range n {
		g := foldedGame(t, reg, vs[i%len(vs)], rng, rng.IntN(200))
		for g.Status == StatusFinished {
			g = foldedGame(t, reg, vs[i%len(vs)], rng, rng.IntN(100))
		}
		out = append(out, g)
	}
	return out
}

// heapInUse is the live heap after two collections.
func heapInUse() int64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// The estimate of a game's memory is checked against the heap growth of
// many games of every variant held by a cache: within a factor of 1.5
// either way, and the figures are logged for docs/SCALING.md.
func TestGameSizeEstimate(t *testing.T) {
	// Not parallel: it measures the heap's growth, which other tests'
	// allocations would add to (parallel tests start once it is done).
	if testing.Short() {
		t.Skip("folds thousands of games")
	}
	// Under the race detector a third of the games, still thousands of
	// entries of every variant: the long form is the run without it.
	n := 3000
	if raceDetector {
		n = 1000
	}
	reg := rulesets.All()
	rng := rand.New(rand.NewPCG(7, 7))
	vs := variants()
	c := newGameCache(0, 1<<40)
	before := heapInUse()
	for i := range n {
		// Folded, cached (as a clone) and dropped: only the cache keeps
		// the game alive, as after a move.
		c.lru.put(foldedGame(t, reg, vs[i%len(vs)], rng, rng.IntN(200)).cachedCopy())
	}
	after := heapInUse()
	st := c.stats()
	runtime.KeepAlive(c)
	measured := after - before
	ratio := float64(st.Bytes) / float64(measured)
	t.Logf("%d games: estimated %d bytes (%d a game), measured heap growth %d (%d a game), estimate/measured %.2f",
		n, st.Bytes, st.Bytes/int64(n), measured, measured/int64(n), ratio)
	if st.Entries != n {
		t.Fatalf("%d entries, want %d", st.Entries, n)
	}
	if ratio < 1/1.5 || ratio > 1.5 {
		t.Fatalf("estimate/measured %.2f, outside [0.67, 1.5]", ratio)
	}
}

// The size of one game of each variant at its largest (a full round of
// moves in the tail), for docs/SCALING.md.
func TestGameSizeByVariant(t *testing.T) {
	t.Parallel()
	reg := rulesets.All()
	rng := rand.New(rand.NewPCG(3, 3))
	for _, v := range variants() {
		var lo, hi int64 = 1 << 62, 0
		for range 30 {
			s := foldedGame(t, reg, v, rng, rng.IntN(300)).memSize() + entryOverhead
			lo, hi = min(lo, s), max(hi, s)
		}
		t.Logf("%-22s %d players %-40v %5d to %5d bytes", v.ruleset, v.players, fmt.Sprint(v.options), lo, hi)
		if lo < 500 || hi > 16<<10 {
			t.Errorf("%s %d players: %d to %d bytes, an estimate gone astray", v.ruleset, v.players, lo, hi)
		}
	}
}

// However many games of every variant pass through it, the cache never
// holds more than its byte budget, and it counts what it evicts.
func TestGameCacheStaysWithinBudget(t *testing.T) {
	t.Parallel()
	games := manyGames(t, 600, 11)
	const budget = 256 << 10
	c := newGameCache(0, budget)
	var evicted int
	for i, g := range games {
		c.put(g)
		st := c.stats()
		if st.Bytes > budget {
			t.Fatalf("after %d games: %d bytes, budget %d", i+1, st.Bytes, budget)
		}
		// The bytes held are the sum of the entries' estimates.
		var sum int64
		for _, id := range c.lru.keys() {
			cached, _ := c.lru.byKey[id].Value.(*lruEntry[*Game])
			sum += cached.size
		}
		if sum != st.Bytes {
			t.Fatalf("after %d games: %d bytes counted, entries sum to %d", i+1, st.Bytes, sum)
		}
		if i+1 != st.Entries+int(st.Evictions) {
			t.Fatalf("after %d games: %d entries and %d evictions", i+1, st.Entries, st.Evictions)
		}
		evicted = int(st.Evictions)
	}
	if evicted == 0 {
		t.Fatal("nothing evicted: the test does not exercise the budget")
	}
	st := c.stats()
	t.Logf("budget %d: %d games held (%d bytes), %d evicted", budget, st.Entries, st.Bytes, st.Evictions)
	if st.Bytes < budget*3/4 {
		t.Fatalf("only %d of %d bytes used", st.Bytes, budget)
	}

	// An entry bound applies on top of the bytes.
	few := newGameCache(10, budget)
	for _, g := range games[:100] {
		few.put(g)
	}
	if st := few.stats(); st.Entries != 10 || st.Evictions != 90 {
		t.Fatalf("bounded to 10 games: %+v", st)
	}
}

// Eviction takes the least recently used game: a get or a put makes a
// game the most recent.
func TestGameCacheEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	games := manyGames(t, 40, 5)
	var budget int64
	for _, g := range games[:10] {
		budget += entryOverhead + g.clone().memSize()
	}
	c := newGameCache(0, budget)
	for _, g := range games[:10] {
		c.put(g)
	}
	if st := c.stats(); st.Entries != 10 || st.Evictions != 0 {
		t.Fatalf("ten games in a budget of ten: %+v", st)
	}
	ids := func(gs ...*Game) []string {
		var out []string
		for _, g := range gs {
			out = append(out, g.ID)
		}
		return out
	}
	// Use game 0 and 1 again: 2 becomes the oldest.
	if _, ok := c.get(games[0].ID); !ok {
		t.Fatal("game 0 not cached")
	}
	c.put(games[1])
	want := append(ids(games[1], games[0]), ids(reverse(games[2:10])...)...)
	if got := c.lru.keys(); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	// Each new game evicts from the back until it fits.
	for _, g := range games[10:] {
		before := c.lru.keys()
		c.put(g)
		after := c.lru.keys()
		if after[0] != g.ID {
			t.Fatalf("the new game is not the most recent")
		}
		kept := after[1:]
		if !slices.Equal(kept, before[:len(kept)]) {
			t.Fatalf("evicted other than the oldest: before %v, after %v", before, after)
		}
	}
	if _, ok := c.get(games[2].ID); ok {
		t.Fatal("the least recently used game survived")
	}
	st := c.stats()
	if st.Hits != 1 || st.Misses != 1 {
		t.Fatalf("hits %d, misses %d; want 1 and 1", st.Hits, st.Misses)
	}
}

// A put of an older version leaves the newer one cached; a stale game is
// forgotten without counting as an eviction.
func TestGameCacheKeepsNewestVersion(t *testing.T) {
	t.Parallel()
	g := manyGames(t, 1, 9)[0]
	c := newGameCache(0, 0)
	c.put(g)
	old := g.clone()
	old.Version--
	c.put(old)
	if got, _ := c.get(g.ID); got.Version != g.Version {
		t.Fatalf("version %d cached, want %d", got.Version, g.Version)
	}
	c.forget(g.ID)
	if st := c.stats(); st.Entries != 0 || st.Bytes != 0 || st.Evictions != 0 {
		t.Fatalf("after forget: %+v", st)
	}
}

// The seed cache holds at most its entries.
func TestSeedCacheBounded(t *testing.T) {
	t.Parallel()
	c := newSeedCache(100)
	for i := range 1000 {
		c.put(uuid.NewString(), engine.Seed{byte(i)})
	}
	st := c.stats()
	if st.Entries != 100 || st.Evictions != 900 || st.Bytes != 100*seedEntrySize {
		t.Fatalf("%+v", st)
	}
}

// cachedCopy is the entry put keeps, finished games included (put drops
// those, but their size is estimated all the same).
func (g *Game) cachedCopy() (string, *Game, func(*Game) bool) {
	return g.ID, g.clone(), nil
}

// A finished game is dropped from the cache: it takes no more moves.
func TestGameCacheDropsFinishedGames(t *testing.T) {
	t.Parallel()
	reg := rulesets.All()
	rng := rand.New(rand.NewPCG(4, 4))
	g := foldedGame(t, reg, variant{"azul-mini", 2, engine.Options{}}, rng, 10)
	c := newGameCache(0, 0)
	c.put(g)
	if _, ok := c.get(g.ID); !ok {
		t.Fatal("a running game was not cached")
	}
	done := g.clone()
	done.Status = StatusFinished
	done.Version++
	c.put(done)
	if st := c.stats(); st.Entries != 0 || st.Bytes != 0 {
		t.Fatalf("a finished game kept: %+v", st)
	}
}

func reverse[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}
