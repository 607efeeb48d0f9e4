package pavilion

import (
	"testing"

	"github.com/azuld/azuld/engine"
)

// The worked examples of docs/rules.md §4 (from the rulebooks' pages on turns
// and scoring), round 1, purple wild. Expected values are the rulebooks'.

func TestExample1TurnExample(t *testing.T) {
	for _, ruleset := range []string{RulesetPavilion, RulesetMini} {
		t.Run(ruleset, func(t *testing.T) {
			s := fixture(t, ruleset, 3, engine.Options{})
			s.factories[0] = s.fromBag(t, tl(t, "red red yellow yellow"))
			s.factories[1] = s.fromBag(t, tl(t, "green purple purple yellow"))
			for f := 2; f < 7; f++ {
				s.factories[f] = s.fromBag(t, tl(t, "blue blue orange orange"))
			}
			// Ina takes both red tiles; no wild there; 2 yellow go to the centre.
			e := find(t, play(t, s, 0, Take(0, Red)), EvTilesTaken)
			if e.Count != 2 || e.WildTaken != 0 || e.Tiles != tl(t, "yellow yellow") || e.Token {
				t.Fatalf("Ina's take: %+v", e)
			}
			if s.seats[0].Hand != tl(t, "red red") || s.centre != tl(t, "yellow yellow") {
				t.Fatalf("after Ina: hand %s, centre %s", s.seats[0].Hand, s.centre)
			}
			// Andrea takes the green tile and must take one purple wild.
			e = find(t, play(t, s, 1, Take(1, Green)), EvTilesTaken)
			if e.Count != 1 || e.WildTaken != 1 || e.Tiles.Total() != 2 {
				t.Fatalf("Andrea's take: %+v", e)
			}
			if s.seats[1].Hand != tl(t, "green purple") || s.centre != tl(t, "yellow yellow yellow purple") {
				t.Fatalf("after Andrea: hand %s, centre %s", s.seats[1].Hand, s.centre)
			}
			// Tom takes 3 yellow + 1 purple from the centre, the token, and
			// loses 4 points.
			e = find(t, play(t, s, 2, Take(Center, Yellow)), EvTilesTaken)
			if e.Count != 3 || e.WildTaken != 1 || !e.Token || e.Lost != 4 || e.Score != 1 {
				t.Fatalf("Tom's take: %+v", e)
			}
			if s.seats[2].Hand != tl(t, "yellow yellow yellow purple") || s.Score(2) != 1 || s.TokenHolder() != 2 ||
				s.centre.Total() != 0 {
				t.Fatalf("after Tom: hand %s, score %d, token %d", s.seats[2].Hand, s.Score(2), s.TokenHolder())
			}
			checkTiles(t, s)
		})
	}
}

// playFixture is a 2-player game in round 1's play phase, seat 0 to act,
// seat 1 holding a tile (so that it does not pass automatically).
func playFixture(t *testing.T) *State {
	s := fixture(t, RulesetPavilion, 2, engine.Options{})
	s.toPlay(0)
	s.seats[1].Hand = s.fromBag(t, tl(t, "red"))
	s.supply = s.fromBag(t, tl(t, "purple green orange yellow blue red purple green orange yellow"))
	return s
}

func TestExampleA_SixBlueOnBlueSpaceSix(t *testing.T) {
	s := playFixture(t)
	s.seats[0].Hand = s.fromBag(t, tl(t, "blue blue blue blue blue blue blue"))
	tower := s.tower
	e := find(t, play(t, s, 0, Place(StarOfColour(Blue), 6, Blue, 0)), EvTilePlaced)
	if e.Points != 1 || s.Score(0) != StartScore+1 {
		t.Fatalf("points %d, score %d; want +1", e.Points, s.Score(0))
	}
	if s.seats[0].Hand != tl(t, "blue") {
		t.Fatalf("hand %s, want 1 blue left", s.seats[0].Hand)
	}
	if got := s.tower.Minus(tower); got != tl(t, "blue blue blue blue blue") {
		t.Fatalf("tower got %s, want 5 blue", got)
	}
	checkTiles(t, s)
}

