package pavilion

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
)

func TestRulesInterface(t *testing.T) {
	if _, err := New("azul-mini"); !errors.Is(err, engine.ErrBadCommand) {
		t.Fatalf("New(azul-mini): %v", err)
	}
	rules, err := New(RulesetMini)
	if err != nil || rules.Ruleset() != RulesetMini || rules.StateFormat() != StateFormat {
		t.Fatalf("New: %v", err)
	}
	seed := engine.Seed{9}
	if _, err := rules.Start(engine.Config{Ruleset: RulesetPavilion, Players: 2}, seed); !errors.Is(err, engine.ErrBadCommand) {
		t.Fatalf("start with another ruleset: %v", err)
	}
	evs, err := rules.Start(engine.Config{Ruleset: RulesetMini, Players: 3}, seed)
	if err != nil {
		t.Fatal(err)
	}
	st, err := engine.Fold(rules, nil, evs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(st.ToAct(), []int{0}) || st.Reveals() != 1 || st.Over() || st.Final() != nil ||
		!slices.Equal(st.Scores(), []int{5, 5, 5}) || st.Config().Players != 3 {
		t.Fatalf("started state: to act %v", st.ToAct())
	}
	// Evolve: nil state needs game_started; foreign events and states are
	// inconsistent; the state given is not changed.
	if _, err := rules.Evolve(nil, &Event{Kind: EvTilesTaken}); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("tiles_taken first: %v", err)
	}
	other, _ := New(RulesetPavilion)
	if _, err := other.Evolve(nil, evs[0]); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("a mini game folded by the full rules: %v", err)
	}
	if _, err := rules.Evolve(st, fakeEvent{}); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("foreign event: %v", err)
	}
	snap, _ := st.MarshalJSON()
	if _, err := rules.Evolve(st, evs[0]); !errors.Is(err, engine.ErrInconsistent) {
		t.Fatalf("game_started twice: %v", err)
	}
	if again, _ := st.MarshalJSON(); string(again) != string(snap) {
		t.Fatal("a refused Evolve changed the state")
	}
	// Decide accepts Cmd and *Cmd, refuses anything else.
	moves := st.LegalMoves(0)
	if len(moves) == 0 {
		t.Fatal("no legal moves")
	}
	c := moves[0].Command.(Cmd)
	for _, cmd := range []engine.Command{c, &c} {
		if _, err := rules.Decide(st, 0, cmd, seed); err != nil {
			t.Fatalf("%T: %v", cmd, err)
		}
	}
	var nilCmd *Cmd
	for _, cmd := range []engine.Command{nil, nilCmd, fakeCommand{}} {
		if _, err := rules.Decide(st, 0, cmd, seed); !errors.Is(err, engine.ErrBadCommand) {
			t.Fatalf("%T: %v", cmd, err)
		}
	}
	if _, err := rules.Decide(nil, 0, c, seed); !errors.Is(err, engine.ErrBadCommand) {
		t.Fatalf("nil state: %v", err)
	}
	if _, err := other.Decide(st, 0, c, seed); !errors.Is(err, engine.ErrBadCommand) {
		t.Fatalf("a mini state decided by the full rules: %v", err)
	}
	if _, err := rules.Decide(st, 1, c, seed); !errors.Is(err, engine.ErrNotYourTurn) {
		t.Fatalf("out of turn: %v", err)
	}
	if _, err := rules.Decide(st, 7, c, seed); !errors.Is(err, engine.ErrNotYourTurn) {
		t.Fatalf("no such seat: %v", err)
	}
	// Parsing through the interface.
	pc, err := rules.ParseNotation(moves[0].Notation)
	if err != nil || pc.(Cmd) != c {
		t.Fatalf("ParseNotation: %v", err)
	}
	pc, err = rules.ParseCommand(moves[0].JSON)
	if err != nil || pc.(Cmd) != c {
		t.Fatalf("ParseCommand: %v", err)
	}
	if _, err := rules.ParseCommand([]byte(`{"type":"take","factory":1,"color":"red","line":2}`)); !errors.Is(err, engine.ErrBadCommand) {
		t.Fatalf("Azul move: %v", err)
	}
	// Events and snapshots.
	for _, bad := range []struct {
		typ     string
		version int
	}{{"tiles_taken", 2}, {"factory_refilled", 1}, {"", 1}} {
		if _, err := rules.DecodeEvent(bad.typ, bad.version, []byte(`{}`)); err == nil {
			t.Fatalf("DecodeEvent(%q, %d) accepted", bad.typ, bad.version)
		}
	}
	if _, err := rules.DecodeEvent("tiles_taken", 1, []byte(`{"seat":0}`)); err == nil {
		t.Fatal("an event missing fields decoded")
	}
	back, err := rules.DecodeState(snap)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := back.MarshalJSON(); string(data) != string(snap) {
		t.Fatal("snapshot round trip differs")
	}
	if _, err := other.DecodeState(snap); err == nil {
		t.Fatal("a mini snapshot read by the full rules")
	}
}

