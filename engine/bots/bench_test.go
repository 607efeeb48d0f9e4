package bots

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
)

// benchConfigs are the rule sets of the playout benchmarks.
var benchConfigs = []struct {
	name string
	cfg  engine.Config
}{
	{"azul-mini-2p", engine.Config{Ruleset: azul.Ruleset, Players: 2}},
	{"azul-mini-grey-2p", engine.Config{Ruleset: azul.Ruleset, Players: 2, Options: engine.Options{Wall: "grey"}}},
	{"azul-mini-4p", engine.Config{Ruleset: azul.Ruleset, Players: 4}},
	{"summer-pavilion-2p", engine.Config{Ruleset: pavilion.RulesetPavilion, Players: 2}},
	{"summer-pavilion-mono-2p", engine.Config{Ruleset: pavilion.RulesetPavilion, Players: 2, Options: engine.Options{Board: "monochrome"}}},
	{"summer-pavilion-mini-4p", engine.Config{Ruleset: pavilion.RulesetMini, Players: 4}},
}

// BenchmarkPlayout measures the search's playouts from the start of a
// game, one per op, as the search plays them: to the next deal (a whole
// round). allocs/op must be 0.
func BenchmarkPlayout(b *testing.B) { benchPlayouts(b, -1) }

// BenchmarkPlayoutToEnd measures playouts of whole games (from the first
// deal to the end) with the playout policy.
func BenchmarkPlayoutToEnd(b *testing.B) { benchPlayouts(b, 0) }

// benchPlayouts runs the playout benchmarks with a horizon (-1: the
// family's own).
func benchPlayouts(b *testing.B, horizon int) {
	for _, bc := range benchConfigs {
		b.Run(bc.name, func(b *testing.B) {
			switch bc.cfg.Ruleset {
			case azul.Ruleset:
				evs, err := azul.Start(bc.cfg, engine.Seed{3}, nil)
				if err != nil {
					b.Fatal(err)
				}
				var s azul.State
				for _, e := range evs {
					if err := s.Apply(e); err != nil {
						b.Fatal(err)
					}
				}
				benchPlayout(b, azulFamily{}, &s, horizon)
			default:
				s := pavilionStart(b, bc.cfg, engine.Seed{3})
				benchPlayout(b, pavilionFamily{}, &s, horizon)
			}
		})
	}
}

func benchPlayout[S any, C comparable, E any, F family[S, C, E]](b *testing.B, f F, root *S, horizon int) {
	x := newSearcher(f, root, 1)
	if horizon >= 0 {
		x.horizon = horizon
	}
	x.rng = rand.New(rand.NewPCG(1, 2))
	x.work = *root
	x.playout(&x.work) // grow the buffers once
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		x.work = *root
		x.playout(&x.work)
		if x.horizon == 0 && !f.over(&x.work) {
			b.Fatal("the playout stopped before the end")
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "playouts/s")
	// On a shared machine the wall clock counts other people's work too;
	// the CPU time of this process is what one core gave the playouts.
	b.ReportMetric(float64(b.N)/(cpuTime()-cpu).Seconds(), "playouts/cpu-s")
}

// BenchmarkSearchIteration measures whole search iterations (selection,
// expansion with the greedy ranking, playout, backup) from a game's start.
func BenchmarkSearchIteration(b *testing.B) {
	for _, bc := range benchConfigs[:4] {
		b.Run(bc.name, func(b *testing.B) {
			switch bc.cfg.Ruleset {
			case azul.Ruleset:
				evs, _ := azul.Start(bc.cfg, engine.Seed{3}, nil)
				var s azul.State
				for _, e := range evs {
					_ = s.Apply(e)
				}
				benchSearch(b, azulFamily{}, &s)
			default:
				evs, _ := pavilion.Start(bc.cfg, engine.Seed{3}, nil)
				var s pavilion.State
				for i := range evs {
					_ = s.Apply(&evs[i])
				}
				benchSearch(b, pavilionFamily{}, &s)
			}
		})
	}
}

func benchSearch[S any, C comparable, E any, F family[S, C, E]](b *testing.B, f F, root *S) {
	x := newSearcher(f, root, 1)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		x.iterate()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "iterations/s")
	b.ReportMetric(float64(b.N)/(cpuTime()-cpu).Seconds(), "iterations/cpu-s")
}

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkAnalysisAgreement measures how often the analysis of a Summer
// Pavilion position names the best move that a search ten times as deep
// names too. The positions are every ninth decision of games between the
// greedy and the checklist bots (2 players, coloured board), where the seat
// to act has a choice; run it once: -benchtime 1x.
func BenchmarkAnalysisAgreement(b *testing.B) {
	const playouts = 12000 // notify's analysis budget
	positions := agreementPositions(b, 32)
	for b.Loop() {
		agree := 0
		for i, s := range positions {
			seat := s.Actor()
			a, err := Analyse(&s, seat, playouts, uint64(i))
			if err != nil {
				b.Fatal(err)
			}
			deep, err := Analyse(&s, seat, 10*playouts, uint64(i)+1000)
			if err != nil {
				b.Fatal(err)
			}
			if a.Best == deep.Best {
				agree++
			}
			b.Logf("position %d (round %d, %s): %q, deep %q", i, s.Round(), s.Phase(), a.Best, deep.Best)
		}
		b.ReportMetric(100*float64(agree)/float64(len(positions)), "%agree")
		b.ReportMetric(float64(len(positions)), "positions")
	}
}

// agreementPositions plays games of greedy against checklist and keeps
// every ninth position where the seat to act has a choice, up to n.
func agreementPositions(b *testing.B, n int) []pavilion.State {
	var out []pavilion.State
	var evs []pavilion.Event
	rng := rand.New(rand.NewPCG(11, 12))
	for game := 0; len(out) < n; game++ {
		s := pavilionStart(b, engine.Config{Ruleset: pavilion.RulesetPavilion, Players: 2}, engine.Seed{byte(game), 0xa9})
		for step := 0; !s.Over() && len(out) < n; step++ {
			seat := s.Actor()
			legal := pavilion.AppendLegal(nil, &s, seat)
			if len(legal) > 1 && step%9 == 4 {
				out = append(out, s)
			}
			var c pavilion.Cmd
			if seat%2 == game%2 {
				c, _ = greedy(pavilionFamily{}, &s, seat)
			} else {
				c, _ = checklist(&s, seat)
			}
			var err error
			if evs, err = (pavilionFamily{}).play(&s, seat, c, rng, evs); err != nil {
				b.Fatal(err)
			}
		}
	}
	return out
}
