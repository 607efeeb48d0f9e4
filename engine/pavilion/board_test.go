package pavilion

import (
	"fmt"
	"testing"

	"github.com/azuld/azuld/engine"
)

// The feature masks are docs/rules.md §3.3's table (restated in
// reference_test.go).
func TestFeatureGeometryMatchesRules(t *testing.T) {
	ref := refFeatures()
	for s := 1; s <= 6; s++ {
		for k, f := range []int{s - 1, 6 + s - 1, 12 + s - 1} { // window, statue, pillar
			r := ref[3*(s-1)+k]
			var m uint64
			for _, sp := range r.spaces {
				m |= bit(sp.star, sp.space)
			}
			if featureMasks[f] != m || featureBonus(f) != r.bonus || FeatureStar(f) != s {
				t.Errorf("%s of star %d: mask %x bonus %d, want %x %d", FeatureKind(f), s, featureMasks[f], featureBonus(f), m, r.bonus)
			}
		}
	}
}

// placeLast covers every space of spaces but the last on seat 0's board,
// then places the last one and returns the tile_placed event.
func placeLast(t *testing.T, s *State, spaces []refSpace) Event {
	t.Helper()
	colourFor := func(sp refSpace) Colour {
		if sp.star == CentreStar {
			return Colour(sp.space - 1) // six different colours
		}
		return outerStarColour[sp.star]
	}
	for _, sp := range spaces[:len(spaces)-1] {
		s.cover(t, 0, sp.star, sp.space, colourFor(sp))
	}
	last := spaces[len(spaces)-1]
	c := colourFor(last)
	var hand Tiles
	hand[c] = uint8(spaceCost(s.Monochrome(), last.star, last.space))
	s.seats[0].Hand = s.fromBag(t, hand)
	return find(t, play(t, s, 0, Place(last.star, last.space, c, 0)), EvTilePlaced)
}

// Every window, statue and pillar, completed by each of its spaces in
// turn (for the pillars, both of their centre spaces too), earns its bonus.
func TestEveryFeatureEarnsItsBonus(t *testing.T) {
	for f := range NumFeatures {
		spaces := refFeatureList[3*(FeatureStar(f)-1)+f/6].spaces
		for i := range spaces {
			name := fmt.Sprintf("%s%d/last=%d:%d", FeatureKind(f), FeatureStar(f), spaces[i].star, spaces[i].space)
			t.Run(name, func(t *testing.T) {
				order := append(append([]refSpace{}, spaces[:i]...), spaces[i+1:]...)
				order = append(order, spaces[i])
				s := playFixture(t)
				e := placeLast(t, s, order)
				if e.Features != 1<<uint(f) || int(e.Earned) != featureBonus(f) {
					t.Fatalf("features %b earned %d; want %s of star %d (%d tiles)", e.Features, e.Earned, FeatureKind(f), FeatureStar(f), refFeatureList[3*(FeatureStar(f)-1)+f/6].bonus)
				}
				if s.Phase() != PhaseBonus || s.bonusDue != e.Earned {
					t.Fatalf("phase %s, due %d", s.Phase(), s.bonusDue)
				}
			})
		}
	}
	// Not yet complete: no bonus.
	s := playFixture(t)
	if e := placeLast(t, s, []refSpace{{1, 5}}); e.Features != 0 || e.Earned != 0 || s.Phase() != PhasePlay {
		t.Fatalf("half a window earned %+v", e)
	}
	// One tile completing two features earns both: space 2 of star 1 is
	// in statue 1 and pillar 1.
	s = playFixture(t)
	e := placeLast(t, s, []refSpace{{1, 1}, {2, 3}, {2, 4}, {1, 3}, {0, 5}, {0, 6}, {1, 2}})
	if e.Earned != statueBonus+pillarBonus || e.Features != 1<<6|1<<12 {
		t.Fatalf("statue and pillar at once: %+v", e)
	}
}

