package bots_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/engine/rulesets"
)

// variants are every rule set and option the bots must play.
var variants = []engine.Config{
	{Ruleset: "azul-mini"},
	{Ruleset: "azul-mini", Options: engine.Options{Wall: "grey"}},
	{Ruleset: "summer-pavilion"},
	{Ruleset: "summer-pavilion", Options: engine.Options{Board: "monochrome"}},
	{Ruleset: "summer-pavilion-mini"},
	{Ruleset: "summer-pavilion-mini", Options: engine.Options{Board: "monochrome",
		WildOrder: []string{"red", "blue", "yellow", "orange", "green", "purple"}}},
}

func name(cfg engine.Config) string {
	return fmt.Sprintf("%s/%s%s/%dp", cfg.Ruleset, cfg.Options.Wall, cfg.Options.Board, cfg.Players)
}

func TestRandomBotPlaysLegalMovesToTheEnd(t *testing.T) {
	t.Parallel()
	for id, rules := range rulesets.All() {
		seed := engine.Seed{1, 2, 3}
		evs, err := rules.Start(engine.Config{Ruleset: id, Players: 3}, seed)
		if err != nil {
			t.Fatal(err)
		}
		s, err := engine.Fold(rules, nil, evs)
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; !s.Over(); step++ {
			if step > 5000 {
				t.Fatalf("%s: no end after 5000 moves", id)
			}
			seat := s.ToAct()[0]
			m, err := bots.Choose(bots.Random, s, seat, uint64(step))
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			if m.Notation == "resign" {
				t.Fatalf("%s: the bot resigned", id)
			}
			again, _ := bots.Choose(bots.Random, s, seat, uint64(step))
			if again.Notation != m.Notation {
				t.Fatalf("%s: same state and salt gave %q then %q", id, m.Notation, again.Notation)
			}
			evs, err := rules.Decide(s, seat, m.Command, seed)
			if err != nil {
				t.Fatalf("%s: the bot's move %q was refused: %v", id, m.Notation, err)
			}
			if s, err = engine.Fold(rules, s, evs); err != nil {
				t.Fatal(err)
			}
		}
		if s.Final().Reason == "resigned" {
			t.Fatalf("%s: ended by resignation", id)
		}
	}
}

// TestGreedyAndSearchFinishEveryVariant plays greedy, a small search and
// (with four players) the checklist bot against random in every rule set and variant with 2 to 4 players: every
// move is accepted by the rules and no game ends by resignation.
func TestGreedyAndSearchFinishEveryVariant(t *testing.T) {
	t.Parallel()
	reg := rulesets.All()
	for _, base := range variants {
		for players := 2; players <= 4; players++ {
			cfg := base
			cfg.Players = players
			seats := []bots.Bot{{Kind: bots.Greedy}, {Kind: bots.Search, Playouts: 40}, {Kind: bots.Random}, {Kind: bots.Checklist}}[:players]
			s, err := bots.Play(reg[cfg.Ruleset], cfg, engine.Seed{byte(players), 7}, seats, 1)
			if err != nil {
				t.Fatalf("%s: %v", name(cfg), err)
			}
			if r := s.Final().Reason; r == "resigned" {
				t.Fatalf("%s: ended by %s", name(cfg), r)
			}
		}
	}
}

// TestGreedyBeatsRandom: over a few 2-player games of each variant the
// greedy bot outscores the random one (the tournament measures by how
// much).
func TestGreedyBeatsRandom(t *testing.T) {
	t.Parallel()
	for _, base := range variants {
		cfg := base
		cfg.Players = 2
		const games = 6
		if wins := duel(t, cfg, bots.Bot{Kind: bots.Greedy}, bots.Bot{Kind: bots.Random}, games, 9); wins < games-1 {
			t.Errorf("%s: greedy won %.1f of %d games against random", name(cfg), wins, games)
		}
	}
}

