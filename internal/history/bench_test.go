package history

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/play"
)

// BenchmarkPlayGame is the cost of playing one game in memory (no
// database), per rule set and mover: the generator's CPU share.
func BenchmarkPlayGame(b *testing.B) {
	reg := rulesets.All()
	for _, mover := range []string{bots.Greedy, bots.Random} {
		for _, v := range variants[:6:6] {
			if v.options.Wall == "" && v.options.Board != "" {
				continue
			}
			name := mover + "/" + v.ruleset
			if v.options.Wall != "" {
				name += "-" + v.options.Wall
			}
			b.Run(name, func(b *testing.B) {
				seed, err := engine.NewSeed()
				if err != nil {
					b.Fatal(err)
				}
				events := 0
				for i := 0; b.Loop(); i++ {
					g, err := PlayGame(reg, Spec{
						ID: newGameID(), Config: engine.Config{Ruleset: v.ruleset, Players: 2, Options: v.options},
						Seats:   []play.Seat{{PlayerID: "0195f6a4-8c1e-7cc1-9a3f-2d4b6c8e0f11"}, {PlayerID: "0195f6a4-8c1e-7cc1-9a3f-2d4b6c8e0f12"}},
						Creator: "0195f6a4-8c1e-7cc1-9a3f-2d4b6c8e0f11", Seed: seed, JoinSeat: -1, Mover: mover, Keyed: 0.8,
						Start: time.Now(), Rand: rand.New(rand.NewPCG(uint64(i), 1)),
					})
					if err != nil {
						b.Fatal(err)
					}
					events += g.Events()
				}
				b.ReportMetric(float64(events)/float64(b.N), "events/game")
			})
		}
	}
}