// endGame lets the automatic passes of the empty-handed seats end the
// last round and returns seat 0's final result.
func endGame(t *testing.T, s *State) FinalSeat {
	t.Helper()
	evs, err := s.settle(draws{seed: testSeed}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var end *Event
	for i := range evs {
		if evs[i].Kind == EvGameEnded {
			end = &evs[i]
		}
	}
	if end == nil || !s.Over() {
		t.Fatalf("the game did not end: %v", kinds(evs))
	}
	return end.Final[0]
}

func TestStarCompletionValues(t *testing.T) {
	// docs/rules.md §3.7: centre 12, red 14, blue 15, yellow 16, orange 17,
	// green 18, purple 20.
	want := map[int]int{0: 12, 1: 20, 2: 17, 3: 14, 4: 15, 5: 16, 6: 18}
	for star := range NumStars {
		s := lastRound(t, RulesetPavilion, engine.Options{})
		for space := 1; space <= 6; space++ {
			c := Colour(space - 1)
			if star != CentreStar {
				c = outerStarColour[star]
			}
			s.cover(t, 0, star, space, c)
		}
		f := endGame(t, s)
		if int(f.StarPoints[star]) != want[star] || s.Score(0) != StartScore+want[star] {
			t.Errorf("star %d: %d points, score %d; want %d", star, f.StarPoints[star], s.Score(0), want[star])
		}
		checkTiles(t, s)
	}
	// An incomplete star scores nothing.
	s := lastRound(t, RulesetPavilion, engine.Options{})
	for space := 1; space <= 5; space++ {
		s.cover(t, 0, 1, space, Purple)
	}
	if f := endGame(t, s); f.StarPoints != [NumStars]uint8{} || s.Score(0) != StartScore {
		t.Errorf("five purple tiles scored %+v", f)
	}
}

func TestAllCostBonuses(t *testing.T) {
	for n := 1; n <= 4; n++ {
		// Coloured side: space n of all seven stars.
		s := lastRound(t, RulesetPavilion, engine.Options{})
		for star := range NumStars {
			c := Colour(n)
			if star != CentreStar {
				c = outerStarColour[star]
			}
			s.cover(t, 0, star, n, c)
		}
		f := endGame(t, s)
		if f.AllCost != 1<<uint(n-1) || s.Score(0) != StartScore+4*n {
			t.Errorf("all %ds: bonus bits %b, score %d; want +%d", n, f.AllCost, s.Score(0), 4*n)
		}
		// Six of the seven: nothing.
		s = lastRound(t, RulesetPavilion, engine.Options{})
		for star := 1; star < NumStars; star++ {
			s.cover(t, 0, star, n, outerStarColour[star])
		}
		if f := endGame(t, s); f.AllCost != 0 {
			t.Errorf("all %ds without the centre star: %b", n, f.AllCost)
		}
	}
	// Monochrome side: costs 3 2 1 4 5 6 outside, 3 in the centre.
	mono := engine.Options{Board: "monochrome"}
	for _, tc := range []struct {
		name   string
		spaces []refSpace
		bits   uint8
		bonus  int
	}{
		{"space 3 of the outer stars = all 1s", outerSpaces(3), 1, 4},
		{"space 2 of the outer stars = all 2s", outerSpaces(2), 2, 8},
		{"space 4 of the outer stars = all 4s", outerSpaces(4), 8, 16},
		{"space 1 of every star is not all 1s", append(outerSpaces(1), refSpace{0, 1}), 0, 0},
		// All 3s also completes the centre star (multicoloured: +12).
		{"space 1 outside and the whole centre = all 3s", append(outerSpaces(1), centreSpaces()...), 4, 12 + 12},
	} {
		s := lastRound(t, RulesetPavilion, mono)
		for _, sp := range tc.spaces {
			s.cover(t, 0, sp.star, sp.space, Colour(sp.space-1))
		}
		f := endGame(t, s)
		if f.AllCost != tc.bits || s.Score(0) != StartScore+tc.bonus {
			t.Errorf("%s: bits %b, score %d; want %b, +%d", tc.name, f.AllCost, s.Score(0), tc.bits, tc.bonus)
		}
	}
}

func outerSpaces(space int) []refSpace {
	var out []refSpace
	for star := 1; star < NumStars; star++ {
		out = append(out, refSpace{star, space})
	}
	return out
}

func centreSpaces() []refSpace {
	var out []refSpace
	for space := 1; space <= 6; space++ {
		out = append(out, refSpace{0, space})
	}
	return out
}

func TestMonochromeCostsAndStars(t *testing.T) {
	s := playFixture(t)
	s.boardOpt = boardMono
	s.seats[0].Hand = s.fromBag(t, tl(t, "red red red red red red red red red red red red blue green green"))
	// Costs: outer 3 2 1 4 5 6, centre 3.
	for _, tc := range []struct{ star, space, cost int }{{1, 1, 3}, {1, 2, 2}, {2, 3, 1}, {0, 5, 3}} {
		legal := AppendLegal(nil, s, 0)
		found := false
		for _, c := range legal {
			if c == Place(tc.star, tc.space, Red, 0) {
				found = true
			}
		}
		e := find(t, play(t, s, 0, Place(tc.star, tc.space, Red, 0)), EvTilePlaced)
		if int(e.Cost) != tc.cost || !found {
			t.Fatalf("star %d space %d costs %d (listed %v), want %d", tc.star, tc.space, e.Cost, found, tc.cost)
		}
		s.toPlay(0)
	}
	// Star 1 holds two red tiles: single-coloured.
	mustRefuse(t, s, 0, Place(1, 3, Blue, 0), "pavilion.star-single-coloured")
	// Star 2 holds one red tile: a second colour makes it multicoloured.
	s.seats[0].Hand = s.seats[0].Hand.Plus(s.fromBag(t, tl(t, "blue blue blue green")))
	play(t, s, 0, Place(2, 4, Blue, 0))
	s.toPlay(0)
	mustRefuse(t, s, 0, Place(2, 5, Red, 0), "pavilion.colour-already-on-star")
	mustRefuse(t, s, 0, Place(2, 1, Blue, 0), "pavilion.colour-already-on-star")
	// Any colour is fine on an outer star: no colour is printed.
	play(t, s, 0, Place(2, 2, Green, 0))
	checkTiles(t, s)

	// End values: single-coloured stars by colour (two red stars allowed),
	// multicoloured 12, a single-coloured centre star too.
	s = lastRound(t, RulesetPavilion, engine.Options{Board: "monochrome"})
	for space := 1; space <= 6; space++ {
		s.cover(t, 0, 3, space, Red)
		s.cover(t, 0, 4, space, Red)
		s.cover(t, 0, 1, space, Colour(space-1))
		s.cover(t, 0, 0, space, Purple)
	}
	f := endGame(t, s)
	if f.StarPoints != [NumStars]uint8{20, 12, 0, 14, 14, 0, 0} || f.StarColour[0] != uint8(Purple) || f.StarColour[1] != multiColour {
		t.Fatalf("monochrome star values %v colours %v", f.StarPoints, f.StarColour)
	}
	// Spaces 1..4 of three outer stars and the centre do not cover any
	// cost completely (other stars are empty).
	if s.Score(0) != StartScore+20+12+14+14 {
		t.Fatalf("score %d", s.Score(0))
	}
}

func TestColouredPlacementRules(t *testing.T) {
	s := playFixture(t)
	s.seats[0].Hand = s.fromBag(t, tl(t, "red red red blue purple purple purple purple"))
	mustRefuse(t, s, 0, Take(0, Red), "pavilion.play-phase")
	mustRefuse(t, s, 0, Place(StarOfColour(Blue), 1, Red, 0), "pavilion.colour-not-of-star")
	mustRefuse(t, s, 0, Place(StarOfColour(Red), 5, Red, 0), "pavilion.not-enough-tiles")
	mustRefuse(t, s, 0, Place(StarOfColour(Red), 4, Red, 4), "pavilion.too-many-wilds")
	mustRefuse(t, s, 0, Place(StarOfColour(Blue), 6, Blue, 5), "pavilion.not-enough-wilds")
	// Purple is wild: it is placed as itself only, paid with purple only.
	mustRefuse(t, s, 0, Place(StarOfColour(Purple), 2, Purple, 1), "pavilion.wilds-for-wild-colour")
	mustRefuse(t, s, 0, Place(StarOfColour(Purple), 5, Purple, 0), "pavilion.not-enough-tiles")
	// Red 3 + 2 wilds on red space 5.
	e := find(t, play(t, s, 0, Place(StarOfColour(Red), 5, Red, 2)), EvTilePlaced)
	if e.Cost != 5 || s.seats[0].Hand != tl(t, "blue purple purple") || s.tower != tl(t, "red red purple purple") {
		t.Fatalf("red 5 with 2 wilds: %+v, hand %s, tower %s", e, s.seats[0].Hand, s.tower)
	}
	mustRefuse(t, s, 1, Take(0, Red), "pavilion.play-phase")
	s.toPlay(0)
	mustRefuse(t, s, 0, Place(StarOfColour(Red), 5, Red, 0), "pavilion.space-occupied")
	// The wild colour may go on the centre star as itself.
	play(t, s, 0, Place(CentreStar, 2, Purple, 0))
	s.toPlay(0)
	s.seats[0].Hand = s.seats[0].Hand.Plus(s.fromBag(t, tl(t, "purple")))
	mustRefuse(t, s, 0, Place(CentreStar, 1, Purple, 0), "pavilion.colour-already-on-centre-star")
	play(t, s, 0, Place(CentreStar, 1, Blue, 0))
	checkTiles(t, s)

	a := fixture(t, RulesetPavilion, 2, engine.Options{})
	a.factories[0] = a.fromBag(t, tl(t, "red red red red"))
	mustRefuse(t, a, 0, Place(3, 1, Red, 0), "pavilion.acquire-phase")
	mustRefuse(t, a, 0, Pass(Tiles{}), "pavilion.acquire-phase")
}
