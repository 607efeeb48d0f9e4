package bots

import (
	"math"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/pavilion"
	"github.com/azuld/azuld/engine/rulesets"
)

// estimates is the greedy estimate of every legal move of seat in s, by
// notation, and the best of them: the values greedy chooses by.
func estimates(t *testing.T, s engine.State, seat int) (map[string]float64, float64) {
	t.Helper()
	out := map[string]float64{}
	best := math.Inf(-1)
	add := func(notation string, v float64) {
		out[notation] = v
		best = max(best, v)
	}
	switch st := s.(type) {
	case *azul.State:
		f := azulFamily{}
		for _, m := range greedyRank(f, st, seat, f.legal(nil, st, seat)) {
			add(m.move.Notation(), m.value)
		}
	case *pavilion.State:
		f := pavilionFamily{}
		for _, m := range greedyRank(f, st, seat, f.legal(nil, st, seat)) {
			add(m.move.Notation(), m.value)
		}
	default:
		t.Fatalf("%T", s)
	}
	return out, best
}

// TestLevelsBelowFourMakeNoAbsurdMoves: in positions from games between
// the levels, wherever a move the greedy estimate rates more than
// LevelGuard points below its best is legal (a needless dump on the floor
// line, say), levels 1–3 never play such a move, whatever the salt; and
// they do play other moves than the estimate's best (else they would all
// be greedy).
func TestLevelsBelowFourMakeNoAbsurdMoves(t *testing.T) {
	t.Parallel()
	reg := rulesets.All()
	for _, cfg := range []engine.Config{
		{Ruleset: "azul-mini", Players: 2},
		{Ruleset: "azul-mini", Players: 3, Options: engine.Options{Wall: "grey"}},
		{Ruleset: "summer-pavilion", Players: 2},
		{Ruleset: "summer-pavilion-mini", Players: 3, Options: engine.Options{Board: "monochrome"}},
	} {
		rules := reg[cfg.Ruleset]
		positions, guarded, notBest := 0, 0, 0
		for game := range 2 {
			seed := engine.Seed{byte(game), 0x1e}
			evs, err := rules.Start(cfg, seed)
			if err != nil {
				t.Fatal(err)
			}
			s, err := engine.Fold(rules, nil, evs)
			if err != nil {
				t.Fatal(err)
			}
			seats := []Bot{{Kind: Level1}, {Kind: Level3}, {Kind: Level2}}
			for step := uint64(0); !s.Over(); step++ {
				seat := s.ToAct()[0]
				values, best := estimates(t, s, seat)
				if len(values) > 1 && step%2 == 0 {
					positions++
					far := false
					for _, v := range values {
						far = far || v < best-LevelGuard
					}
					if far {
						guarded++
					}
					for lv, kind := range []string{Level1, Level2, Level3} {
						for salt := range uint64(3) {
							m, err := Bot{Kind: kind}.Choose(s, seat, step*7+salt)
							if err != nil {
								t.Fatal(err)
							}
							v, ok := values[m.Notation]
							if !ok {
								t.Fatalf("%s: level %d played %q, not a legal move", cfg.Ruleset, lv+1, m.Notation)
							}
							if v < best-LevelGuard {
								t.Fatalf("%s, move %d: level %d played %q, rated %.1f, the best %.1f", cfg.Ruleset, step, lv+1, m.Notation, v, best)
							}
							if v < best {
								notBest++
							}
						}
					}
				}
				m, err := seats[seat%len(seats)].Choose(s, seat, step)
				if err != nil {
					t.Fatal(err)
				}
				evs, err := rules.Decide(s, seat, m.Command, seed)
				if err != nil {
					t.Fatal(err)
				}
				if s, err = engine.Fold(rules, s, evs); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Logf("%s %dp: %d positions, %d with a move far below the best, %d choices below the best", cfg.Ruleset, cfg.Players, positions, guarded, notBest)
		if guarded < positions/4 || notBest == 0 {
			t.Errorf("%s: %d positions, %d with a move to guard against, %d choices below the best", cfg.Ruleset, positions, guarded, notBest)
		}
	}
}

// TestLevelsAreDeterministic: a level's move is a function of the state,
// the seat and the salt; the softmax of the weak levels does draw other
// moves with other salts.
func TestLevelsAreDeterministic(t *testing.T) {
	t.Parallel()
	reg := rulesets.All()
	for _, cfg := range []engine.Config{{Ruleset: "azul-mini", Players: 2}, {Ruleset: "summer-pavilion", Players: 2}} {
		rules := reg[cfg.Ruleset]
		evs, err := rules.Start(cfg, engine.Seed{3})
		if err != nil {
			t.Fatal(err)
		}
		s, err := engine.Fold(rules, nil, evs)
		if err != nil {
			t.Fatal(err)
		}
		seat := s.ToAct()[0]
		for _, b := range []Bot{{Kind: Level1}, {Kind: Level2}, {Kind: Level3}, {Kind: Level4}, {Kind: Level5}, {Kind: Level6, Playouts: 200}} {
			seen := map[string]bool{}
			for salt := range uint64(8) {
				m, err := b.Choose(s, seat, salt)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := b.Choose(s, seat, salt)
				if again.Notation != m.Notation {
					t.Fatalf("%s %s, salt %d: %q then %q", cfg.Ruleset, b.Kind, salt, m.Notation, again.Notation)
				}
				seen[m.Notation] = true
			}
			if b.Kind == Level1 && len(seen) < 2 {
				t.Errorf("%s: level 1 played %v with eight salts", cfg.Ruleset, seen)
			}
		}
	}
}

// TestLevelsFinishEveryVariant: levels 1–4 play every rule set and variant
// at 2 to 4 players to the end.
func TestLevelsFinishEveryVariant(t *testing.T) {
	t.Parallel()
	reg := rulesets.All()
	for _, base := range []engine.Config{
		{Ruleset: "azul-mini"},
		{Ruleset: "azul-mini", Options: engine.Options{Wall: "grey"}},
		{Ruleset: "summer-pavilion"},
		{Ruleset: "summer-pavilion", Options: engine.Options{Board: "monochrome"}},
		{Ruleset: "summer-pavilion-mini"},
	} {
		for players := 2; players <= 4; players++ {
			cfg := base
			cfg.Players = players
			seats := []Bot{{Kind: Level4}, {Kind: Level1}, {Kind: Level3}, {Kind: Level2}}[:players]
			s, err := Play(reg[cfg.Ruleset], cfg, engine.Seed{byte(players), 0x1f}, seats, 1)
			if err != nil {
				t.Fatalf("%s %dp: %v", cfg.Ruleset, players, err)
			}
			if r := s.Final().Reason; r == "resigned" {
				t.Fatalf("%s %dp: ended by %s", cfg.Ruleset, players, r)
			}
		}
	}
}

// TestLevelsClimb: over ten Azul Mini games, seats alternated, level 3
// beats level 1 and greedy beats level 2 more often than not.
func TestLevelsClimb(t *testing.T) {
	rules := rulesets.All()["azul-mini"]
	cfg := engine.Config{Ruleset: "azul-mini", Players: 2}
	for _, c := range []struct{ strong, weak string }{{Level3, Level1}, {Greedy, Level2}} {
		wins := 0.0
		for g := range 10 {
			seats := []Bot{{Kind: c.strong}, {Kind: c.weak}}
			a := g % 2
			if a == 1 {
				seats[0], seats[1] = seats[1], seats[0]
			}
			s, err := Play(rules, cfg, engine.Seed{byte(g), 0x20}, seats, uint64(g))
			if err != nil {
				t.Fatal(err)
			}
			switch sc := s.Scores(); {
			case sc[a] > sc[1-a]:
				wins++
			case sc[a] == sc[1-a]:
				wins += 0.5
			}
		}
		if wins <= 5 {
			t.Errorf("%s won %.1f of 10 games against %s", c.strong, wins, c.weak)
		}
	}
}

// The levels' softmax and its draw allocate nothing.
func TestLevelPickAllocatesNothing(t *testing.T) {
	values := []float64{3, 2.5, -4, 2.9, 1}
	allocs := testing.AllocsPerRun(100, func() {
		_ = softmaxPick(values, 1.0, levelRNG(7, 1))
	})
	if allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}

func TestSoftmaxPick(t *testing.T) {
	values := []float64{1, 5, -1, 4.5}
	// Temperature 0: the best.
	if i := softmaxPick(values, 0, 0.99); i != 1 {
		t.Fatalf("temperature 0: %d", i)
	}
	// Never a move more than LevelGuard below the best (index 2), at any
	// temperature and draw.
	counts := make([]int, len(values))
	for k := range 1000 {
		counts[softmaxPick(values, 100, float64(k)/1000)]++
	}
	if counts[2] != 0 || counts[0] != 0 || counts[1] == 0 || counts[3] == 0 {
		t.Fatalf("counts %v", counts)
	}
	// A low temperature prefers the best, a high one spreads.
	low, high := 0, 0
	for k := range 1000 {
		if softmaxPick(values, 0.2, float64(k)/1000) == 1 {
			low++
		}
		if softmaxPick(values, 5, float64(k)/1000) == 1 {
			high++
		}
	}
	if low < 850 || high > 600 || high < 400 {
		t.Fatalf("best chosen %d times of 1000 at 0.2, %d at 5", low, high)
	}
	// The draw is spread over [0, 1).
	sum := 0.0
	for salt := range uint64(1000) {
		u := levelRNG(salt, 0)
		if u < 0 || u >= 1 {
			t.Fatalf("draw %v", u)
		}
		sum += u
	}
	if sum < 450 || sum > 550 {
		t.Fatalf("mean draw %v", sum/1000)
	}
}
