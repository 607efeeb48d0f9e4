// Command azul-tournament measures the bots' strength: it plays games
// between two bots with the seats rotated and prints, as a Markdown table
// row, the first bot's win rate with its 95 % interval (Wilson) and both
// bots' mean scores.
//
//	azul-tournament -ruleset azul-mini -players 2 -games 500 -a greedy -b random
//	azul-tournament -ruleset summer-pavilion -board monochrome -a search:100ms -b greedy -games 40
//
// A bot is random, greedy, search:<duration> (time per move) or
// search:<n>p (n playouts per move, reproducible), or checklist: the
// Summer Pavilion yardstick (a one-move lookahead by a player's checklist).
// With more than two players the seats alternate between the bots, or,
// with -one, the first bot holds a single seat (the next one each game)
// against the second in all the others, so that its fair share of wins is
// one in the number of players; a game is won by the bot holding the best
// score (a shared best counts half).
//
//	azul-tournament -ruleset summer-pavilion -players 4 -one -a search:800p -b greedy
//
// The levels are level1 … level6 (level6:<n>p: level 6 bounded by
// playouts instead of its default thinking time). -ladder plays a list of
// bots, weakest first, each against the next (with -all, every pair),
// -games games a pairing, and prints a row per pairing with the stronger
// bot's win rate, its Wilson interval and the rating (Elo) difference
// they imply, then every bot's rating fitted to all the pairings
// (Bradley–Terry), relative to the first.
//
//	azul-tournament -ruleset azul-mini -games 100 -ladder random,level1,level2,level3,level4,level5,level6:2000p
//
// -losses adds, after a pairing's row, the points each bot lost a game
// (a seat's mean) to taking first from the centre (Azul: the start player
// marker's place on the floor line; Summer Pavilion: the token's point a
// tile) and to discards (Azul: the floor line's other tiles; Summer
// Pavilion: the tiles discarded when passing).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/azul"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/engine/pavilion"
	"github.com/azuld/azuld/engine/rulesets"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "azul-tournament:", err)
		os.Exit(1)
	}
}

// parseBot reads random, greedy, search:200ms, search:500p, checklist,
// level1 … level6 or level6:500p.
func parseBot(text string) (bots.Bot, error) {
	kind, budget, hasBudget := strings.Cut(text, ":")
	b := bots.Bot{Kind: kind}
	if hasBudget {
		if n, ok := strings.CutSuffix(budget, "p"); ok {
			p, err := strconv.Atoi(n)
			if err != nil || p <= 0 {
				return b, fmt.Errorf("bot %q: playouts must be a positive number", text)
			}
			b.Playouts = p
		} else {
			d, err := bots.ParseBudget(budget)
			if err != nil {
				return b, fmt.Errorf("bot %q: %w", text, err)
			}
			b.Budget = d
		}
	}
	return b, b.Check()
}

// result is one game's outcome for bot A.
type result struct {
	win            float64 // 1, 0.5 or 0
	scoreA, scoreB float64 // mean score of A's and B's seats
	// lossA and lossB are the points A's and B's seats lost, a seat's
	// mean: to the start player's tile or token, and to discards.
	lossA, lossB losses
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("azul-tournament", flag.ContinueOnError)
	ruleset := fs.String("ruleset", "azul-mini", "rule set id")
	wall := fs.String("wall", "", "azul-mini wall: grey")
	board := fs.String("board", "", "Summer Pavilion board: monochrome")
	wild := fs.String("wild-order", "", "Summer Pavilion wild order, six comma-separated colours")
	players := fs.Int("players", 2, "players per game (2-4)")
	games := fs.Int("games", 100, "games to play (per pairing with -ladder)")
	aText := fs.String("a", "greedy", "first bot")
	bText := fs.String("b", "random", "second bot")
	jobs := fs.Int("j", 1, "games played at once")
	first := fs.Int("seed", 0, "number of the first game (seeds and salts derive from it)")
	one := fs.Bool("one", false, "the first bot holds one seat, the second all the others")
	showLosses := fs.Bool("losses", false, "after the row, the points each bot lost a game to the start player's tile or token and to discards")
	ladder := fs.String("ladder", "", "comma-separated bots, weakest first: play each against the next (or, with -all, every pair) and fit ratings")
	all := fs.Bool("all", false, "with -ladder: every pair, not only neighbours")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg := engine.Config{Ruleset: *ruleset, Players: *players, Options: engine.Options{Wall: *wall, Board: *board}}
	if *wild != "" {
		cfg.Options.WildOrder = strings.Split(*wild, ",")
	}
	rules, err := rulesets.All().Get(*ruleset)
	if err != nil {
		return err
	}
	variant := strings.TrimSpace(strings.Join([]string{*wall, *board, wildNote(*wild)}, " "))
	if variant == "" {
		variant = "standard"
	}
	m := matchConfig{rules: rules, cfg: cfg, games: *games, first: *first, jobs: *jobs, one: *one}
	if *ladder != "" {
		return runLadder(ctx, m, strings.Split(*ladder, ","), *all, variant, out)
	}
	a, err := parseBot(*aText)
	if err != nil {
		return err
	}
	b, err := parseBot(*bText)
	if err != nil {
		return err
	}
	r, err := m.play(ctx, a, b)
	if err != nil {
		return err
	}
	aName := *aText
	if *one {
		aName += " (one seat)"
	}
	n := float64(*games)
	lo, hi := wilson(r.win, n)
	fmt.Fprintf(out, "| %s | %s | %d | %s | %s | %d | %.1f %% | %.1f–%.1f %% | %.1f | %.1f |\n",
		*ruleset, variant, *players, aName, *bText, *games, 100*r.win/n, 100*lo, 100*hi, r.scoreA/n, r.scoreB/n)
	if *showLosses {
		fmt.Fprintf(out, "points lost a game: %s %.1f to the start player, %.1f to discards; %s %.1f and %.1f\n",
			aName, r.lossA.start/n, r.lossA.discards/n, *bText, r.lossB.start/n, r.lossB.discards/n)
	}
	return nil
}

