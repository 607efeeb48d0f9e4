package pavilion

import (
	"errors"
	"slices"
	"testing"

	"github.com/azuld/azuld/engine"
)

// Decision S1: nobody takes the token, so the start player of the round
// plays first in phase 2 and starts the next round too.
func TestDecisionS1NobodyTakesTheToken(t *testing.T) {
	s := fixture(t, RulesetPavilion, 2, engine.Options{})
	// Every factory is taken whole (one colour, plus the one wild), so no
	// tile ever reaches the centre.
	s.factories[0] = s.fromBag(t, tl(t, "red red red red"))
	s.factories[1] = s.fromBag(t, tl(t, "blue blue blue purple"))
	s.factories[2] = s.fromBag(t, tl(t, "green green green green"))
	s.factories[3] = s.fromBag(t, tl(t, "orange orange orange purple"))
	s.factories[4] = s.fromBag(t, tl(t, "yellow yellow yellow yellow"))
	play(t, s, 0, Take(0, Red))
	play(t, s, 1, Take(1, Blue))
	play(t, s, 0, Take(2, Green))
	play(t, s, 1, Take(3, Orange))
	evs := play(t, s, 0, Take(4, Yellow))
	// Seat 0 took last: the next seat in turn would be 1, but S1 says 0.
	e := find(t, evs, EvAcquisitionEnded)
	if e.Seat != 0 || e.Token || s.Turn() != 0 || s.TokenHolder() != -1 {
		t.Fatalf("acquisition_ended %+v, turn %d; want seat 0 first without the token", e, s.Turn())
	}
	play(t, s, 0, Pass(tl(t, "red red red red")))
	evs = play(t, s, 1, Pass(tl(t, "blue blue blue purple")))
	e = find(t, evs, EvRoundStarted)
	if e.Round != 2 || e.Seat != 0 || s.Turn() != 0 {
		t.Fatalf("round %d starts with seat %d; want round 2 with seat 0", e.Round, e.Seat)
	}
	checkTiles(t, s)
}

// Decision S2: with fewer tiles in the supply than earned, the player takes
// them all (automatically: there is nothing to choose), then the supply is
// refilled to 10.
func TestDecisionS2FewerSupplyTilesThanEarned(t *testing.T) {
	s := playFixture(t)
	s.bag = s.bag.Plus(s.supply)
	s.supply = s.fromBag(t, tl(t, "blue red"))
	blue := StarOfColour(Blue)
	s.cover(t, 0, blue, 5, Blue)
	s.seats[0].Hand = s.fromBag(t, tl(t, "blue blue blue blue blue blue"))
	// A bonus chosen inside the move must be the whole supply.
	withBonus := Place(blue, 6, Blue, 0)
	withBonus.HasBonus, withBonus.Tiles = true, tl(t, "blue red red")
	mustRefuse(t, s, 0, withBonus, "pavilion.bonus-count")
	evs := play(t, s, 0, Place(blue, 6, Blue, 0))
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvTilePlaced, EvBonusTaken, EvSupplyRefilled}) {
		t.Fatalf("events %v", got)
	}
	b := find(t, evs, EvBonusTaken)
	if b.Earned != 3 || b.Tiles != tl(t, "blue red") || !b.Auto {
		t.Fatalf("bonus %+v; want both supply tiles of the 3 earned, automatically", b)
	}
	if s.seats[0].Hand != tl(t, "blue red") || s.supply.Total() != SupplySize || s.Turn() != 1 {
		t.Fatalf("hand %s, supply %d tiles, turn %d", s.seats[0].Hand, s.supply.Total(), s.Turn())
	}
	if s.Reveals() != 2 {
		t.Fatalf("reveals %d; want 2 (the deal and the refill)", s.Reveals())
	}
	checkTiles(t, s)
}

// Decision S3: a seat whose hand is empty passes automatically when its turn
// comes.
func TestDecisionS3EmptyHandPassesAutomatically(t *testing.T) {
	s := fixture(t, RulesetPavilion, 2, engine.Options{})
	s.toPlay(0)
	s.seats[0].Hand = s.fromBag(t, tl(t, "red"))
	evs := play(t, s, 0, Place(StarOfColour(Red), 1, Red, 0))
	want := []EventKind{EvTilePlaced, EvPassed, EvPassed, EvRoundStarted}
	if got := kinds(evs); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if evs[1].Seat != 1 || !evs[1].Auto || evs[2].Seat != 0 || !evs[2].Auto || evs[1].Lost != 0 {
		t.Fatalf("automatic passes: %+v %+v", evs[1], evs[2])
	}
	if s.Round() != 2 || s.Phase() != PhaseAcquire {
		t.Fatalf("round %d phase %s", s.Round(), s.Phase())
	}
	checkTiles(t, s)
}

