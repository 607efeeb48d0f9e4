package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/azuld/azuld/engine/bots"
)

// runLadder plays a ladder of bots, weakest first: each against the next
// (with all, every pair), -games games a pairing, and prints a Markdown
// row per pairing as it ends (the first bot's win rate with its Wilson
// interval, the rating difference it implies with the interval's, both
// bots' mean scores), then each bot's rating, fitted to every pairing,
// relative to the first bot.
func runLadder(ctx context.Context, m matchConfig, names []string, all bool, variant string, out io.Writer) error {
	if m.one {
		return errors.New("-ladder plays the seats alternated: no -one")
	}
	if len(names) < 2 {
		return errors.New("-ladder needs two bots or more")
	}
	ladder := make([]bots.Bot, len(names))
	for i, text := range names {
		b, err := parseBot(text)
		if err != nil {
			return err
		}
		ladder[i] = b
	}
	fmt.Fprintf(out, "%s, %s, %d players, %d games a pairing, seeds from %d\n\n", m.cfg.Ruleset, variant, m.cfg.Players, m.games, m.first)
	fmt.Fprintln(out, "| A | B | games | A wins | 95 % interval | Elo A − B | 95 % interval | A / B mean score |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|---|")
	var played []pairing
	for i := range ladder {
		for j := i + 1; j < len(ladder); j++ {
			if !all && j > i+1 {
				break
			}
			// The stronger bot is A, so that the row reads as its lead.
			r, err := m.play(ctx, ladder[j], ladder[i])
			if err != nil {
				return fmt.Errorf("%s against %s: %w", names[j], names[i], err)
			}
			n := float64(m.games)
			lo, hi := wilson(r.win, n)
			// A sweep's interval reaches a certain win (or loss): its
			// difference has no bound on that side.
			if r.win == n {
				hi = 1
			}
			if r.win == 0 {
				lo = 0
			}
			fmt.Fprintf(out, "| %s | %s | %d | %.1f %% | %.1f–%.1f %% | %s | %s … %s | %.1f / %.1f |\n",
				names[j], names[i], m.games, 100*r.win/n, 100*lo, 100*hi,
				signed(elo(clampShare(r.win, n))), signed(elo(lo)), signed(elo(hi)), r.scoreA/n, r.scoreB/n)
			played = append(played, pairing{a: j, b: i, wins: r.win, games: n})
		}
	}
	ratings := fitRatings(len(ladder), played)
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| bot | rating |")
	fmt.Fprintln(out, "|---|---|")
	for i, name := range names {
		fmt.Fprintf(out, "| %s | %s |\n", name, signed(ratings[i]))
	}
	return nil
}

// pairing is the outcome of the games of bot a against bot b: a's wins
// (ties half) of games.
type pairing struct {
	a, b        int
	wins, games float64
}

// elo is the rating difference at which the stronger side's expected
// share is p.
func elo(p float64) float64 {
	switch {
	case p <= 0:
		return math.Inf(-1)
	case p >= 1:
		return math.Inf(1)
	}
	return 400 * math.Log10(p/(1-p))
}

// clampShare is wins/n, a clean sweep counted as half a game short of one
// (and no win as half a win), so that its rating difference is finite.
func clampShare(wins, n float64) float64 {
	return min(max(wins, 0.5), n-0.5) / n
}

// signed prints a rating difference with its sign, ±∞ for a sweep.
func signed(d float64) string {
	switch {
	case math.IsInf(d, 1):
		return "+∞"
	case math.IsInf(d, -1):
		return "−∞"
	}
	return fmt.Sprintf("%+.0f", d)
}

// fitRatings is the Bradley–Terry (Elo) fit of n bots' ratings to the
// pairings, by maximum likelihood with half a win and half a loss added
// to every pairing (so that a sweep gives a finite gap), relative to bot
// 0; a bot that played no game keeps 0.
func fitRatings(n int, played []pairing) []float64 {
	gamma := make([]float64, n)
	for i := range gamma {
		gamma[i] = 1
	}
	wins := make([]float64, n)
	for _, p := range played {
		wins[p.a] += p.wins + 0.5
		wins[p.b] += p.games - p.wins + 0.5
	}
	next := make([]float64, n)
	for range 20000 {
		for i := range n {
			den := 0.0
			for _, p := range played {
				if p.a == i || p.b == i {
					den += (p.games + 1) / (gamma[p.a] + gamma[p.b])
				}
			}
			next[i] = gamma[i]
			if den > 0 {
				next[i] = wins[i] / den
			}
		}
		copy(gamma, next)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = 400 * math.Log10(gamma[i]/gamma[0])
	}
	return out
}