type fakeEvent struct{}

func (fakeEvent) EventType() string            { return "fake" }
func (fakeEvent) SchemaVersion() int           { return 1 }
func (fakeEvent) Describe() engine.Description { return engine.Description{} }

type fakeCommand struct{}

func (fakeCommand) Notation() string             { return "fake" }
func (fakeCommand) MarshalJSON() ([]byte, error) { return []byte(`{}`), nil }

func TestSnapshotRejectsBadData(t *testing.T) {
	s, _ := fuzzState(11, 60)
	good, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if back, err := DecodeState(good); err != nil || *back != *s {
		t.Fatalf("round trip: %v", err)
	}
	var w map[string]any
	_ = json.Unmarshal(good, &w)
	for _, tc := range []struct {
		key   string
		value any
	}{
		{"format", 2}, {"ruleset", "azul-mini"}, {"players", 5}, {"phase", "dancing"}, {"turn", 9},
		{"bag", []int{23, 22, 22, 22, 22, 22}}, {"bag", []int{-1, 0, 0, 0, 0, 0}}, {"round", 7},
		{"board", "sepia"}, {"wild_order", []string{"red"}}, {"factories", [][]int{}}, {"seats", []any{}},
		{"bonus_due", 3}, {"reason", "rounds_played"},
	} {
		bad := map[string]any{}
		for k, v := range w {
			bad[k] = v
		}
		bad[tc.key] = tc.value
		data, _ := json.Marshal(bad)
		if _, err := DecodeState(data); err == nil {
			t.Errorf("snapshot with %s=%v accepted", tc.key, tc.value)
		}
	}
	for _, data := range []string{``, `null`, `[]`, `{"format":1}`} {
		if _, err := DecodeState([]byte(data)); err == nil {
			t.Errorf("snapshot %q accepted", data)
		}
	}
}

// Tampered events are refused and change nothing.
func TestEvolveRefusesTamperedEvents(t *testing.T) {
	g := newSelfPlayer(77)
	g.builder = true
	g.play(t, engine.Config{Ruleset: RulesetPavilion, Players: 3}, 0)
	tampers := []func(e *Event) bool{
		func(e *Event) bool {
			e.Score++
			return e.Kind != EvRoundStarted && e.Kind != EvSupplyRefilled && e.Kind != EvAcquisitionEnded && e.Kind != EvResigned && e.Kind != EvGameEnded && e.Kind != EvGameStarted && e.Kind != EvBonusTaken
		},
		// (game_started may name any first seat; Start always names 0.)
		func(e *Event) bool {
			e.Seat = (e.Seat + 1) % 3
			return e.Kind != EvSupplyRefilled && e.Kind != EvGameEnded && e.Kind != EvGameStarted
		},
		// (Another colour drawn fits the state as long as the bag held
		// it: only the seed can tell; a tile too many does not fit.)
		func(e *Event) bool {
			e.Draws[e.SupplyN] = Red
			e.SupplyN++
			return e.Kind == EvSupplyRefilled
		},
		func(e *Event) bool { e.Draws[0] = 9; return e.Kind == EvRoundStarted || e.Kind == EvSupplyRefilled },
		func(e *Event) bool { e.Poured++; return e.Kind == EvRoundStarted || e.Kind == EvSupplyRefilled },
		func(e *Event) bool { e.Count++; return e.Kind == EvTilesTaken },
		func(e *Event) bool { e.Points++; return e.Kind == EvTilePlaced },
		func(e *Event) bool { e.Features ^= 1; return e.Kind == EvTilePlaced },
		func(e *Event) bool { e.Final[0].Score++; return e.Kind == EvGameEnded },
		func(e *Event) bool { e.Tiles[Red]++; return e.Kind == EvPassed || e.Kind == EvBonusTaken },
	}
	var s State
	tried := 0
	for i := range g.log {
		for _, tamper := range tampers {
			e := g.log[i]
			if !tamper(&e) || e == g.log[i] {
				continue
			}
			before := s
			if err := s.Apply(&e); !errors.Is(err, engine.ErrInconsistent) {
				t.Fatalf("tampered %s accepted (%v): %+v", e.Kind, err, e)
			}
			if s != before {
				t.Fatal("a refused event changed the state")
			}
			tried++
		}
		if err := s.Apply(&g.log[i]); err != nil {
			t.Fatal(err)
		}
	}
	if tried < 50 {
		t.Fatalf("only %d tampered events tried", tried)
	}
}