// matchConfig is what every pairing of a run shares.
type matchConfig struct {
	rules engine.Rules
	cfg   engine.Config
	games int
	first int
	jobs  int
	one   bool
}

// play plays the games of a against b and returns the sums of their
// results: A's wins and both bots' mean scores.
func (m matchConfig) play(ctx context.Context, a, b bots.Bot) (result, error) {
	results := make([]result, m.games)
	errs := make([]error, m.games)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, m.jobs) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for g := range next {
				results[g], errs[g] = playOne(m.rules, m.cfg, a, b, m.first+g, m.one)
			}
		}()
	}
feed:
	for g := range m.games {
		select {
		case next <- g:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	var sum result
	for g, r := range results {
		if errs[g] != nil {
			return result{}, fmt.Errorf("game %d: %w", m.first+g, errs[g])
		}
		sum.win += r.win
		sum.scoreA += r.scoreA
		sum.scoreB += r.scoreB
		sum.lossA.add(r.lossA)
		sum.lossB.add(r.lossB)
	}
	return sum, nil
}

func wildNote(w string) string {
	if w == "" {
		return ""
	}
	return "wild " + w
}

// playOne plays game g: the seats alternate between A and B, starting
// with A in even games and B in odd ones, so both sit first equally often;
// with one, A holds seat g mod players alone.
func playOne(rules engine.Rules, cfg engine.Config, a, b bots.Bot, g int, one bool) (result, error) {
	seats := make([]bots.Bot, cfg.Players)
	isA := seatsOfA(cfg.Players, g, one)
	for i := range seats {
		seats[i] = b
		if isA[i] {
			seats[i] = a
		}
	}
	var seed engine.Seed
	seed[0], seed[1], seed[2], seed[3] = byte(g), byte(g>>8), byte(g>>16), 0xb0
	var lost [4]losses
	s, err := bots.PlayWatched(rules, cfg, seed, seats, uint64(g), func(evs []engine.Event) { countLosses(&lost, evs) })
	if err != nil {
		return result{}, err
	}
	scores := s.Scores()
	best := math.MinInt
	for _, sc := range scores {
		best = max(best, sc)
	}
	var r result
	var bestA, bestB bool
	var na, nb float64
	for i, sc := range scores {
		if isA[i] {
			r.lossA.add(lost[i])
			r.scoreA += float64(sc)
			na++
			bestA = bestA || sc == best
		} else {
			r.lossB.add(lost[i])
			r.scoreB += float64(sc)
			nb++
			bestB = bestB || sc == best
		}
	}
	r.scoreA /= na
	r.scoreB /= nb
	r.lossA.scale(1 / na)
	r.lossB.scale(1 / nb)
	switch {
	case bestA && bestB:
		r.win = 0.5
	case bestA:
		r.win = 1
	}
	return r, nil
}

// seatsOfA marks the seats of bot A in game g.
func seatsOfA(players, g int, one bool) []bool {
	isA := make([]bool, players)
	for i := range isA {
		isA[i] = (i+g)%2 == 0
		if one {
			isA[i] = i == g%players
		}
	}
	return isA
}

// wilson is the 95 % Wilson score interval of wins out of n.
func wilson(wins, n float64) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.96
	p := wins / n
	den := 1 + z*z/n
	centre := (p + z*z/(2*n)) / den
	half := z * math.Sqrt(p*(1-p)/n+z*z/(4*n*n)) / den
	return max(0, centre-half), min(1, centre+half)
}

// losses are the points a seat lost: start is what taking first from the
// centre cost (Azul: the start player marker's place on the floor line;
// Summer Pavilion: the token's point a tile), discards what the tiles on
// the floor line (Azul) or discarded when passing (Summer Pavilion) cost.
type losses struct {
	start, discards float64
}

func (l *losses) add(o losses) {
	l.start += o.start
	l.discards += o.discards
}

func (l *losses) scale(k float64) {
	l.start *= k
	l.discards *= k
}

// countLosses adds the losses in one move's events to each seat's.
func countLosses(lost *[4]losses, evs []engine.Event) {
	for _, e := range evs {
		switch e := e.(type) {
		case *azul.Event:
			if e.Kind != azul.EvFloorScored {
				continue
			}
			marker := 0
			for i, c := range e.Floor[:min(int(e.FloorLen), len(e.Floor))] {
				if c == azul.Marker {
					marker = azul.FloorPenalty(i+1) - azul.FloorPenalty(i)
				}
			}
			// Points is what the score lost (never below 0).
			marker = min(marker, int(e.Points))
			lost[e.Seat].start += float64(marker)
			lost[e.Seat].discards += float64(int(e.Points) - marker)
		case *pavilion.Event:
			switch {
			case e.Kind == pavilion.EvTilesTaken && e.Token:
				lost[e.Seat].start += float64(e.Lost)
			case e.Kind == pavilion.EvPassed:
				lost[e.Seat].discards += float64(e.Lost)
			}
		}
	}
}
