package rating_test

import (
	"errors"
	"math"
	"testing"

	"github.com/azuld/azuld/rating"
)

// The expected values are the published test values of the reference
// implementations: openskill.js's Plackett–Luce tests (which it checks
// against openskill.py's fixtures). The model's own tests run without
// tau, the rate tests with the default tau (25/300) or the one they name.
func TestRateReferenceValues(t *testing.T) {
	noTau := rating.Default()
	noTau.Tau = 0
	d := noTau.New()
	dflt := rating.Default()
	withTau := func(tau float64) rating.Params { p := noTau; p.Tau = tau; return p }
	for _, tc := range []struct {
		name   string
		p      rating.Params
		in     []rating.Rating
		ranks  []int
		expect []rating.Rating
	}{
		{"2p FFA", noTau, []rating.Rating{d, d}, []int{1, 2}, []rating.Rating{
			{27.63523138347365, 8.065506316323548}, {22.36476861652635, 8.065506316323548}}},
		{"3p FFA", noTau, []rating.Rating{d, d, d}, []int{1, 2, 3}, []rating.Rating{
			{27.868876552746237, 8.204837030780652}, {25.717219138186557, 8.057829747583874}, {21.413904309067206, 8.057829747583874}}},
		{"4p FFA", noTau, []rating.Rating{d, d, d, d}, []int{1, 2, 3, 4}, []rating.Rating{
			{27.795084971874736, 8.263160757613477}, {26.552824984374855, 8.179213704945203},
			{24.68943500312503, 8.083731307186588}, {20.96265504062538, 8.083731307186588}}},
		{"5p FFA", noTau, []rating.Rating{d, d, d, d, d}, []int{1, 2, 3, 4, 5}, []rating.Rating{
			{27.666666666666668, 8.290556877154474}, {26.833333333333332, 8.240145629781066}, {25.72222222222222, 8.179996679645559},
			{24.055555555555557, 8.111796013701358}, {20.72222222222222, 8.111796013701358}}},
		{"4p rated players", dflt,
			[]rating.Rating{{29.182, 4.782}, {27.174, 4.922}, {16.672, 6.217}, d}, []int{1, 2, 3, 4},
			[]rating.Rating{{30.210227447000438, 4.765617924939384}, {27.644725221915632, 4.883479590134575},
				{17.4036218889969, 6.101259408259549}, {19.21460876538932, 7.854669920480409}}},
		{"4p rated players, tau 0.01", withTau(0.01),
			[]rating.Rating{{29.182, 4.782}, {27.174, 4.922}, {16.672, 6.217}, d}, []int{1, 2, 3, 4},
			[]rating.Rating{{30.20997558824299, 4.764909330988368}, {27.64461002009721, 4.882799245921361},
				{17.403587237635527, 6.100731158882956}, {19.21478808745494, 7.854267281042293}}},
		{"tau 0.3", withTau(0.3), []rating.Rating{{25, 3}, {25, 3}}, []int{1, 2},
			[]rating.Rating{{25.624880438870754, 2.9879993738476953}, {24.375119561129246, 2.9879993738476953}}},
		{"reversed ranks", dflt, []rating.Rating{d, d}, []int{2, 1}, []rating.Rating{
			{22.364610506859503, 8.06590141354368}, {27.635389493140497, 8.06590141354368}}},
		{"misordered ranks", dflt, []rating.Rating{d, d, d, d}, []int{2, 1, 4, 3}, []rating.Rating{
			{26.55291815138952, 8.17961798837266}, {27.795252672501135, 8.263571791259416},
			{20.962412806387245, 8.084127880168786}, {24.689416369722096, 8.084127880168786}}},
		{"rank order", dflt,
			[]rating.Rating{{15, 25.0 / 3}, {20, 25.0 / 3}, {25, 25.0 / 3}, {30, 25.0 / 3}}, []int{1, 3, 4, 2},
			[]rating.Rating{{18.131120980297805, 8.283536573151807}, {20.405169039419135, 8.107860440531121},
				{20.65583040714804, 8.082574596348321}, {30.80787957313502, 8.155100416275928}}},
		{"ties", dflt, []rating.Rating{{10, 8}, {5, 10}, {0, 12}}, []int{1, 2, 2}, []rating.Rating{
			{11.942996666741225, 7.926888197620324}, {2.9381178546315034, 9.653804487570165}, {-1.4024317012198733, 11.323641575516767}}},
		{"ties, another order", dflt, []rating.Rating{{5, 10}, {0, 12}, {10, 8}}, []int{2, 2, 1}, []rating.Rating{
			{2.9381178546315034, 9.653804487570165}, {-1.4024317012198733, 11.323641575516767}, {11.942996666741225, 7.926888197620324}}},
		{"four-way tie", dflt, []rating.Rating{d, d, d, d}, []int{1, 1, 1, 1}, []rating.Rating{
			{25, 8.263571791259416}, {25, 8.263571791259416}, {25, 8.263571791259416}, {25, 8.263571791259416}}},
		{"ties out of order", dflt,
			[]rating.Rating{{15, 25.0 / 3}, {20, 25.0 / 3}, {25, 25.0 / 3}, {30, 25.0 / 3}}, []int{2, 4, 2, 1},
			[]rating.Rating{{15.340043358359136, 8.213141619804967}, {18.007678675484204, 8.189033933813437},
				{24.25801928251219, 8.166918055585525}, {32.39425868364447, 8.247687230833794}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.p.Rate(tc.in, tc.ranks)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.expect {
				if !close(got[i].Mu, tc.expect[i].Mu) || !close(got[i].Sigma, tc.expect[i].Sigma) {
					t.Errorf("player %d: got %v, want %v", i, got[i], tc.expect[i])
				}
			}
		})
	}
}