// Decision S4: the floor (1 in the full game, 0 in the Mini) applies to the
// token, to discards when passing and to kept tiles at the end.
func TestDecisionS4ScoreFloorsOneAndZero(t *testing.T) {
	for _, tc := range []struct {
		ruleset string
		floor   int
	}{{RulesetPavilion, 1}, {RulesetMini, 0}} {
		t.Run(tc.ruleset, func(t *testing.T) {
			// The token: 3 tiles taken with a score of 2.
			s := fixture(t, tc.ruleset, 2, engine.Options{})
			s.centre = s.fromBag(t, tl(t, "red red purple"))
			s.factories[0] = s.fromBag(t, tl(t, "blue blue blue blue"))
			s.seats[0].Score = 2
			e := find(t, play(t, s, 0, Take(Center, Red)), EvTilesTaken)
			if int(e.Lost) != 2-tc.floor || s.Score(0) != tc.floor || !e.Token {
				t.Fatalf("token: lost %d, score %d; want the score floored at %d", e.Lost, s.Score(0), tc.floor)
			}
			// Already at the floor: the token is still taken, nothing lost.
			s = fixture(t, tc.ruleset, 2, engine.Options{})
			s.centre = s.fromBag(t, tl(t, "red"))
			s.factories[0] = s.fromBag(t, tl(t, "blue blue blue blue"))
			s.seats[0].Score = int16(tc.floor)
			e = find(t, play(t, s, 0, Take(Center, Red)), EvTilesTaken)
			if e.Lost != 0 || !e.Token || s.TokenHolder() != 0 {
				t.Fatalf("token at the floor: %+v", e)
			}
			// Discards when passing: 5 discarded with a score of 3.
			s = playFixture(t)
			s.ruleset = map[string]uint8{RulesetPavilion: 0, RulesetMini: 1}[tc.ruleset]
			s.seats[0].Score = 3
			s.seats[0].Hand = s.fromBag(t, tl(t, "red red red red red"))
			e = find(t, play(t, s, 0, Pass(Tiles{})), EvPassed)
			if int(e.Lost) != 3-tc.floor || s.Score(0) != tc.floor || e.Discarded != tl(t, "red red red red red") {
				t.Fatalf("pass: %+v", e)
			}
			// Kept tiles at the end: 4 kept with a score of 2, no bonus.
			s = lastRound(t, tc.ruleset, engine.Options{})
			s.seats[0].Score = 2
			s.seats[0].Hand = s.fromBag(t, tl(t, "green green red red"))
			evs := play(t, s, 0, Pass(tl(t, "green green red red")))
			f := find(t, evs, EvGameEnded).Final[0]
			if f.KeptN != 4 || int(f.KeptLost) != 2-tc.floor || s.Score(0) != tc.floor {
				t.Fatalf("kept at the end: %+v, score %d", f, s.Score(0))
			}
			checkTiles(t, s)
		})
	}
}

// lastRound is a 2-player game in round 6's play phase where seat 1 has
// passed (keeping nothing) and seat 0 is to act with an empty hand that the
// test fills.
func lastRound(t *testing.T, ruleset string, opts engine.Options) *State {
	t.Helper()
	s := fixture(t, ruleset, 2, opts)
	s.round = Rounds
	s.toPlay(0)
	s.seats[1].Passed = true
	return s
}

