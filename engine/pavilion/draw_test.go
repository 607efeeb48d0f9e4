package pavilion

import (
	"errors"
	"testing"

	"github.com/azuld/azuld/engine"
)

// refold decodes the JSON of evs and folds it into a copy of before; the
// result must equal after.
func refold(t *testing.T, before, after *State, evs []Event) {
	t.Helper()
	s := *before
	for i := range evs {
		data, _ := evs[i].MarshalJSON()
		e, err := DecodeEvent(evs[i].EventType(), SchemaVersion, data)
		if err != nil {
			t.Fatalf("decode %s: %v", data, err)
		}
		if err := s.Apply(&e); err != nil {
			t.Fatalf("fold %s: %v", data, err)
		}
	}
	if s != *after {
		t.Fatal("the decoded events fold to another state")
	}
}

func TestBagRefilledFromTower(t *testing.T) {
	s := fixture(t, RulesetPavilion, 2, engine.Options{})
	s.toPlay(0)
	s.seats[0].Hand = s.fromBag(t, tl(t, "green"))
	s.seats[1].Hand = s.fromBag(t, tl(t, "yellow"))
	s.tower = s.fromBag(t, s.bag.Minus(tl(t, "red red blue")))
	poured := s.tower.Total() + 2 // with the two tiles discarded below
	before := *s
	evs := play(t, s, 0, Pass(Tiles{}))
	evs = append(evs, play(t, s, 1, Pass(Tiles{}))...)
	e := find(t, evs, EvRoundStarted)
	if int(e.Poured) != poured || s.tower.Total() != 0 || s.bag.Total() != poured+3-20 {
		t.Fatalf("poured %d (want %d), tower %d, bag %d", e.Poured, poured, s.tower.Total(), s.bag.Total())
	}
	// The first three tiles drawn were the bag's last three.
	var first Tiles
	for _, c := range e.Draws[:3] {
		first[c]++
	}
	if first != tl(t, "red red blue") {
		t.Fatalf("first draws %s, want the bag's red red blue", first)
	}
	for f := range 5 {
		if s.factories[f].Total() != FactorySize {
			t.Fatalf("factory %d holds %d", f, s.factories[f].Total())
		}
	}
	checkTiles(t, s)
	refold(t, &before, s, evs)
}

func TestShortDrawWhenBagAndTowerAreEmpty(t *testing.T) {
	s := fixture(t, RulesetPavilion, 4, engine.Options{})
	// Three full boards hold 21 tiles of each colour: one of each is left.
	for seat := range 3 {
		for star := range NumStars {
			for space := 1; space <= 6; space++ {
				c := Colour(space - 1)
				if star != CentreStar {
					c = outerStarColour[star]
				}
				s.cover(t, seat, star, space, c)
			}
		}
	}
	if s.bag.Total() != 6 {
		t.Fatalf("bag %d", s.bag.Total())
	}
	s.toPlay(3)
	s.seats[3].Hand = s.fromBag(t, tl(t, "red"))
	before := *s
	evs := play(t, s, 3, Pass(Tiles{})) // seats 0-2 pass automatically
	e := find(t, evs, EvRoundStarted)
	if e.FactoryN != [MaxFactories]uint8{4, 2, 0, 0, 0, 0, 0, 0, 0} || e.Poured != 1 {
		t.Fatalf("short deal: factories %v, poured %d; want 4 and 2 (the red tile went through the tower)", e.FactoryN, e.Poured)
	}
	if s.Phase() != PhaseAcquire || s.bag.Total()+s.tower.Total() != 0 || s.factories[1].Total() != 2 {
		t.Fatalf("phase %s, bag %d", s.Phase(), s.bag.Total())
	}
	checkTiles(t, s)
	refold(t, &before, s, evs)

	// A forged deal that stops short while tiles are left is refused.
	forged := e
	forged.FactoryN[1] = 1
	forged.Draws[5] = 0
	back := before
	for _, ev := range evs[:len(evs)-1] {
		if err := back.Apply(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := back.Apply(&forged); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("forged short deal: %v", err)
	}
	// Play goes on with the partly filled factories.
	play(t, s, s.actor(), Take(0, s.firstColourOf(0)))
}

// firstColourOf is a takeable colour of factory f.
func (s *State) firstColourOf(f int) Colour {
	for c, n := range s.factories[f] {
		if n > 0 && Colour(c) != s.Wild() {
			return Colour(c)
		}
	}
	return s.Wild()
}

func TestSupplyRefillStopsShort(t *testing.T) {
	s := playFixture(t)
	red := StarOfColour(Red)
	s.cover(t, 0, red, 6, Red)
	s.seats[0].Hand = s.fromBag(t, tl(t, "red red red red red"))
	// Leave one tile in the bag and none in the tower (the others wait in
	// seat 1's hand).
	rest := s.bag.Minus(tl(t, "green"))
	s.seats[1].Hand = s.seats[1].Hand.Plus(s.fromBag(t, rest))
	cmd := Place(red, 5, Red, 0)
	cmd.HasBonus, cmd.Tiles = true, tl(t, "purple purple orange")
	evs := play(t, s, 0, cmd)
	e := find(t, evs, EvSupplyRefilled)
	// Three bonus tiles out; the bag holds 1, the tower the 4 red paid.
	if e.SupplyN != 3 || e.Poured != 4 || s.supply.Total() != SupplySize {
		t.Fatalf("refill: %d drawn, %d poured, supply %d", e.SupplyN, e.Poured, s.supply.Total())
	}
	checkTiles(t, s)
	// Another bonus with an empty bag and tower: no refill event. Space 1
	// costs 1, so nothing is paid into the tower; it completes statue 1.
	s.toPlay(0)
	p1 := &s.seats[1]
	p1.Hand = p1.Hand.Plus(s.supply).Plus(s.seats[0].Hand).Plus(s.tower).Plus(s.bag)
	s.supply, s.tower, s.bag, s.seats[0].Hand = Tiles{}, Tiles{}, Tiles{}, Tiles{}
	move := func(tiles Tiles) Tiles { p1.Hand = p1.Hand.Minus(tiles); return tiles }
	s.supply = move(tl(t, "blue"))
	s.seats[0].Hand = move(tl(t, "purple purple purple"))
	s.bag = move(tl(t, "purple orange orange")) // for cover()
	s.cover(t, 0, 1, 2, Purple)
	s.cover(t, 0, 2, 3, Orange)
	s.cover(t, 0, 2, 4, Orange)
	checkTiles(t, s)
	evs = play(t, s, 0, Place(1, 1, Purple, 0))
	if b := find(t, evs, EvBonusTaken); b.Earned != 2 || b.Tiles != tl(t, "blue") || !b.Auto {
		t.Fatalf("bonus %+v", b)
	}
	for _, e := range evs {
		if e.Kind == EvSupplyRefilled {
			t.Fatalf("refill from an empty bag and tower: %v", kinds(evs))
		}
	}
	if s.refillDue || s.actor() != 1 {
		t.Fatalf("refill due %v, actor %d", s.refillDue, s.actor())
	}
	checkTiles(t, s)
}
