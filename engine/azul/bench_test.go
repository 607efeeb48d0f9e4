package azul

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/azuld/azuld/engine"
)

// randomGame plays one game of random legal moves (the typed fast path)
// and returns the number of moves. evs and legal are reused buffers.
func randomGame(tb testing.TB, cfg engine.Config, seed engine.Seed, rng *rand.Rand, evs []Event, legal []Cmd) (int, []Event, []Cmd) {
	var err error
	evs, err = Start(cfg, seed, evs[:0])
	if err != nil {
		tb.Fatal(err)
	}
	var s State
	for i := range evs {
		if err := s.Apply(evs[i]); err != nil {
			tb.Fatal(err)
		}
	}
	moves := 0
	for !s.Over() {
		mask := s.ToActMask()
		seat := 0
		if mask&(mask-1) == 0 {
			for mask&(1<<seat) == 0 {
				seat++
			}
		} else {
			seat = pickSeat(rng, mask)
		}
		legal = AppendLegal(legal[:0], &s, seat)
		evs, err = Decide(&s, seat, legal[rng.IntN(len(legal))], seed, evs[:0])
		if err != nil {
			tb.Fatal(err)
		}
		for i := range evs {
			if err := s.Apply(evs[i]); err != nil {
				tb.Fatal(err)
			}
		}
		moves++
	}
	return moves, evs, legal
}

// BenchmarkSelfPlay2p plays complete 2-player games (coloured wall) of
// random legal moves on one core.
func BenchmarkSelfPlay2p(b *testing.B) {
	cfg := engine.Config{Ruleset: Ruleset, Players: 2}
	rng := rand.New(rand.NewPCG(1, 2))
	evs := make([]Event, 0, 64)
	legal := make([]Cmd, 0, 256)
	var seed engine.Seed
	moves := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		seed[0], seed[1], seed[2] = byte(i), byte(i>>8), byte(i>>16)
		var n int
		n, evs, legal = randomGame(b, cfg, seed, rng, evs, legal)
		moves += n
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/secs, "games/s")
	b.ReportMetric(float64(moves)/secs, "moves/s")
}

// recordGame plays a random game and returns its events.
func recordGame(tb testing.TB, players int, grey bool, seedByte byte) []Event {
	cfg := engine.Config{Ruleset: Ruleset, Players: players}
	if grey {
		cfg.Options.Wall = "grey"
	}
	seed := testSeed(seedByte)
	rng := rand.New(rand.NewPCG(uint64(seedByte), 9))
	log, err := Start(cfg, seed, nil)
	if err != nil {
		tb.Fatal(err)
	}
	var s State
	for _, e := range log {
		if err := s.Apply(e); err != nil {
			tb.Fatal(err)
		}
	}
	var legal []Cmd
	var evs []Event
	for !s.Over() {
		seat := pickSeat(rng, s.ToActMask())
		legal = AppendLegal(legal[:0], &s, seat)
		evs, err = Decide(&s, seat, legal[rng.IntN(len(legal))], seed, evs[:0])
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range evs {
			if err := s.Apply(e); err != nil {
				tb.Fatal(err)
			}
		}
		log = append(log, evs...)
	}
	return log
}

// BenchmarkFold folds decoded events into a state (a whole 4-player game
// per iteration).
func BenchmarkFold(b *testing.B) {
	log := recordGame(b, 4, false, 3)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var s State
		for j := range log {
			if err := s.Apply(log[j]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(log))/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkDecodeAndFold decodes the stored JSON of a complete 4-player
// game through the type-erased rules and folds it, as the server does when
// it loads a game without a snapshot.
func BenchmarkDecodeAndFold(b *testing.B) {
	log := recordGame(b, 4, false, 3)
	type stored struct {
		typ  string
		data []byte
	}
	records := make([]stored, len(log))
	for i, e := range log {
		data, err := json.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		records[i] = stored{e.EventType(), data}
	}
	rules := New()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var s engine.State
		for _, rec := range records {
			e, err := rules.DecodeEvent(rec.typ, SchemaVersion, rec.data)
			if err != nil {
				b.Fatal(err)
			}
			if s, err = rules.Evolve(s, e); err != nil {
				b.Fatal(err)
			}
		}
	}
	secs := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/secs, "games/s")
	b.ReportMetric(float64(b.N*len(records))/secs, "events/s")
}