func TestStartTokenRules(t *testing.T) {
	s := fixture(t, RulesetPavilion, 3, engine.Options{})
	s.factories[0] = s.fromBag(t, tl(t, "red red yellow purple"))
	s.factories[1] = s.fromBag(t, tl(t, "blue green green purple"))
	s.factories[2] = s.fromBag(t, tl(t, "orange orange orange orange"))
	s.centre = s.fromBag(t, tl(t, "purple purple"))
	mustRefuse(t, s, 0, Take(0, Purple), "pavilion.wild-colour-not-takeable")
	mustRefuse(t, s, 0, Take(0, Blue), "pavilion.colour-not-in-source")
	mustRefuse(t, s, 0, Take(3, Blue), "pavilion.source-empty")
	mustRefuse(t, s, 0, Take(7, Blue), "pavilion.no-such-factory")
	mustRefuse(t, s, 1, Take(0, Red), engine.ErrNotYourTurn)
	// Only wild tiles in the centre: exactly one is taken, with the token
	// and a loss of 1.
	e := find(t, play(t, s, 0, Take(Center, Purple)), EvTilesTaken)
	if e.Count != 1 || e.WildTaken != 0 || !e.Token || e.Lost != 1 || s.centre != tl(t, "purple") {
		t.Fatalf("wild-only centre: %+v, centre %s", e, s.centre)
	}
	// Yellow + purple go to the centre; the second taker from the centre
	// takes no token and loses nothing.
	play(t, s, 1, Take(0, Red))
	e = find(t, play(t, s, 2, Take(Center, Yellow)), EvTilesTaken)
	if e.Count != 1 || e.WildTaken != 1 || e.Token || e.Lost != 0 || s.TokenHolder() != 0 {
		t.Fatalf("second centre take: %+v", e)
	}
	play(t, s, 0, Take(1, Green))
	play(t, s, 1, Take(2, Orange))
	evs := play(t, s, 2, Take(Center, Blue))
	// The token holder plays first in phase 2 ...
	if e := find(t, evs, EvAcquisitionEnded); e.Seat != 0 || !e.Token {
		t.Fatalf("acquisition_ended %+v; want seat 0 (token)", e)
	}
	// ... and starts the next round, with the token back in the centre.
	play(t, s, 0, Pass(Tiles{}))
	play(t, s, 1, Pass(Tiles{}))
	evs = play(t, s, 2, Pass(Tiles{}))
	if e := find(t, evs, EvRoundStarted); e.Seat != 0 || s.TokenHolder() != -1 || s.Turn() != 0 {
		t.Fatalf("round_started %+v, token %d", e, s.TokenHolder())
	}
	checkTiles(t, s)
}

func TestWildOrder(t *testing.T) {
	order := []string{"red", "blue", "purple", "yellow", "green", "orange"}
	s := fixture(t, RulesetPavilion, 2, engine.Options{WildOrder: order})
	if s.Wild() != Red {
		t.Fatalf("round 1 wild %s, want red", s.Wild())
	}
	// Red is wild: it can't be taken with other colours, and wild tiles
	// pay for other colours.
	s.factories[0] = s.fromBag(t, tl(t, "red red blue purple"))
	s.factories[1] = s.fromBag(t, tl(t, "green green green green"))
	mustRefuse(t, s, 0, Take(0, Red), "pavilion.wild-colour-not-takeable")
	if e := find(t, play(t, s, 0, Take(0, Purple)), EvTilesTaken); e.WildTaken != 1 {
		t.Fatalf("take with red wild: %+v", e)
	}
	play(t, s, 1, Take(1, Green))
	play(t, s, 0, Take(Center, Blue))
	// Purple is an ordinary colour now: purple + 1 red wild on purple
	// space 2.
	play(t, s, 0, Place(StarOfColour(Purple), 2, Purple, 1))
	for s.Round() == 1 {
		play(t, s, s.actor(), Pass(Tiles{}))
	}
	if s.Wild() != Blue || s.Config().Options.WildOrder[1] != "blue" {
		t.Fatalf("round 2 wild %s, want blue", s.Wild())
	}
	checkTiles(t, s)

	for _, bad := range [][]string{
		{"red", "blue", "purple", "yellow", "green"},
		{"red", "blue", "purple", "yellow", "green", "red"},
		{"red", "blue", "purple", "yellow", "green", "black"},
		{"Red", "blue", "purple", "yellow", "green", "orange"},
	} {
		_, err := Start(engine.Config{Ruleset: RulesetPavilion, Players: 2, Options: engine.Options{WildOrder: bad}}, testSeed, nil)
		if !errors.Is(err, engine.ErrBadCommand) {
			t.Errorf("wild_order %v: %v", bad, err)
		}
	}
}

