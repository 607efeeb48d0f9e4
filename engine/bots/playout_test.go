package bots

import (
	"math"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/pavilion"
)

// A Pavilion playout with the search's horizon plays the whole round: it
// goes on through the supply's refills after bonus tiles (draws that end
// the tree's branches) and stops at the next deal.
func TestPavilionPlayoutsRunToTheRoundsEnd(t *testing.T) {
	root := pavilionStart(t, engine.Config{Ruleset: pavilion.RulesetPavilion, Players: 2}, engine.Seed{7})
	f := pavilionFamily{}
	x := newSearcher(f, &root, 1)
	throughRefills := 0
	for !root.Over() {
		round := root.Round()
		var next pavilion.State
		for range 40 {
			x.work = root
			x.playout(&x.work)
			st := &x.work
			if !st.Over() && (st.Round() != round+1 || st.Phase() != pavilion.PhaseAcquire) {
				t.Fatalf("a playout from round %d stopped in round %d, phase %v", round, st.Round(), st.Phase())
			}
			// One draw is the next deal; more are refills played through.
			if !st.Over() && st.Reveals()-root.Reveals() > 1 {
				throughRefills++
			}
			next = *st
		}
		root = next
	}
	if throughRefills == 0 {
		t.Fatal("no playout went on past a supply refill")
	}
	t.Logf("%d playouts went on past a refill", throughRefills)
}

// Summer Pavilion playouts with the heuristic policy allocate nothing:
// every buffer lives in the searcher, the policy's scores on the stack.
func TestPavilionPlayoutsAllocateNothing(t *testing.T) {
	for _, cfg := range []engine.Config{
		{Ruleset: pavilion.RulesetPavilion, Players: 2},
		{Ruleset: pavilion.RulesetPavilion, Players: 3, Options: engine.Options{Board: "monochrome"}},
		{Ruleset: pavilion.RulesetMini, Players: 4},
	} {
		root := pavilionStart(t, cfg, engine.Seed{9})
		x := newSearcher(pavilionFamily{}, &root, 1)
		x.work = root
		x.playout(&x.work) // grow the buffers once
		allocs := testing.AllocsPerRun(50, func() {
			x.work = root
			x.playout(&x.work)
		})
		if allocs != 0 {
			t.Errorf("%s %s %dp: %.1f allocations per playout", cfg.Ruleset, cfg.Options.Board, cfg.Players, allocs)
		}
	}
}