// duel plays 2-player games of a against b, seats alternated, and returns
// a's wins (a tie counts half); tag varies the seeds.
func duel(t *testing.T, cfg engine.Config, a, b bots.Bot, games int, tag byte) float64 {
	t.Helper()
	rules := rulesets.All()[cfg.Ruleset]
	wins := 0.0
	for g := range games {
		seats := []bots.Bot{a, b}
		aSeat := g % 2
		if aSeat == 1 {
			seats[0], seats[1] = seats[1], seats[0]
		}
		s, err := bots.Play(rules, cfg, engine.Seed{byte(g), tag}, seats, uint64(g))
		if err != nil {
			t.Fatalf("%s: %v", name(cfg), err)
		}
		switch sc := s.Scores(); {
		case sc[aSeat] > sc[1-aSeat]:
			wins++
		case sc[aSeat] == sc[1-aSeat]:
			wins += 0.5
		}
	}
	return wins
}

// TestBotsIgnoreTheSeed: a bot is never given the game's seed, and the
// state it reads holds the bag only as counts by colour (what players can
// count), not the order of its tiles. Two games with different seeds share
// every event up to a round's end; the bots choose the same moves in both
// (with their own salt), while the next deals, drawn from the seeds, differ.
func TestBotsIgnoreTheSeed(t *testing.T) {
	t.Parallel()
	reg := rulesets.All()
	for _, base := range variants {
		cfg := base
		cfg.Players = 2
		rules := reg[cfg.Ruleset]
		seedA, seedB := engine.Seed{1}, engine.Seed{2}
		evs, err := rules.Start(cfg, seedA)
		if err != nil {
			t.Fatal(err)
		}
		a, err := engine.Fold(rules, nil, evs)
		if err != nil {
			t.Fatal(err)
		}
		b := a // game B: the same events so far, another seed
		diverged := false
		for step := 0; !diverged && !a.Over(); step++ {
			seat := a.ToAct()[0]
			var played engine.Move
			for _, bot := range []bots.Bot{{Kind: bots.Search, Playouts: 60}, {Kind: bots.Greedy}, {Kind: bots.Checklist},
				{Kind: bots.Level1}, {Kind: bots.Level3}, {Kind: bots.Level4}, {Kind: bots.Level6, Playouts: 60}} {
				mA, errA := bot.Choose(a, seat, uint64(step))
				mB, errB := bot.Choose(b, seat, uint64(step))
				if errA != nil || errB != nil {
					t.Fatal(errA, errB)
				}
				if mA.Notation != mB.Notation {
					t.Fatalf("%s: %s chose %q in game A and %q in game B", name(cfg), bot.Kind, mA.Notation, mB.Notation)
				}
				played = mA
			}
			evA, errA := rules.Decide(a, seat, played.Command, seedA)
			evB, errB := rules.Decide(b, seat, played.Command, seedB)
			if errA != nil || errB != nil {
				t.Fatal(errA, errB)
			}
			if a, err = engine.Fold(rules, a, evA); err != nil {
				t.Fatal(err)
			}
			if b, err = engine.Fold(rules, b, evB); err != nil {
				t.Fatal(err)
			}
			diverged = a.Text() != b.Text()
		}
		if !diverged {
			t.Fatalf("%s: the two seeds never drew differently", name(cfg))
		}
	}
}

func TestChooseRefusesUnknownBotsAndUnstartedGames(t *testing.T) {
	if _, err := bots.Choose(bots.Random, nil, 0, 0); !errors.Is(err, bots.ErrNoMove) {
		t.Fatalf("nil state: %v", err)
	}
	if bots.Known("oracle") || !bots.Known(bots.Random) || !bots.Known(bots.Greedy) || !bots.Known(bots.Search) {
		t.Fatal("Known is wrong")
	}
	if bots.Known(bots.Checklist) || (bots.Bot{Kind: bots.Checklist}).Check() != nil {
		t.Fatal("the checklist bot is a yardstick: it plays, but no seat may hold it")
	}
	// The levels are kinds a seat may hold; of them only level 6 takes a
	// playout bound.
	for _, b := range []bots.Bot{{Kind: bots.Level1}, {Kind: bots.Level5}, {Kind: bots.Level6}, {Kind: bots.Level6, Playouts: 300}} {
		if !bots.Known(b.Kind) || b.Check() != nil {
			t.Fatalf("%+v: known %v, check %v", b, bots.Known(b.Kind), b.Check())
		}
	}
	for kind, quick := range map[string]bool{bots.Random: true, bots.Greedy: true, bots.Level1: true, bots.Level3: true,
		bots.Search: false, bots.Level4: false, bots.Level6: false, "oracle": false} {
		if bots.Quick(kind) != quick {
			t.Fatalf("Quick(%q) = %v", kind, !quick)
		}
	}
	for _, b := range []bots.Bot{{Kind: "oracle"}, {Kind: bots.Greedy, Playouts: 3}, {Kind: bots.Search, Budget: 5e9}, {Kind: bots.Checklist, Playouts: 3},
		{Kind: bots.Level3, Playouts: 3}, {Kind: bots.Level6, Budget: 5e8}, {Kind: "level7"}, {Kind: "level0"}} {
		if err := b.Check(); !errors.Is(err, bots.ErrBadBot) {
			t.Fatalf("%+v: %v", b, err)
		}
	}
	for _, text := range []string{"", "fast", "1ms", "3s", "-1s"} {
		if _, err := bots.ParseBudget(text); !errors.Is(err, bots.ErrBadBot) {
			t.Fatalf("budget %q: %v", text, err)
		}
	}
	if d, err := bots.ParseBudget("200ms"); err != nil || d.Milliseconds() != 200 {
		t.Fatalf("200ms: %v %v", d, err)
	}
}

