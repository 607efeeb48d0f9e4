package pavilion

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/azuld/azuld/engine"
)

// TestDecideRandIsDecideWithTheRevealsSource: for every batch with at most
// one reveal, DecideRand given the generator the seed would give returns
// exactly Decide's events, so bots' playouts play by the game's rules.
func TestDecideRandIsDecideWithTheRevealsSource(t *testing.T) {
	for _, cfg := range []engine.Config{
		{Ruleset: RulesetPavilion, Players: 2},
		{Ruleset: RulesetMini, Players: 3, Options: engine.Options{Board: "monochrome"}},
	} {
		seed := engine.Seed{9, 9}
		evs, err := Start(cfg, seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		var s State
		for i := range evs {
			if err := s.Apply(&evs[i]); err != nil {
				t.Fatal(err)
			}
		}
		rng := rand.New(rand.NewPCG(3, 4))
		compared := 0
		for !s.Over() {
			seat := s.Actor()
			legal := AppendLegal(nil, &s, seat)
			cmd := legal[rng.IntN(len(legal))]
			want, err := Decide(&s, seat, cmd, seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecideRand(&s, seat, cmd, seed.Rand(s.Reveals()), nil)
			if err != nil {
				t.Fatal(err)
			}
			before := s.Reveals()
			for i := range want {
				if err := s.Apply(&want[i]); err != nil {
					t.Fatal(err)
				}
			}
			if s.Reveals()-before <= 1 {
				compared++
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: DecideRand %v; Decide %v", cmd, got, want)
				}
			}
		}
		if compared == 0 {
			t.Fatal("nothing compared")
		}
	}
}