func TestStartValidation(t *testing.T) {
	for _, cfg := range []engine.Config{
		{Ruleset: RulesetPavilion, Players: 1},
		{Ruleset: RulesetPavilion, Players: 5},
		{Ruleset: RulesetMini, Players: 2, Options: engine.Options{Wall: "grey"}},
		{Ruleset: RulesetMini, Players: 2, Options: engine.Options{Wall: "coloured"}},
		{Ruleset: RulesetPavilion, Players: 2, Options: engine.Options{Board: "sepia"}},
		{Ruleset: "azul-mini", Players: 2},
	} {
		if _, err := Start(cfg, testSeed, nil); !errors.Is(err, engine.ErrBadCommand) {
			t.Errorf("%+v: %v, want ErrBadCommand", cfg, err)
		}
	}
	// Seat 0 starts round 1; the first deal is the supply of 10 and 4
	// tiles per factory.
	evs, err := Start(engine.Config{Ruleset: RulesetMini, Players: 4, Options: engine.Options{Board: "coloured"}}, testSeed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvGameStarted, EvRoundStarted}) {
		t.Fatalf("start events %v", got)
	}
	if evs[0].Seat != 0 || evs[1].Seat != 0 || evs[1].Round != 1 || evs[1].SupplyN != SupplySize || evs[1].NumFactories != 9 {
		t.Fatalf("start: %+v", evs[1])
	}
	var s State
	for i := range evs {
		if err := s.Apply(&evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	for f := range 9 {
		if s.factories[f].Total() != FactorySize {
			t.Fatalf("factory %d holds %d tiles", f, s.factories[f].Total())
		}
	}
	if s.Score(3) != StartScore || s.Floor() != 0 || s.Config().Options.Board != "coloured" || s.Reveals() != 1 {
		t.Fatalf("start state: score %d floor %d", s.Score(3), s.Floor())
	}
	if s.bag.Total() != 132-10-36 {
		t.Fatalf("bag %d", s.bag.Total())
	}
}

// The bonus chosen inside the place move and as a separate move lead to
// the same state; while it is due, only that seat may act.
func TestBonusInsidePlaceOrSeparate(t *testing.T) {
	setup := func() *State {
		s := playFixture(t)
		red := StarOfColour(Red)
		s.cover(t, 0, red, 6, Red)
		s.seats[0].Hand = s.fromBag(t, tl(t, "red red red red red"))
		return s
	}
	red := StarOfColour(Red)
	inside := setup()
	cmd := Place(red, 5, Red, 0)
	cmd.HasBonus, cmd.Tiles = true, tl(t, "purple green yellow")
	evs := play(t, inside, 0, cmd)
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvTilePlaced, EvBonusTaken, EvSupplyRefilled}) {
		t.Fatalf("events %v", got)
	}

	separate := setup()
	play(t, separate, 0, Place(red, 5, Red, 0))
	if separate.Phase() != PhaseBonus || !slices.Equal(separate.ToAct(), []int{0}) {
		t.Fatalf("phase %s, to act %v; want seat 0 choosing the bonus", separate.Phase(), separate.ToAct())
	}
	mustRefuse(t, separate, 1, Pass(Tiles{}), engine.ErrNotYourTurn)
	mustRefuse(t, separate, 0, Pass(Tiles{}), "pavilion.bonus-due")
	mustRefuse(t, separate, 0, ChooseBonus(tl(t, "purple green")), "pavilion.bonus-count")
	mustRefuse(t, separate, 0, ChooseBonus(tl(t, "red red red")), "pavilion.bonus-not-in-supply")
	legal := AppendLegal(nil, separate, 0)
	// 3 tiles out of purple 2, green 2, orange 2, yellow 2, blue 1, red 1:
	// the 56 multisets of 3 of 6 colours, less the 6 of one colour thrice
	// and the 10 with blue or red twice.
	if len(legal) != 40 {
		t.Fatalf("%d bonus choices listed, want 40", len(legal))
	}
	play(t, separate, 0, ChooseBonus(tl(t, "purple green yellow")))
	if *separate != *inside {
		t.Fatal("bonus inside the move and as a separate move differ")
	}
	if inside.seats[0].Hand != tl(t, "purple green yellow") || inside.Turn() != 1 {
		t.Fatalf("hand %s turn %d", inside.seats[0].Hand, inside.Turn())
	}
	// No bonus earned: a bonus inside the move is refused; no bonus due:
	// a bonus move is refused.
	noBonus := playFixture(t)
	noBonus.seats[0].Hand = noBonus.fromBag(t, tl(t, "red"))
	cmd = Place(red, 1, Red, 0)
	cmd.HasBonus, cmd.Tiles = true, tl(t, "purple")
	mustRefuse(t, noBonus, 0, cmd, "pavilion.no-bonus-earned")
	mustRefuse(t, noBonus, 0, ChooseBonus(tl(t, "purple")), "pavilion.no-bonus-due")
	checkTiles(t, inside)
}

