package azul

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/azuld/azuld/engine"
)

// TestBagRefillFromLid: when the bag runs empty during a deal, the whole
// lid goes back into the bag once and drawing goes on; the event records
// how many tiles were poured and Evolve follows it.
func TestBagRefillFromLid(t *testing.T) {
	tb := newTable(t, 2, false).factory(0, Black)
	for c := range Colour(NumColours) {
		keep := map[Colour]int{Red: 1, White: 2}[c]
		tb.lid(c, int(tb.s.bag[c])-keep)
	}
	s := tb.state()
	before := *s
	evs := play(t, s, 0, Take(0, Black, Floor))
	deal := evs[len(evs)-1]
	if deal.Kind != EvFactoriesFilled {
		t.Fatalf("last event %s, want the next deal", deal.Kind)
	}
	// 96 tiles were in the lid, plus the black from the floor.
	if deal.LidToBag != 97 {
		t.Fatalf("lid_to_bag %d, want 97", deal.LidToBag)
	}
	first := []Colour{deal.Deal[0][0], deal.Deal[0][1], deal.Deal[0][2]}
	slices.Sort(first)
	if !slices.Equal(first, []Colour{Red, White, White}) {
		t.Fatalf("the first 3 tiles drawn are %v: they must be the bag's red and 2 white", first)
	}
	if sum5(s.Bag()) != 97-17 || sum5(s.Lid()) != 0 {
		t.Fatalf("bag %d, lid %d after the deal: want 80 and 0", sum5(s.Bag()), sum5(s.Lid()))
	}
	// A forged pour count, or a tile the bag can't hold before the pour,
	// does not fold.
	replay := before
	for _, e := range evs[:len(evs)-1] {
		if err := replay.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
	forged := deal
	forged.LidToBag = 96
	if err := replay.Apply(forged); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("a wrong lid_to_bag folded: %v", err)
	}
	forged = deal
	forged.Deal[0][0] = Blue
	if err := replay.Apply(forged); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("a blue drawn from a bag with none folded: %v", err)
	}
	if err := replay.Apply(deal); err != nil || replay != *s {
		t.Fatalf("the true deal should fold to the live state: %v", err)
	}
}