func TestView(t *testing.T) {
	s := playFixture(t)
	s.round, s.wildOrder = 2, defaultWildOrder
	s.cover(t, 0, 4, 6, Blue)
	s.cover(t, 0, 0, 1, Red)
	s.seats[0].Hand = s.fromBag(t, tl(t, "blue blue orange"))
	s.seats[1].Kept = s.fromBag(t, tl(t, "green"))
	s.token = 1
	s.tower = s.fromBag(t, tl(t, "red red"))
	v := s.View()
	if v.Ruleset != RulesetPavilion || v.Phase != "play" || v.Wild != "green" || v.Round != 2 ||
		!slices.Equal(v.ToAct, []int{0}) || len(v.Factories) != 5 || v.Center.Marker || v.Discard != 2 ||
		v.Bag != s.bag.Total() || v.Supply["purple"] != 2 {
		t.Fatalf("view %+v", v)
	}
	p := v.Players[0]
	if p.Hand["blue"] != 2 || p.Hand["orange"] != 1 || p.Marker || !v.Players[1].Marker || v.Players[1].Kept["green"] != 1 {
		t.Fatalf("players %+v", v.Players)
	}
	data, err := json.Marshal(p.Board)
	if err != nil {
		t.Fatal(err)
	}
	var board struct {
		Stars [][]*string `json:"stars"`
	}
	if err := json.Unmarshal(data, &board); err != nil || len(board.Stars) != 7 || len(board.Stars[4]) != 6 {
		t.Fatalf("board JSON %s", data)
	}
	if *board.Stars[4][5] != "blue" || *board.Stars[0][0] != "red" || board.Stars[4][4] != nil {
		t.Fatalf("board JSON %s", data)
	}
	if !strings.Contains(string(data), `"stars":[[`) {
		t.Fatalf("board JSON %s", data)
	}
	for _, tc := range []struct {
		phase Phase
		name  string
	}{{PhaseAcquire, "acquire"}, {PhasePlay, "play"}, {PhaseBonus, "bonus"}, {PhaseOver, "over"}} {
		if tc.phase.String() != tc.name {
			t.Errorf("phase %d is %q", tc.phase, tc.phase)
		}
	}
}

func TestTextFitsSeventyTwoColumns(t *testing.T) {
	check := func(s *State) {
		text := s.Text()
		for _, line := range strings.Split(text, "\n") {
			if len(line) > 72 {
				t.Fatalf("line of %d columns: %q", len(line), line)
			}
		}
		for _, label := range []string{"F1:", "C:", "S0", "S6", "Seat 0", "Supply:", "Bag", "Tower"} {
			if !strings.Contains(text, label) {
				t.Fatalf("no %q in\n%s", label, text)
			}
		}
	}
	// Crowded: every colour many times in the centre and in a hand.
	s := fixture(t, RulesetPavilion, 4, engine.Options{Board: "monochrome"})
	s.centre = s.fromBag(t, Tiles{10, 10, 10, 10, 10, 10})
	s.seats[3].Hand = s.fromBag(t, Tiles{10, 10, 10, 10, 10, 10})
	s.seats[3].Score = 30000
	check(s)
	rng := rand.New(rand.NewPCG(8, 9))
	for game := range 6 {
		s, _ := fuzzState(uint64(game), rng.IntN(400))
		check(s)
	}
	g := newSelfPlayer(5)
	g.play(t, engine.Config{Ruleset: RulesetPavilion, Players: 4}, 0)
	var end State
	for i := range g.log {
		_ = end.Apply(&g.log[i])
	}
	check(&end)
	if !strings.Contains(end.Text(), "Game over") {
		t.Fatal("no result in the text of a finished game")
	}
}

// game_ended is written without reflection; it must be exactly the JSON of
// engine.Final (what the server shows).
func TestGameEndedJSONIsEngineFinal(t *testing.T) {
	for game := range 12 {
		g := newSelfPlayer(uint64(100 + game))
		g.builder = game%2 == 0
		g.play(t, engine.Config{Ruleset: RulesetMini, Players: 2 + game%3}, game)
		end := g.log[len(g.log)-1]
		if end.Kind != EvGameEnded {
			t.Fatalf("last event %s", end.Kind)
		}
		want, err := json.Marshal(finalOf(end.Reason, int(end.Players), &end.Final))
		if err != nil {
			t.Fatal(err)
		}
		if got := end.AppendJSON(nil); string(got) != string(want) {
			t.Fatalf("game_ended\n%s\nwant\n%s", got, want)
		}
	}
}