func TestResign(t *testing.T) {
	s := fixture(t, RulesetPavilion, 3, engine.Options{})
	s.factories[0] = s.fromBag(t, tl(t, "red red red red"))
	s.seats[0].Score, s.seats[1].Score, s.seats[2].Score = 9, 12, 9
	// Any seat may resign at any time, not only the one to act.
	evs := play(t, s, 1, Resign())
	if got := kinds(evs); !slices.Equal(got, []EventKind{EvResigned, EvGameEnded}) {
		t.Fatalf("events %v", got)
	}
	f := s.Final()
	if !s.Over() || f == nil || f.Reason != "resigned" {
		t.Fatalf("over %v, final %+v", s.Over(), f)
	}
	// Seat 1 leads but resigned: last. Seats 0 and 2 share the first rank;
	// no end bonus is scored.
	if f.Players[1].Rank != 3 || !f.Players[1].Resigned || f.Players[0].Rank != 1 || f.Players[2].Rank != 1 ||
		!slices.Equal(f.Winners, []int{0, 2}) || f.Players[0].Score != 9 || len(f.Players[0].Breakdown) != 0 {
		t.Fatalf("final %+v", f)
	}
	mustRefuse(t, s, 0, Resign(), engine.ErrGameOver)
	mustRefuse(t, s, 0, Take(0, Red), engine.ErrGameOver)
	if len(s.ToAct()) != 0 || len(s.LegalMoves(0)) != 0 {
		t.Fatalf("a finished game has seats to act")
	}
}

func TestPassRules(t *testing.T) {
	s := playFixture(t)
	s.seats[0].Hand = s.fromBag(t, tl(t, "green green green red red"))
	mustRefuse(t, s, 0, Pass(tl(t, "green green green red red")), "pavilion.keep-too-many")
	mustRefuse(t, s, 0, Pass(tl(t, "blue")), "pavilion.keep-not-in-hand")
	mustRefuse(t, s, 0, Pass(tl(t, "red red red")), "pavilion.keep-not-in-hand")
	// Keeping fewer than allowed is legal (and listed): the rest is lost.
	e := find(t, play(t, s, 0, Pass(tl(t, "red"))), EvPassed)
	if e.Lost != 4 || e.Discarded != tl(t, "green green green red") || s.seats[0].Kept != tl(t, "red") {
		t.Fatalf("pass keeping one: %+v", e)
	}
	// A passed seat takes no more turns this round.
	if s.actor() != 1 {
		t.Fatalf("actor %d after seat 0 passed", s.actor())
	}
	s.seats[1].Hand = s.seats[1].Hand.Plus(s.fromBag(t, tl(t, "blue")))
	play(t, s, 1, Place(StarOfColour(Red), 1, Red, 0))
	if s.Round() != 1 || s.actor() != 1 {
		t.Fatalf("round %d actor %d; want seat 1 again", s.Round(), s.actor())
	}
}

// Resigning while a bonus is due ends the game cleanly (and its snapshot
// reads back).
func TestResignWhileBonusDue(t *testing.T) {
	s := playFixture(t)
	red := StarOfColour(Red)
	s.cover(t, 0, red, 6, Red)
	s.seats[0].Hand = s.fromBag(t, tl(t, "red red red red red"))
	play(t, s, 0, Place(red, 5, Red, 0))
	if s.Phase() != PhaseBonus {
		t.Fatalf("phase %s", s.Phase())
	}
	play(t, s, 1, Resign())
	if !s.Over() || s.Final().Players[1].Rank != 2 {
		t.Fatalf("final %+v", s.Final())
	}
	data, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeState(data)
	if err != nil || *back != *s {
		t.Fatalf("snapshot after resigning in the bonus phase: %v", err)
	}
}