// TestShortDealWhenBagAndLidEmpty: with 6 tiles in the bag and none in the
// lid, F1 gets 4, F2 2 and the other factories stay empty; play goes on.
func TestShortDealWhenBagAndLidEmpty(t *testing.T) {
	s := stuckTable(t, [NumColours]int{Blue: 2, Yellow: 1, Red: 1, Black: 1, White: 1}).state()
	evs := play(t, s, 1, Take(0, Blue, 5))
	deal := evs[len(evs)-1]
	if deal.Kind != EvFactoriesFilled || deal.LidToBag != 0 {
		t.Fatalf("last event %+v: want a deal without a pour", deal)
	}
	if want := [MaxFactories]uint8{4, 2}; deal.DealN != want {
		t.Fatalf("tiles per factory %v, want %v", deal.DealN, want)
	}
	if s.Phase() != PhaseOffer || sum5(s.Bag()) != 0 || len(AppendLegal(nil, s, s.Turn())) == 0 {
		t.Fatalf("play should go on with the 6 tiles on offer")
	}
	// Play the game out at random: it must keep folding and end.
	rng := rand.New(rand.NewPCG(3, 4))
	for moves := 0; !s.Over(); moves++ {
		if moves > 1000 {
			t.Fatalf("the game did not end")
		}
		seat := pickSeat(rng, s.ToActMask())
		legal := AppendLegal(nil, s, seat)
		play(t, s, seat, legal[rng.IntN(len(legal))])
		if err := countTiles(s); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStartMarker: the first player to take from the centre takes the
// marker onto the leftmost free floor space (it costs like a tile and
// does not go to the lid); the next taker from the centre does not; the
// holder starts the next round, and the marker returns to the centre.
func TestStartMarker(t *testing.T) {
	s := newTable(t, 3, false).
		score(1, 5).
		floor(1, Red).
		factory(0, Yellow, Yellow, Blue, Black).
		factory(1, White, White, White, White).
		state()
	if !s.CenterMarker() || s.MarkerHolder() != -1 {
		t.Fatalf("the marker should start in the centre")
	}
	play(t, s, 0, Take(0, Yellow, 2))
	first := play(t, s, 1, Take(Center, Blue, 1))[0]
	if !first.Marker || s.MarkerHolder() != 1 || s.CenterMarker() {
		t.Fatalf("seat 1 should take the marker: %+v", first)
	}
	if b := s.Board(1); b.FloorLen != 2 || b.Floor[1] != Marker {
		t.Fatalf("seat 1's floor %v: want the marker on the leftmost free space, after the red", b.Floor[:b.FloorLen])
	}
	if second := play(t, s, 2, Take(Center, Black, 1))[0]; second.Marker {
		t.Fatalf("only the first taker from the centre takes the marker")
	}
	evs := play(t, s, 0, Take(1, White, 4))
	floors := eventsOf(evs, EvFloorScored)
	if len(floors) != 1 || floors[0].Seat != 1 || floors[0].Penalty != 2 || floors[0].ToLid != 1 || !floors[0].Marker {
		t.Fatalf("floor scoring %+v: want seat 1 to pay 1+1 for the red and the marker, the red to the lid", floors)
	}
	// Seat 1: 5 + 1 (blue of line 1) - 2 = 4.
	if s.Score(1) != 4 || s.StartSeat() != 1 || s.Turn() != 1 || !s.CenterMarker() {
		t.Fatalf("score %d, round %d started by seat %d: want 4, seat 1, marker back in the centre", s.Score(1), s.Round(), s.StartSeat())
	}
	if err := countTiles(s); err != nil {
		t.Fatal(err)
	}
}

// TestNobodyTakesTheMarker: when no player takes from the centre in a
// round, the seat that started it starts the next round too.
func TestNobodyTakesTheMarker(t *testing.T) {
	s := newTable(t, 2, false).factory(0, Red, Red, Red, Red).factory(1, Blue, Blue, Blue, Blue).state()
	s.turn, s.startSeat = 1, 1
	play(t, s, 1, Take(0, Red, 4))
	play(t, s, 0, Take(1, Blue, 4))
	if s.Round() != 2 || s.StartSeat() != 1 || s.Turn() != 1 {
		t.Fatalf("round %d started by seat %d: want round 2 started by seat 1 again", s.Round(), s.StartSeat())
	}
}

// TestScoreNeverBelowZero: a floor costing more than the score leaves 0.
func TestScoreNeverBelowZero(t *testing.T) {
	s := newTable(t, 2, false).score(0, 3).floor(0, Red, Red, Blue, Blue, Black).factory(0, White).state()
	evs := play(t, s, 0, Take(0, White, 3))
	f := eventsOf(evs, EvFloorScored)
	if len(f) != 1 || f[0].Penalty != 8 || f[0].Points != 3 || f[0].Score != 0 || s.Score(0) != 0 {
		t.Fatalf("floor scoring %+v: want a penalty of 8, 3 points lost, score 0", f)
	}
}

// TestFloorOverflowToLid: tiles beyond the 7th floor space go to the lid,
// both from a straight-to-floor take and from a line's overflow.
func TestFloorOverflowToLid(t *testing.T) {
	s := newTable(t, 2, false).
		floor(0, Black, Black, Black, Black, Black).
		factory(0, Red, Red, Red, Red).
		factory(1, Blue, Blue, Blue, White).
		factory(2, Yellow).
		state()
	e := play(t, s, 0, Take(0, Red, Floor))[0]
	if e.ToFloor != 2 || e.ToLid != 2 || s.Lid()[Red] != 2 || s.Board(0).FloorLen != 7 {
		t.Fatalf("take %+v: want 2 red on the floor and 2 in the lid", e)
	}
	s2 := newTable(t, 2, false).
		floor(1, Black, Black, Black, Black, Black, Black).
		factory(0, Blue, Blue, Blue, White).
		factory(1, Yellow).
		state()
	s2.turn = 1
	e = play(t, s2, 1, Take(0, Blue, 1))[0]
	if e.ToLine != 1 || e.ToFloor != 1 || e.ToLid != 1 {
		t.Fatalf("take %+v: want 1 on line 1, 1 on the floor, 1 in the lid", e)
	}
}

// TestEndBonusesAndTieBreak: a completed row ends the game; bonuses are +2
// per row, +7 per column, +10 per colour; equal scores go to the player
// with more complete rows.
func TestEndBonusesAndTieBreak(t *testing.T) {
	s := newTable(t, 2, false).
		wallRow(0, 1, Blue, Yellow, Red, Black).
		line(0, 1, White, 1).
		score(0, 20).
		// Seat 1: column 1 complete and all five blue (the diagonal).
		wallRow(1, 1, Blue).wallRow(1, 2, White, Blue).wallRow(1, 3, Black, Blue).
		wallRow(1, 4, Red, Blue).wallRow(1, 5, Yellow, Blue).
		score(1, 10).
		factory(0, Red).
		state()
	evs := play(t, s, 0, Take(0, Red, 3))
	end := evs[len(evs)-1]
	if end.Kind != EvGameEnded || end.Reason != EndRowCompleted {
		t.Fatalf("last event %+v: want the end by a completed row", end)
	}
	f := s.Final()
	// Seat 0: 20 + 5 (white joins a row of 5) + 2 = 27; seat 1: 10 + 7 + 10 = 27.
	p0, p1 := f.Players[0], f.Players[1]
	if p0.Score != 27 || p1.Score != 27 {
		t.Fatalf("scores %d and %d, want 27 and 27", p0.Score, p1.Score)
	}
	want0 := []engine.ScoreItem{{Item: "play", Count: 5, Points: 25}, {Item: "rows", Count: 1, Points: 2},
		{Item: "columns", Count: 0, Points: 0}, {Item: "colours", Count: 0, Points: 0}}
	want1 := []engine.ScoreItem{{Item: "play", Count: 9, Points: 10}, {Item: "rows", Count: 0, Points: 0},
		{Item: "columns", Count: 1, Points: 7}, {Item: "colours", Count: 1, Points: 10}}
	if !slices.Equal(p0.Breakdown, want0) || !slices.Equal(p1.Breakdown, want1) {
		t.Fatalf("breakdowns %+v and %+v", p0.Breakdown, p1.Breakdown)
	}
	if p0.Rank != 1 || p1.Rank != 2 || !slices.Equal(f.Winners, []int{0}) {
		t.Fatalf("ranks %d and %d, winners %v: the tie goes to seat 0's complete row", p0.Rank, p1.Rank, f.Winners)
	}
}

// TestSharedVictory: equal scores and equal complete rows share the win.
func TestSharedVictory(t *testing.T) {
	s := newTable(t, 2, false).
		wallRow(0, 1, Blue, Yellow, Red, Black).line(0, 1, White, 1).score(0, 9).
		wallRow(1, 1, Blue, Yellow, Red, Black).line(1, 1, White, 1).score(1, 9).
		factory(0, Red).
		state()
	play(t, s, 0, Take(0, Red, 3))
	f := s.Final()
	if f == nil || f.Players[0].Score != 16 || f.Players[1].Score != 16 {
		t.Fatalf("final %+v: want 9 + 5 + 2 each", f)
	}
	if f.Players[0].Rank != 1 || f.Players[1].Rank != 1 || !slices.Equal(f.Winners, []int{0, 1}) {
		t.Fatalf("ranks %d, %d, winners %v: want a shared victory", f.Players[0].Rank, f.Players[1].Rank, f.Winners)
	}
}

// TestRanking checks the competition ranking: more points, then more
// rows; tied seats share a rank and the next rank is skipped.
func TestRanking(t *testing.T) {
	tb := newTable(t, 4, false).
		wallRow(1, 1, Blue, Yellow, Red, Black, White).
		score(0, 10).score(1, 18).score(2, 20).score(3, 20).
		factory(0, Red)
	s := tb.state()
	e := endEvent(s, EndRowCompleted, -1, false)
	// Seat 1: 18 + 2 = 20, one row: beats seats 2 and 3 (20, no row).
	want := [MaxPlayers]uint8{4, 1, 2, 2}
	for seat := range 4 {
		if e.Final[seat].Rank != want[seat] {
			t.Fatalf("ranks %v, want %v", e.Final, want)
		}
	}
	r := endEvent(s, EndResigned, 1, false)
	if r.Final[1].Rank != 4 || r.Final[1].Score != 18 || r.Final[2].Rank != 1 || r.Final[3].Rank != 1 || r.Final[0].Rank != 3 {
		t.Fatalf("resigned ranks %+v: want seat 1 last without bonus, seats 2 and 3 first", r.Final)
	}
}

// TestGreyWallColumnRule: on the grey wall a tile may not go where its
// colour is already in the column, nor on a taken space.
func TestGreyWallColumnRule(t *testing.T) {
	s := newTable(t, 2, true).
		wall(0, 1, 1, Red).
		wall(0, 2, 3, Blue).
		line(0, 2, Red, 2).
		line(1, 1, White, 1).
		factory(0, Yellow).
		state()
	play(t, s, 0, Take(0, Yellow, 5))
	if got, want := AppendLegal(nil, s, 0), []Cmd{Tile(2, 2), Tile(2, 4), Tile(2, 5)}; !slices.Equal(got, want) {
		t.Fatalf("legal columns %v, want %v", got, want)
	}
	_, err := Decide(s, 0, Tile(2, 1), testSeed(1), nil)
	wantRule(t, err, RuleColourOnWallColumn)
	_, err = Decide(s, 0, Tile(2, 3), testSeed(1), nil)
	wantRule(t, err, RuleWallSpaceTaken)
	play(t, s, 0, Tile(2, 4))
	play(t, s, 1, Tile(1, 5))
	if s.Round() != 2 || s.Board(0).Wall[1][3] != Red || s.Score(0) != 2 {
		t.Fatalf("round %d, wall %v, score %d: want red at row 2 column 4 joining the blue (2 points)",
			s.Round(), s.Board(0).Wall, s.Score(0))
	}
}

// TestGreyWallChoiceNotNow: tile commands outside a grey tiling are rule
// errors.
func TestGreyWallChoiceNotNow(t *testing.T) {
	grey := newTable(t, 2, true).factory(0, Red).state()
	_, err := Decide(grey, 0, Tile(1, 1), testSeed(1), nil)
	wantRule(t, err, RuleNoWallChoiceNow)
	coloured := newTable(t, 2, false).factory(0, Red).state()
	_, err = Decide(coloured, 0, Tile(1, 1), testSeed(1), nil)
	wantRule(t, err, RuleColouredWallFixed)
	if _, err := Decide(coloured, 1, Tile(1, 1), testSeed(1), nil); !errors.Is(err, engine.ErrNotYourTurn) {
		t.Fatalf("a tile command by a seat not to act: %v, want ErrNotYourTurn", err)
	}
}

// TestGreyWallWholeLineToFloor: a complete line whose colour has no legal
// space left in its row goes to the floor at once, overflow to the lid;
// the round then goes on without asking the player.
func TestGreyWallWholeLineToFloor(t *testing.T) {
	s := newTable(t, 2, true).
		wall(0, 3, 1, White).wall(0, 3, 2, Black).
		wall(0, 1, 3, Blue).wall(0, 2, 4, Blue).wall(0, 4, 5, Blue).
		line(0, 3, Blue, 3).
		floor(0, Red, Red, Red, Red, Red).
		score(0, 30).
		factory(0, Yellow).
		state()
	evs := play(t, s, 0, Take(0, Yellow, 5))
	lf := eventsOf(evs, EvLineToFloor)
	if len(lf) != 1 || lf[0].Line != 3 || lf[0].Colour != Blue || lf[0].ToFloor != 2 || lf[0].ToLid != 1 {
		t.Fatalf("line to floor %+v: want line 3's 3 blue, 2 to the floor and 1 to the lid", lf)
	}
	f := eventsOf(evs, EvFloorScored)
	if len(f) != 1 || f[0].FloorLen != 7 || f[0].Penalty != 14 || s.Score(0) != 16 {
		t.Fatalf("floor scoring %+v, score %d: want a full floor costing 14, score 16", f, s.Score(0))
	}
	if s.Round() != 2 || s.Board(0).LineCount[2] != 0 {
		t.Fatalf("the round should go on to round 2 with line 3 empty")
	}
}

// TestGreyWallSingleSpaceIsAutomatic: a line with exactly one legal space
// is tiled there without asking.
func TestGreyWallSingleSpaceIsAutomatic(t *testing.T) {
	s := newTable(t, 2, true).
		wall(0, 1, 1, Red).wall(0, 1, 2, Yellow).wall(0, 1, 3, Black).wall(0, 1, 4, White).
		line(0, 1, Blue, 1).
		factory(0, Yellow).
		state()
	evs := play(t, s, 0, Take(0, Yellow, 5))
	w := eventsOf(evs, EvWallTiled)
	if len(w) != 1 || w[0].Column != 5 || w[0].Points != 5 {
		t.Fatalf("wall tiling %+v: want blue at column 5 completing the row (5 points)", w)
	}
	if !s.Over() || s.Final().Reason != "row_completed" {
		t.Fatalf("the completed grey row should end the game")
	}
}

// TestResign: any seat may resign at any time; the game ends at once, the
// seat is ranked last, the others by their current score, no bonuses.
func TestResign(t *testing.T) {
	s := newTable(t, 3, false).
		wallRow(0, 1, Blue).wallRow(0, 2, White).wallRow(0, 3, Black).wallRow(0, 4, Red).wallRow(0, 5, Yellow).
		score(0, 12).score(1, 30).score(2, 12).
		factory(0, Red, Red).
		state()
	evs := play(t, s, 1, Resign())
	if len(evs) != 1 || evs[0].Kind != EvGameEnded || evs[0].Reason != EndResigned || evs[0].Resigned != 1 {
		t.Fatalf("events %+v: want one game_ended by seat 1's resignation", evs)
	}
	f := s.Final()
	if f.Reason != "resigned" || !f.Players[1].Resigned || f.Players[1].Rank != 3 {
		t.Fatalf("final %+v: want seat 1 resigned and last", f)
	}
	// Seat 0's full column earns no bonus: both seats 0 and 2 have 12.
	if f.Players[0].Score != 12 || f.Players[0].Rank != 1 || f.Players[2].Rank != 1 || len(f.Players[0].Breakdown) != 1 {
		t.Fatalf("final %+v: want seats 0 and 2 sharing rank 1 with 12 points, no bonus items", f)
	}
	if !slices.Equal(f.Winners, []int{0, 2}) || len(s.ToAct()) != 0 {
		t.Fatalf("winners %v, to act %v", f.Winners, s.ToAct())
	}
	if _, err := Decide(s, 0, Take(0, Red, 1), testSeed(1), nil); !errors.Is(err, engine.ErrGameOver) {
		t.Fatalf("a move after the resignation: %v, want ErrGameOver", err)
	}
	// Resigning in a grey tiling, by a seat with nothing to choose.
	g := greyTilingTable(t)
	play(t, g, 1, Tile(2, 1))
	play(t, g, 1, Resign())
	if !g.Over() || g.Final().Players[1].Rank != 2 {
		t.Fatalf("seat 1 should be able to resign while seat 0 chooses")
	}
}

// TestDecideErrors: Decide never panics and answers malformed commands,
// wrong seats and broken rules with the documented errors.
func TestDecideErrors(t *testing.T) {
	s := newTable(t, 2, false).
		line(0, 2, Red, 2).
		factory(0, Red, Blue).
		state()
	seed := testSeed(1)
	for _, c := range []struct {
		cmd  Cmd
		seat int
		want error
	}{
		{Cmd{}, 0, engine.ErrBadCommand},
		{Cmd{Kind: 9}, 0, engine.ErrBadCommand},
		{Take(0, Colour(5), 1), 0, engine.ErrBadCommand},
		{Take(0, Red, 0), 0, engine.ErrBadCommand},
		{Take(0, Red, 7), 0, engine.ErrBadCommand},
		{Take(9, Red, 1), 0, engine.ErrBadCommand},
		{Take(-2, Red, 1), 0, engine.ErrBadCommand},
		{Cmd{Kind: CmdTake, Source: 0, Colour: Red, Line: 1, Column: 2}, 0, engine.ErrBadCommand},
		{Tile(0, 1), 0, engine.ErrBadCommand},
		{Tile(1, 6), 0, engine.ErrBadCommand},
		{Cmd{Kind: CmdResign, Line: 1}, 0, engine.ErrBadCommand},
		{Take(0, Red, 1), 2, engine.ErrBadCommand},
		{Take(0, Red, 1), -1, engine.ErrBadCommand},
		{Take(0, Red, 1), 1, engine.ErrNotYourTurn},
	} {
		if _, err := Decide(s, c.seat, c.cmd, seed, nil); !errors.Is(err, c.want) {
			t.Errorf("%+v by seat %d: %v, want %v", c.cmd, c.seat, err, c.want)
		}
	}
	for _, c := range []struct {
		cmd  Cmd
		rule string
	}{
		{Take(5, Red, 1), RuleNoSuchFactory},
		{Take(1, Red, 1), RuleNoSuchTiles},
		{Take(Center, Red, 1), RuleNoSuchTiles},
		{Take(0, Blue, 2), RuleLineHoldsOtherColour},
		{Take(0, Red, 2), RuleLineFull},
	} {
		_, err := Decide(s, 0, c.cmd, seed, nil)
		wantRule(t, err, c.rule)
	}
	if _, err := Decide(nil, 0, Resign(), seed, nil); !errors.Is(err, engine.ErrBadCommand) {
		t.Errorf("nil state: %v", err)
	}
	if _, err := Decide(&State{}, 0, Resign(), seed, nil); !errors.Is(err, engine.ErrBadCommand) {
		t.Errorf("zero state: %v", err)
	}

	rules := New()
	var nilCmd *Cmd
	for _, cmd := range []engine.Command{nil, nilCmd, foreignCmd{}} {
		if _, err := rules.Decide(s, 0, cmd, seed); !errors.Is(err, engine.ErrBadCommand) {
			t.Errorf("command %#v: %v, want ErrBadCommand", cmd, err)
		}
	}
	if _, err := rules.Decide(nil, 0, Resign(), seed); !errors.Is(err, engine.ErrBadCommand) {
		t.Errorf("nil state: %v", err)
	}
	c := Take(0, Red, 5)
	if evs, err := rules.Decide(s, 0, &c, seed); err != nil || len(evs) != 1 {
		t.Errorf("a *Cmd should work: %v", err)
	}
}

type foreignCmd struct{}

func (foreignCmd) Notation() string             { return "pass" }
func (foreignCmd) MarshalJSON() ([]byte, error) { return []byte(`{"type":"pass"}`), nil }

type foreignEvent struct{}

func (foreignEvent) EventType() string            { return "game_started" }
func (foreignEvent) SchemaVersion() int           { return 1 }
func (foreignEvent) Describe() engine.Description { return engine.Description{} }

// TestEvolveRejectsForgedEvents: events that do not fit the state are
// ErrInconsistent and change nothing.
func TestEvolveRejectsForgedEvents(t *testing.T) {
	rules := New()
	log := recordGame(t, 3, false, 5)
	var st engine.State
	if _, err := rules.Evolve(nil, log[1]); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("a deal before game_started: %v", err)
	}
	if _, err := rules.Evolve(nil, foreignEvent{}); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("a foreign event: %v", err)
	}
	var nilEvent *Event
	if _, err := rules.Evolve(nil, nilEvent); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("a nil event: %v", err)
	}
	st, err := rules.Evolve(st, log[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rules.Evolve(st, log[0]); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("game_started twice: %v", err)
	}
	st, _ = rules.Evolve(st, log[1])
	take := log[2]
	if take.Kind != EvTilesTaken {
		t.Fatalf("event 2 is %s", take.Kind)
	}
	forge := func(name string, change func(e *Event)) {
		t.Helper()
		e := take
		change(&e)
		before := *st.(*State)
		if _, err := rules.Evolve(st, e); !errors.Is(err, engine.ErrInconsistent) {
			t.Errorf("%s: %v, want ErrInconsistent", name, err)
		}
		if *st.(*State) != before {
			t.Errorf("%s changed the state", name)
		}
	}
	forge("more tiles", func(e *Event) { e.Count++ })
	forge("another seat", func(e *Event) { e.Seat = (e.Seat + 1) % 3 })
	forge("seat out of range", func(e *Event) { e.Seat = 7 })
	forge("no lid", func(e *Event) { e.ToLid += 3 })
	forge("line 0", func(e *Event) { e.Line = 0 })
	forge("kind 0", func(e *Event) { e.Kind = 0 })
	forge("kind 99", func(e *Event) { e.Kind = 99 })
	forge("a wall tile now", func(e *Event) {
		*e = Event{Kind: EvWallTiled, Line: 1, Column: 1, Points: 1, HRun: 1, VRun: 1, Score: 1}
	})
	forge("a floor now", func(e *Event) { *e = Event{Kind: EvFloorScored} })
	forge("a deal now", func(e *Event) { *e = log[1]; e.Round = 2 })
	forge("an end now", func(e *Event) { *e = Event{Kind: EvGameEnded, Reason: EndRowCompleted, Resigned: -1, Count: 3} })
	if _, err := rules.Evolve(st, take); err != nil {
		t.Fatalf("the true event: %v", err)
	}
}