// close allows the last bits of float64 rounding: the references sum in
// their own order.
func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestRateDefaultTauWidensSigma(t *testing.T) {
	p := rating.Default()
	if p.Beta != p.Sigma/2 || p.Tau != p.Mu/300 || p.Kappa != 0.0001 {
		t.Fatalf("defaults %+v", p)
	}
	// Two players of high certainty tied: the means stay, and tau makes
	// the sigmas grow a little rather than shrink to nothing.
	got, err := p.Rate([]rating.Rating{{30, 0.01}, {30, 0.01}}, []int{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		if r.Mu != 30 || r.Sigma <= 0.01 {
			t.Errorf("got %v", r)
		}
	}
}

func TestRateRejects(t *testing.T) {
	p := rating.Default()
	for _, tc := range []struct {
		in    []rating.Rating
		ranks []int
	}{
		{[]rating.Rating{p.New()}, []int{1}},
		{[]rating.Rating{p.New(), p.New()}, []int{1}},
		{[]rating.Rating{p.New(), {Mu: 25, Sigma: 0}}, []int{1, 2}},
		{[]rating.Rating{p.New(), {Mu: math.NaN(), Sigma: 1}}, []int{1, 2}},
	} {
		if _, err := p.Rate(tc.in, tc.ranks); !errors.Is(err, rating.ErrInput) {
			t.Errorf("Rate(%v, %v): %v, want ErrInput", tc.in, tc.ranks, err)
		}
	}
}

func TestOrdinalAndProvisional(t *testing.T) {
	p := rating.Default()
	if o := p.New().Ordinal(); math.Abs(o) > 1e-12 {
		t.Errorf("a new rating's ordinal is %v, want 0", o)
	}
	if !rating.Provisional(rating.Rating{Mu: 30, Sigma: 2}, rating.ProvisionalGames-1) {
		t.Error("too few games: not provisional")
	}
	if !rating.Provisional(rating.Rating{Mu: 30, Sigma: rating.ProvisionalSigma + 0.1}, 50) {
		t.Error("sigma too high: not provisional")
	}
	if rating.Provisional(rating.Rating{Mu: 30, Sigma: 4}, rating.ProvisionalGames) {
		t.Error("enough games and a small sigma: provisional")
	}
	// A player who wins and loses two-player games against new players
	// leaves the provisional state within some tens of games.
	r := p.New()
	for n := 1; n <= 40; n++ {
		out, err := p.Rate([]rating.Rating{r, p.New()}, []int{1 + n%2, 2 - n%2})
		if err != nil {
			t.Fatal(err)
		}
		r = out[0]
	}
	if rating.Provisional(r, 40) {
		t.Errorf("after 40 games: %v still provisional", r)
	}
}