// pavilionStart is the state of a new Summer Pavilion game after its first
// deal.
func pavilionStart(tb testing.TB, cfg engine.Config, seed engine.Seed) pavilion.State {
	tb.Helper()
	evs, err := pavilion.Start(cfg, seed, nil)
	if err != nil {
		tb.Fatal(err)
	}
	var s pavilion.State
	for i := range evs {
		if err := s.Apply(&evs[i]); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// The estimate that judges a playout's end treats the seats alike but for
// the first pick: at a game's first deal every seat has the same board,
// hand and score, so all are estimated the same but the seat that takes
// first, which gets what moving first is worth. (What a take leaves to
// the next seat only orders one seat's own moves: judge, not eval.)
func TestPavilionEstimateTreatsTheSeatsAlike(t *testing.T) {
	f := pavilionFamily{}
	for players := 2; players <= 4; players++ {
		s := pavilionStart(t, engine.Config{Ruleset: pavilion.RulesetPavilion, Players: players}, engine.Seed{byte(players)})
		actor := s.Actor()
		first := pavilionEval(&s, 0)
		for seat := 1; seat < players; seat++ {
			if v := pavilionEval(&s, seat); v != first {
				t.Errorf("%d players: seat %d is estimated %.2f, seat 0 %.2f", players, seat, v, first)
			}
		}
		other := f.eval(&s, (actor+1)%players)
		for seat := range players {
			want := other
			if seat == actor {
				want += spFirstPick
			}
			if v := f.eval(&s, seat); v != want {
				t.Errorf("%d players: at the round's start seat %d (seat %d moves first) is estimated %.2f, want %.2f", players, seat, actor, v, want)
			}
		}
		// Judging its own takes, the seat to act does weigh what it leaves.
		if got := f.judge(&s, actor); got != first {
			t.Errorf("%d players: the seat to act judges the position %.2f, not %.2f", players, got, first)
		}
	}
}

// Where another seat acts, the tree tries only the move the greedy
// estimate prefers for it: the searching seat's own choices get the
// budget, against the replies a strong player makes.
func TestSearchTriesOthersGreedyReplyOnly(t *testing.T) {
	for _, players := range []int{2, 3, 4} {
		root := pavilionStart(t, engine.Config{Ruleset: pavilion.RulesetPavilion, Players: players}, engine.Seed{11})
		f := pavilionFamily{}
		x := newSearcher(f, &root, 1)
		x.run(400, time.Time{})
		rootNode := x.nodes[0]
		checked := 0
		for i := rootNode.first; i < rootNode.first+rootNode.count; i++ {
			c := x.nodes[i]
			if c.leaf || !c.expanded || c.count == 0 {
				continue
			}
			st := root
			if _, err := f.play(&st, int(c.mover), c.move, x.rng, nil); err != nil {
				t.Fatal(err)
			}
			other := f.actor(&st)
			if other == x.seat {
				continue
			}
			if c.count != 1 {
				t.Fatalf("%dp: seat %d's replies to %v: %d tried, want 1", players, other, c.move, c.count)
			}
			reply := x.nodes[c.first]
			if want, _ := greedy(f, &st, other); reply.move != want || int(reply.mover) != other {
				t.Fatalf("%dp: seat %d's reply to %v: %v, greedy plays %v", players, other, c.move, reply.move, want)
			}
			checked++
		}
		if checked == 0 {
			t.Fatalf("%dp: no reply of another seat in the tree", players)
		}
	}
}

// The bot's search spends its budget on the few best moves by the
// estimate: its root holds the family's rootWidth best, in the estimate's
// order, the estimate's choice first.
func TestSearchRootHoldsTheEstimatesBestMoves(t *testing.T) {
	f := pavilionFamily{}
	root := pavilionStart(t, engine.Config{Ruleset: pavilion.RulesetPavilion, Players: 2}, engine.Seed{7})
	x := newSearcher(f, &root, 1)
	x.run(200, time.Time{})
	rootNode := x.nodes[0]
	if int(rootNode.count) != f.rootWidth() {
		t.Fatalf("root holds %d moves, want %d", rootNode.count, f.rootWidth())
	}
	want, _ := greedy(f, &root, x.seat)
	if got := x.nodes[rootNode.first].move; got != want {
		t.Fatalf("root's first move %v, the estimate's choice %v", got, want)
	}
	for i := rootNode.first; i < rootNode.first+rootNode.count; i++ {
		if x.nodes[i].visits == 0 {
			t.Fatalf("root move %v never tried", x.nodes[i].move)
		}
	}
}

// A lead at a round's end is judged by how many rounds are left to change
// it: the spread narrows from round to round and is nil once the game is
// over, where a playout's win is the final scores' sign.
func TestPavilionSpreadNarrowsAsTheRoundsPass(t *testing.T) {
	root := pavilionStart(t, engine.Config{Ruleset: pavilion.RulesetPavilion, Players: 2}, engine.Seed{5})
	f := pavilionFamily{}
	x := newSearcher(f, &root, 1)
	last := f.spread(&root)
	if last <= 0 {
		t.Fatalf("spread at the first deal %.2f, want more than 0", last)
	}
	st := root
	for !st.Over() {
		round := st.Round()
		x.playout(&st)
		if st.Over() {
			break
		}
		if st.Round() != round+1 {
			t.Fatalf("a playout from round %d stopped in round %d", round, st.Round())
		}
		got := f.spread(&st)
		if got >= last || got <= 0 {
			t.Fatalf("spread in round %d: %.2f after %.2f, want less and more than 0", st.Round(), got, last)
		}
		last = got
	}
	if got := f.spread(&st); got != 0 {
		t.Fatalf("spread once the game is over: %.2f, want 0", got)
	}
	if got := (azulFamily{}).spread(nil); got != 0 {
		t.Fatalf("Azul spread %.2f, want 0: its playouts win by the sign", got)
	}
}

// The Summer Pavilion bot plays its search's move instead of the
// estimate's only when it is a point better in mean margin without giving
// up mean reward; Azul's only by its switch margin in mean reward.
func TestSearchOverrulesTheEstimateOnlyByItsRules(t *testing.T) {
	est := verdict{visits: 1000, reward: 0.60, diff: 5.0}
	for _, c := range []struct {
		name string
		best verdict
		want bool
	}{
		{"a point better, same reward", verdict{visits: 1200, reward: 0.60, diff: 6.0}, true},
		{"a point better, a little less reward", verdict{visits: 1200, reward: 0.585, diff: 6.5}, true},
		{"half a point better", verdict{visits: 1200, reward: 0.65, diff: 5.5}, false},
		{"points better at a cost in reward", verdict{visits: 1200, reward: 0.55, diff: 9.0}, false},
	} {
		if got := (pavilionFamily{}).overrules(c.best, est); got != c.want {
			t.Errorf("Pavilion, %s: overrules %v, want %v", c.name, got, c.want)
		}
	}
	if (azulFamily{}).overrules(verdict{reward: 0.62, diff: 9}, est) {
		t.Error("Azul overrules at 0.02 more reward, want only at its switch margin of 0.03")
	}
	if !(azulFamily{}).overrules(verdict{reward: 0.64, diff: 4}, est) {
		t.Error("Azul keeps to the estimate at 0.04 more reward, want its search's move")
	}
}

// Where the search's playouts stop, at a round's start, the round's own
// tiles are still to come: the estimate there counts them for the partial
// bonuses, which in the course of a round only the later rounds can
// complete. At the last round's start partial bonuses are then still worth
// something; in the course of the last round, beyond the hand, nothing.
func TestPavilionRoundStartCountsTheRoundAhead(t *testing.T) {
	root := pavilionStart(t, engine.Config{Ruleset: pavilion.RulesetPavilion, Players: 2}, engine.Seed{7})
	f := pavilionFamily{}
	x := newSearcher(f, &root, 1)
	st := root
	for st.Round() < pavilion.Rounds {
		x.playout(&st)
		if st.Over() {
			t.Fatalf("the game ended in round %d", st.Round())
		}
	}
	if st.Phase() != pavilion.PhaseAcquire {
		t.Fatalf("a playout stopped in phase %v, want the acquisition of the next round", st.Phase())
	}
	for seat := range st.Players() {
		p := st.Seat(seat)
		mono := st.Monochrome()
		b, hand := newSPBoard(&p, mono), p.Hand
		spPlan(&b, &hand, st.Wild(), mono) // the tiles kept from the round before
		partial := spBonuses(&b, mono, 1) - spBonuses(&b, mono, 0)
		if partial <= 0 {
			t.Fatalf("seat %d has no partial bonus at the last round's start: the game does not test the estimate", seat)
		}
		during, start := pavilionEval(&st, seat), f.eval(&st, seat)
		if seat == st.Actor() {
			partial += spFirstPick // the first choice of the round's factories
		}
		if math.Abs(start-during-partial) > 1e-9 {
			t.Errorf("seat %d (seat %d moves first): the round's start estimated %.2f, in the course of the round %.2f: want %.2f more, the partial bonuses a round of tiles can bring and the first pick", seat, st.Actor(), start, during, partial)
		}
	}
	// In the course of a round the search judges as greedy does.
	mid := root
	for mid.Phase() == pavilion.PhaseAcquire {
		seat := mid.Actor()
		x.legal = f.playoutMoves(x.legal[:0], &mid, seat)
		if _, err := f.play(&mid, seat, f.quick(&mid, seat, x.legal, x.rng), x.rng, nil); err != nil {
			t.Fatal(err)
		}
	}
	for seat := range mid.Players() {
		if got, want := f.eval(&mid, seat), pavilionEval(&mid, seat); got != want {
			t.Errorf("seat %d in phase %v: estimated %.2f, want greedy's %.2f", seat, mid.Phase(), got, want)
		}
	}
}

// TestSampleSD: the spread an analysis's interval comes from, from the
// sums a node keeps: the textbook sample of eight, one value alone (no
// spread to speak of), and equal values whose sums round.
func TestSampleSD(t *testing.T) {
	var sum, sumSq float64
	for _, d := range []float64{2, 4, 4, 4, 5, 5, 7, 9} {
		sum, sumSq = sum+d, sumSq+d*d
	}
	if got, want := sampleSD(sum, sumSq, 8), math.Sqrt(32.0/7); math.Abs(got-want) > 1e-12 {
		t.Errorf("eight values: %v, want %v", got, want)
	}
	if got := sampleSD(7, 49, 1); got != 0 {
		t.Errorf("one value: %v, want 0", got)
	}
	sum, sumSq = 0, 0
	for range 1000 {
		sum, sumSq = sum+0.1, sumSq+0.01
	}
	if got := sampleSD(sum, sumSq, 1000); math.IsNaN(got) || got > 1e-6 {
		t.Errorf("equal values: %v, want 0", got)
	}
}
