package pavilion

import (
	"math/rand/v2"
	"testing"

	"github.com/azuld/azuld/engine"
)

// randomGame plays one game with uniformly random legal moves through the
// typed fast path and returns the number of moves; log collects the events.
func randomGame(b testing.TB, cfg engine.Config, seed engine.Seed, rng *rand.Rand, legal []Cmd, log []Event) ([]Cmd, []Event, int) {
	var err error
	log, err = Start(cfg, seed, log[:0])
	if err != nil {
		b.Fatal(err)
	}
	var s State
	for i := range log {
		if err := s.Apply(&log[i]); err != nil {
			b.Fatal(err)
		}
	}
	moves := 0
	for !s.Over() {
		seat := s.actor()
		legal = AppendLegal(legal[:0], &s, seat)
		n := len(log)
		log, err = Decide(&s, seat, legal[rng.IntN(len(legal))], seed, log)
		if err != nil {
			b.Fatal(err)
		}
		for i := n; i < len(log); i++ {
			if err := s.Apply(&log[i]); err != nil {
				b.Fatal(err)
			}
		}
		moves++
	}
	return legal, log, moves
}

func BenchmarkSelfPlay2p(b *testing.B) {
	cfg := engine.Config{Ruleset: RulesetPavilion, Players: 2}
	rng := rand.New(rand.NewPCG(1, 2))
	var legal []Cmd
	var log []Event
	moves := 0
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		var seed engine.Seed
		seed[0], seed[1] = byte(i), byte(i>>8)
		var n int
		legal, log, n = randomGame(b, cfg, seed, rng, legal, log)
		moves += n
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "games/s")
	b.ReportMetric(float64(moves)/sec, "moves/s")
}

// gameLog plays a random game and returns its events.
func gameLog(b testing.TB, players int) []Event {
	cfg := engine.Config{Ruleset: RulesetPavilion, Players: players}
	_, log, _ := randomGame(b, cfg, engine.Seed{7}, rand.New(rand.NewPCG(3, 4)), nil, nil)
	return log
}

func BenchmarkFold(b *testing.B) {
	log := gameLog(b, 4)
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		var s State
		for i := range log {
			if err := s.Apply(&log[i]); err != nil {
				b.Fatal(err)
			}
		}
		events += len(log)
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// storedEvent is an event as the store keeps it.
type storedEvent struct {
	typ     string
	version int
	data    []byte
}

func BenchmarkDecodeAndFold4p(b *testing.B) {
	log := gameLog(b, 4)
	stored := make([]storedEvent, len(log))
	for i := range log {
		data, _ := log[i].MarshalJSON()
		stored[i] = storedEvent{log[i].EventType(), log[i].SchemaVersion(), data}
	}
	b.ReportAllocs()
	for b.Loop() {
		var s State
		for _, se := range stored {
			e, err := DecodeEvent(se.typ, se.version, se.data)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Apply(&e); err != nil {
				b.Fatal(err)
			}
		}
		if !s.Over() {
			b.Fatal("the game did not end")
		}
	}
	b.ReportMetric(float64(len(stored)), "events/game")
}

// BenchmarkDecodeAndFold4pRules is the same through the type-erased
// engine.Rules interface, as the server folds.
func BenchmarkDecodeAndFold4pRules(b *testing.B) {
	log := gameLog(b, 4)
	rules, _ := New(RulesetPavilion)
	stored := make([]storedEvent, len(log))
	for i := range log {
		data, _ := log[i].MarshalJSON()
		stored[i] = storedEvent{log[i].EventType(), log[i].SchemaVersion(), data}
	}
	b.ReportAllocs()
	for b.Loop() {
		var s engine.State
		for _, se := range stored {
			e, err := rules.DecodeEvent(se.typ, se.version, se.data)
			if err != nil {
				b.Fatal(err)
			}
			if s, err = rules.Evolve(s, e); err != nil {
				b.Fatal(err)
			}
		}
		if !s.Over() {
			b.Fatal("the game did not end")
		}
	}
}
