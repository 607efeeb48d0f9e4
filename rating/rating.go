// Package rating is the rating system of azuld: the Weng–Lin Bayesian
// approximation with the Plackett–Luce model (Weng and Lin, "A Bayesian
// Approximation Method for Online Ranking", JMLR 12, 2011, Algorithm 4),
// the model OpenSkill uses by default. A rating is a normal belief about a
// player's skill (Mu, Sigma); a finished game's ranking moves the beliefs
// of its players. It suits games of any number of players with ties,
// which Azul's final ranks are.
//
// The package is pure: no I/O, no state. Its numbers agree with the
// reference implementations' published test values (see rating_test.go).
// The read models apply the same formulas in the database
// (migrations/000019_ratings.up.sql, rating_apply), because the follower
// of the log writes them in a batch that cannot read back; a test in
// projections checks that the two agree.
package rating

import (
	"errors"
	"fmt"
	"math"
)

// Params are the model's constants.
type Params struct {
	// Mu and Sigma are a new player's belief: mean and standard deviation.
	Mu, Sigma float64
	// Beta is the spread of one game's performance around the skill.
	Beta float64
	// Kappa keeps a variance from shrinking to zero or below.
	Kappa float64
	// Tau is added (as a variance, tau²) to every sigma before a game, so
	// that a rating keeps moving when a player's skill changes.
	Tau float64
}

// Default are OpenSkill's defaults: mu 25, sigma 25/3, beta sigma/2,
// kappa 0.0001, tau 25/300 (openskill.py's default).
func Default() Params {
	return Params{Mu: 25, Sigma: 25.0 / 3, Beta: 25.0 / 6, Kappa: 0.0001, Tau: 25.0 / 300}
}

// Rating is a belief about one player's skill.
type Rating struct {
	Mu, Sigma float64
}

// New is a new player's rating.
func (p Params) New() Rating { return Rating{Mu: p.Mu, Sigma: p.Sigma} }

// Ordinal is the rating shown and ranked by: mu − 3σ, a skill the player
// very likely (99.7 %) has at least. It starts at 0 and rises with games.
func (r Rating) Ordinal() float64 { return r.Mu - 3*r.Sigma }

// When a rating is provisional: fewer than ProvisionalGames rated games,
// or a sigma still above ProvisionalSigma (a new rating has 8.33; some
// ten games bring it near 5 in two-player games).
const (
	ProvisionalGames = 10
	ProvisionalSigma = 5.0
)

// Provisional reports whether a rating after games rated games is still
// too uncertain to be ranked with the others.
func Provisional(r Rating, games int) bool {
	return games < ProvisionalGames || r.Sigma > ProvisionalSigma
}

// ErrInput: the ratings and ranks do not describe a game that can be
// rated.
var ErrInput = errors.New("rating: invalid game")

// Rate returns the ratings of a game's players after it: ratings[i]
// finished with ranks[i] (1 is best; equal ranks are a tie, in any order
// of the slice). Every player is one team of one; at least two are
// needed. The tau correction is applied to every sigma first.
func (p Params) Rate(ratings []Rating, ranks []int) ([]Rating, error) {
	n := len(ratings)
	if n < 2 || len(ranks) != n {
		return nil, fmt.Errorf("%w: %d ratings, %d ranks", ErrInput, n, len(ranks))
	}
	for _, r := range ratings {
		if math.IsNaN(r.Mu) || math.IsInf(r.Mu, 0) || !(r.Sigma > 0) || math.IsInf(r.Sigma, 0) {
			return nil, fmt.Errorf("%w: rating %v", ErrInput, r)
		}
	}
	tau2 := p.Tau * p.Tau
	sigma2 := make([]float64, n)
	for i, r := range ratings {
		sigma2[i] = r.Sigma*r.Sigma + tau2
	}
	// c: the spread of the whole game's performances.
	beta2 := p.Beta * p.Beta
	var sum float64
	for i := range n {
		sum += sigma2[i] + beta2
	}
	c := math.Sqrt(sum)
	// e[i] = exp(mu_i / c); sumQ[q]: the sum of e over the players that
	// did not finish ahead of q (the ones still "in the draw" when q's
	// place was decided); a[q]: how many share q's rank.
	e := make([]float64, n)
	for i, r := range ratings {
		e[i] = math.Exp(r.Mu / c)
	}
	sumQ := make([]float64, n)
	a := make([]float64, n)
	for q := range n {
		for i := range n {
			if ranks[i] >= ranks[q] {
				sumQ[q] += e[i]
			}
			if ranks[i] == ranks[q] {
				a[q]++
			}
		}
	}
	out := make([]Rating, n)
	for i, r := range ratings {
		var omega, delta float64
		for q := range n {
			if ranks[q] > ranks[i] {
				continue
			}
			quot := e[i] / sumQ[q]
			delta += quot * (1 - quot) / a[q]
			if q == i {
				omega += (1 - quot) / a[q]
			} else {
				omega -= quot / a[q]
			}
		}
		omega *= sigma2[i] / c
		// gamma = sigma_i / c, the reference's default.
		gamma := math.Sqrt(sigma2[i]) / c
		delta *= sigma2[i] / (c * c) * gamma
		sigma := math.Sqrt(sigma2[i])
		out[i] = Rating{
			Mu:    r.Mu + omega,
			Sigma: sigma * math.Sqrt(math.Max(1-delta, p.Kappa)),
		}
	}
	return out, nil
}