func TestExampleB_ThreeRedOnRedSpaceThree(t *testing.T) {
	s := playFixture(t)
	s.seats[0].Hand = s.fromBag(t, tl(t, "red red red"))
	e := find(t, play(t, s, 0, Place(StarOfColour(Red), 3, Red, 0)), EvTilePlaced)
	if e.Points != 1 || s.Score(0) != StartScore+1 || s.seats[0].Hand.Total() != 0 || s.tower != tl(t, "red red") {
		t.Fatalf("points %d, score %d, hand %s, tower %s", e.Points, s.Score(0), s.seats[0].Hand, s.tower)
	}
	checkTiles(t, s)
}

func TestExampleC_BlueWithThreeWildsNextToTwo(t *testing.T) {
	s := playFixture(t)
	blue := StarOfColour(Blue)
	s.cover(t, 0, blue, 5, Blue)
	s.cover(t, 0, blue, 1, Blue)
	s.seats[0].Hand = s.fromBag(t, tl(t, "blue blue blue purple purple purple"))
	evs := play(t, s, 0, Place(blue, 6, Blue, 3))
	e := find(t, evs, EvTilePlaced)
	if e.Points != 3 || s.Score(0) != StartScore+3 {
		t.Fatalf("points %d, score %d; want +3", e.Points, s.Score(0))
	}
	if s.seats[0].Hand.Total() != 0 || s.tower != tl(t, "blue blue purple purple purple") {
		t.Fatalf("hand %s, tower %s; want empty hand, 2 blue + 3 purple in the tower", s.seats[0].Hand, s.tower)
	}
	// Spaces 5 and 6 surround the blue star's window: 3 bonus tiles.
	if e.Features != 1<<uint(blue-1) || e.Earned != 3 || s.Phase() != PhaseBonus {
		t.Fatalf("features %b, earned %d, phase %s; want the window of star %d, 3 tiles", e.Features, e.Earned, s.Phase(), blue)
	}
	checkTiles(t, s)
}

func TestExampleD_OrangeWithThreeWilds(t *testing.T) {
	s := playFixture(t)
	orange := StarOfColour(Orange)
	s.cover(t, 0, orange, 3, Orange)
	s.cover(t, 0, orange, 5, Orange)
	s.seats[0].Hand = s.fromBag(t, tl(t, "orange purple purple purple green"))
	e := find(t, play(t, s, 0, Place(orange, 4, Orange, 3)), EvTilePlaced)
	if e.Points != 3 || s.Score(0) != StartScore+3 {
		t.Fatalf("points %d, score %d; want +3", e.Points, s.Score(0))
	}
	if s.seats[0].Hand != tl(t, "green") || s.tower != tl(t, "purple purple purple") {
		t.Fatalf("hand %s, tower %s; want green left, 3 purple in the tower", s.seats[0].Hand, s.tower)
	}
	checkTiles(t, s)
}

func TestExampleE_WildColourOnItsOwnStar(t *testing.T) {
	s := playFixture(t)
	purple := StarOfColour(Purple)
	s.cover(t, 0, purple, 1, Purple)
	s.cover(t, 0, purple, 3, Purple)
	s.seats[0].Hand = s.fromBag(t, tl(t, "purple purple red red green green green green"))
	e := find(t, play(t, s, 0, Place(purple, 2, Purple, 0)), EvTilePlaced)
	if e.Points != 3 || s.Score(0) != StartScore+3 {
		t.Fatalf("points %d, score %d; want +3", e.Points, s.Score(0))
	}
	if s.seats[0].Hand != tl(t, "red red green green green green") || s.tower != tl(t, "purple") {
		t.Fatalf("hand %s, tower %s", s.seats[0].Hand, s.tower)
	}
	checkTiles(t, s)
}

func TestExampleF_PassKeepingFourGreen(t *testing.T) {
	s := playFixture(t)
	s.seats[0].Hand = s.fromBag(t, tl(t, "green green green green red red"))
	e := find(t, play(t, s, 0, Pass(tl(t, "green green green green"))), EvPassed)
	if e.Lost != 2 || s.Score(0) != StartScore-2 {
		t.Fatalf("lost %d, score %d; want -2", e.Lost, s.Score(0))
	}
	p := s.seats[0]
	if p.Kept != tl(t, "green green green green") || p.Hand.Total() != 0 || !p.Passed || s.tower != tl(t, "red red") {
		t.Fatalf("kept %s, hand %s, tower %s", p.Kept, p.Hand, s.tower)
	}
	checkTiles(t, s)
}