// TestAnalyseEvaluatesEveryMove: the analysis lists every legal move of
// the seat to act, tries each, names a best move among them, and is the
// same for the same salt.
func TestAnalyseEvaluatesEveryMove(t *testing.T) {
	t.Parallel()
	reg := rulesets.All()
	for _, cfg := range []engine.Config{{Ruleset: "azul-mini", Players: 2}, {Ruleset: "summer-pavilion", Players: 3}} {
		rules := reg[cfg.Ruleset]
		evs, err := rules.Start(cfg, engine.Seed{4})
		if err != nil {
			t.Fatal(err)
		}
		s, err := engine.Fold(rules, nil, evs)
		if err != nil {
			t.Fatal(err)
		}
		seat := s.ToAct()[0]
		a, err := bots.Analyse(s, seat, 600, 1)
		if err != nil {
			t.Fatal(err)
		}
		legal := slices.DeleteFunc(s.LegalMoves(seat), func(m engine.Move) bool { return m.Notation == "resign" })
		if len(a.Moves) != len(legal) { // resign is not analysed
			t.Fatalf("%s: %d moves analysed, %d legal", cfg.Ruleset, len(a.Moves), len(legal))
		}
		best := false
		for _, m := range a.Moves {
			if m.Visits == 0 {
				t.Fatalf("%s: %s never tried", cfg.Ruleset, m.Notation)
			}
			best = best || m.Notation == a.Best
		}
		if !best || a.Evaluated != len(a.Moves) {
			t.Fatalf("%s: best %q, %d evaluated", cfg.Ruleset, a.Best, a.Evaluated)
		}
		again, _ := bots.Analyse(s, seat, 600, 1)
		if again.Best != a.Best || again.Moves[0].ScoreDiff != a.Moves[0].ScoreDiff {
			t.Fatalf("%s: two analyses differ", cfg.Ruleset)
		}
	}
	if _, err := bots.Analyse(nil, 0, 10, 0); !errors.Is(err, bots.ErrNoMove) {
		t.Fatalf("nil state: %v", err)
	}
}

// TestGreedyHoldsItsOwnAgainstTheChecklist: over ten 2-player games of
// each Summer Pavilion variant, seats alternated, the greedy bot wins at
// least half against the checklist yardstick (the tournament measures by
// how much: docs/BENCHMARKS.md). A greedy estimate that counted only the
// tiles in hand, not what they become, won about one game in six.
func TestGreedyHoldsItsOwnAgainstTheChecklist(t *testing.T) {
	t.Parallel()
	wins, games := 0.0, 0
	for _, base := range variants {
		if base.Ruleset == "azul-mini" {
			continue
		}
		cfg := base
		cfg.Players = 2
		wins += duel(t, cfg, bots.Bot{Kind: bots.Greedy}, bots.Bot{Kind: bots.Checklist}, 10, 0x51)
		games += 10
	}
	if wins < float64(games)/2 {
		t.Errorf("greedy won %.1f of %d games against the checklist bot", wins, games)
	}
	t.Logf("greedy won %.1f of %d games against the checklist bot", wins, games)
}

