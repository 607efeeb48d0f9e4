package azul

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/azuld/azuld/engine"
)

// TestDecideRandIsDecideWithTheRevealsSource: DecideRand given the
// generator the seed would give for the next reveal returns exactly
// Decide's events (a batch has at most one deal), so bots' playouts play
// by the same rules as the game.
func TestDecideRandIsDecideWithTheRevealsSource(t *testing.T) {
	for _, grey := range []bool{false, true} {
		cfg := engine.Config{Ruleset: Ruleset, Players: 3}
		if grey {
			cfg.Options.Wall = "grey"
		}
		seed := testSeed(5)
		evs, err := Start(cfg, seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		var s State
		for _, e := range evs {
			if err := s.Apply(e); err != nil {
				t.Fatal(err)
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for !s.Over() {
			seat := pickSeat(rng, s.ToActMask())
			legal := AppendLegal(nil, &s, seat)
			cmd := legal[rng.IntN(len(legal))]
			want, err := Decide(&s, seat, cmd, seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecideRand(&s, seat, cmd, seed.Rand(s.Reveals()), nil)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: DecideRand %v, %v; Decide %v", cmd, got, err, want)
			}
			for _, e := range want {
				if err := s.Apply(e); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