// TestStartConfig: Start validates the configuration and sets the game up.
func TestStartConfig(t *testing.T) {
	rules := New()
	seed := testSeed(2)
	for _, cfg := range []engine.Config{
		{Ruleset: "summer-pavilion", Players: 2},
		{Ruleset: Ruleset, Players: 1},
		{Ruleset: Ruleset, Players: 5},
		{Ruleset: Ruleset, Players: 2, Options: engine.Options{Wall: "gray"}},
		{Ruleset: Ruleset, Players: 2, Options: engine.Options{Board: "monochrome"}},
		{Ruleset: Ruleset, Players: 2, Options: engine.Options{WildOrder: []string{"red"}}},
	} {
		if _, err := rules.Start(cfg, seed); !errors.Is(err, engine.ErrBadCommand) {
			t.Errorf("config %+v: %v, want ErrBadCommand", cfg, err)
		}
	}
	evs, err := rules.Start(engine.Config{Ruleset: Ruleset, Players: 3, Options: engine.Options{Wall: "coloured"}}, seed)
	if err != nil || len(evs) != 2 {
		t.Fatalf("start: %v, %d events", err, len(evs))
	}
	st, err := engine.Fold(rules, nil, evs)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*State)
	if s.Config().Options.Wall != "" || s.Config().Players != 3 || s.Reveals() != 1 || s.Round() != 1 {
		t.Fatalf("config %+v, reveals %d, round %d", s.Config(), s.Reveals(), s.Round())
	}
	if !slices.Equal(s.ToAct(), []int{0}) || sum5(s.Bag()) != 100-28 {
		t.Fatalf("to act %v, bag %d: want seat 0 first and 28 tiles dealt", s.ToAct(), sum5(s.Bag()))
	}
	// The first deal is drawn from the seed's reveal 0.
	fresh := newState(3, false)
	if want := dealEvent(&fresh, seed.Rand(0)); *evs[1].(*Event) != want {
		t.Fatalf("the first deal does not come from seed.Rand(0)")
	}
	grey, _ := rules.Start(engine.Config{Ruleset: Ruleset, Players: 2, Options: engine.Options{Wall: "grey"}}, seed)
	if st, _ := engine.Fold(rules, nil, grey); st.Config().Options.Wall != "grey" {
		t.Fatalf("grey wall lost")
	}
}

// TestDeterminism: the same seed and commands give byte-identical events;
// another seed deals differently.
func TestDeterminism(t *testing.T) {
	encode := func(log []Event) string {
		var all []byte
		for _, e := range log {
			data, err := e.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			all = append(append(all, data...), '\n')
		}
		return string(all)
	}
	a, b := encode(recordGame(t, 4, true, 11)), encode(recordGame(t, 4, true, 11))
	if a != b {
		t.Fatalf("the same seed and moves gave different events")
	}
	if c := encode(recordGame(t, 4, true, 12)); c == a {
		t.Fatalf("another seed gave the same game")
	}
}