// TestAnalysisNamesTheMoveItRatesBest: the best move of an analysis is
// the one its playouts tried most, the move its table shows ahead, even
// where the bot itself would keep to the estimate's choice.
func TestAnalysisNamesTheMoveItRatesBest(t *testing.T) {
	t.Parallel()
	rules := rulesets.All()["summer-pavilion"]
	seed := engine.Seed{5}
	evs, err := rules.Start(engine.Config{Ruleset: "summer-pavilion", Players: 2}, seed)
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Fold(rules, nil, evs)
	if err != nil {
		t.Fatal(err)
	}
	for step := 0; step <= 40; step++ {
		seat := s.ToAct()[0]
		if step == 23 || step == 40 {
			a, err := bots.Analyse(s, seat, 4000, 1)
			if err != nil {
				t.Fatal(err)
			}
			most := a.Moves[0]
			for _, m := range a.Moves {
				if m.Visits > most.Visits {
					most = m
				}
			}
			if a.Best != most.Notation {
				t.Errorf("move %d: best %q, but %q was tried most (%d times, %.2f won)", step, a.Best, most.Notation, most.Visits, most.WinRate)
			}
		}
		m, err := bots.Choose(bots.Greedy, s, seat, uint64(step))
		if err != nil {
			t.Fatal(err)
		}
		if evs, err = rules.Decide(s, seat, m.Command, seed); err != nil {
			t.Fatal(err)
		}
		if s, err = engine.Fold(rules, s, evs); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAnalysisRanksByWhatTheSearchTrusts: early in an Azul Mini game most
// of the many legal moves get the one playout every move gets before the
// search narrows down, and some of those single playouts end far ahead of
// what the searched moves average. The ranking still puts the searched
// moves first, most tried first, names the first one best, and gives
// every searched move the interval of its mean.
func TestAnalysisRanksByWhatTheSearchTrusts(t *testing.T) {
	t.Parallel()
	rules := rulesets.All()["azul-mini"]
	evs, err := rules.Start(engine.Config{Ruleset: "azul-mini", Players: 2}, engine.Seed{9})
	if err != nil {
		t.Fatal(err)
	}
	s, err := engine.Fold(rules, nil, evs)
	if err != nil {
		t.Fatal(err)
	}
	seat := s.ToAct()[0]
	a, err := bots.Analyse(s, seat, 3000, 5)
	if err != nil {
		t.Fatal(err)
	}
	first := a.Moves[0]
	luckiest, unsearched := first, 0
	for _, m := range a.Moves {
		if !m.Searched {
			unsearched++
			if m.ScoreDiff > luckiest.ScoreDiff {
				luckiest = m
			}
		}
	}
	// The position is one where the figures alone would mislead.
	if unsearched < len(a.Moves)/2 || luckiest.Notation == first.Notation {
		t.Fatalf("%d of %d moves not searched; none of them ahead of %s's %.1f by its figure", unsearched, len(a.Moves), first.Notation, first.ScoreDiff)
	}
	t.Logf("%s: %d playouts, %+.1f ± %.1f; %s: %d playout, %+.1f", first.Notation, first.Visits, first.ScoreDiff, first.ScoreDiffMargin, luckiest.Notation, luckiest.Visits, luckiest.ScoreDiff)
	if !first.Searched || a.Best != first.Notation {
		t.Fatalf("first %+v, best %q", first, a.Best)
	}
	for i, m := range a.Moves {
		if m.Rank != i+1 {
			t.Fatalf("move %d (%s) has rank %d", i, m.Notation, m.Rank)
		}
		if m.Searched != (m.Visits >= bots.MinSearchedVisits) {
			t.Fatalf("%s: %d playouts, searched %v", m.Notation, m.Visits, m.Searched)
		}
		if m.Searched && !(m.ScoreDiffMargin > 0 && m.ScoreDiffMargin < 20) || !m.Searched && m.ScoreDiffMargin != 0 {
			t.Fatalf("%s: %d playouts, ± %v", m.Notation, m.Visits, m.ScoreDiffMargin)
		}
		if i == 0 {
			continue
		}
		prev := a.Moves[i-1]
		if m.Visits > prev.Visits || m.Searched && !prev.Searched {
			t.Fatalf("%s (%d playouts) ranked %d, after %s (%d playouts)", m.Notation, m.Visits, m.Rank, prev.Notation, prev.Visits)
		}
	}
}
