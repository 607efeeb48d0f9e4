package pavilion

import (
	"math/rand/v2"
	"testing"

	"github.com/azuld/azuld/engine"
)

// fuzzState plays steps random legal moves of a random game.
func fuzzState(seed uint64, steps int) (*State, engine.Seed) {
	rng := rand.New(rand.NewPCG(seed, seed>>7))
	cfg := engine.Config{Ruleset: RulesetPavilion, Players: 2 + int(seed%3)}
	if seed&8 != 0 {
		cfg.Ruleset = RulesetMini
	}
	if seed&16 != 0 {
		cfg.Options.Board = "monochrome"
	}
	var gs engine.Seed
	gs[0], gs[1] = byte(seed), byte(seed>>8)
	evs, _ := Start(cfg, gs, nil)
	s := &State{}
	for i := range evs {
		_ = s.Apply(&evs[i])
	}
	var legal []Cmd
	for range steps {
		if s.Over() {
			break
		}
		seat := s.actor()
		legal = AppendLegal(legal[:0], s, seat)
		if len(legal) == 0 {
			break
		}
		evs, err := Decide(s, seat, legal[rng.IntN(len(legal))], gs, nil)
		if err != nil {
			break
		}
		for i := range evs {
			_ = s.Apply(&evs[i])
		}
	}
	return s, gs
}

// FuzzDecide throws arbitrary commands (raw field values, JSON and
// notation) at random positions: Decide never panics, and what it accepts
// folds.
func FuzzDecide(f *testing.F) {
	f.Add(uint64(1), uint16(0), []byte{1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint64(2), uint16(40), []byte{2, 4, 4, 6, 3, 0, 1, 1, 0, 0, 0, 0, 0, 0})
	f.Add(uint64(3), uint16(25), []byte{4, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0})
	f.Add(uint64(27), uint16(500), []byte{5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2})
	f.Add(uint64(4), uint16(33), []byte(`{"type":"place","star":1,"space":2,"color":"purple","wilds":0}`))
	f.Add(uint64(5), uint16(12), []byte("C red"))
	rules, _ := New(RulesetPavilion)
	mini, _ := New(RulesetMini)
	f.Fuzz(func(t *testing.T, seed uint64, steps uint16, data []byte) {
		s, gs := fuzzState(seed, int(steps%400))
		var cmds []Cmd
		if c, err := ParseCommand(data); err == nil {
			cmds = append(cmds, c)
		}
		if c, err := ParseNotation(string(data)); err == nil {
			cmds = append(cmds, c)
		}
		for len(data) >= 14 {
			d := data[:14]
			data = data[14:]
			var tiles Tiles
			copy(tiles[:], d[8:14])
			cmds = append(cmds, Cmd{
				Kind: CmdKind(d[0]), Source: int8(d[1]), Colour: Colour(d[2]), Star: int8(d[3]),
				Space: int8(d[4]), Wilds: d[5], HasBonus: d[6]&1 == 1, Tiles: tiles,
			})
		}
		for i, c := range cmds {
			seat := int(seed>>uint(i%8)) % 6
			if i == 0 && s.actor() >= 0 {
				seat = s.actor()
			}
			before := *s
			evs, err := Decide(s, seat, c, gs, nil)
			if *s != before {
				t.Fatal("Decide changed the state")
			}
			// The type-erased path agrees.
			r := rules
			if s.ruleset == 1 {
				r = mini
			}
			ievs, ierr := r.Decide(s, seat, c, gs)
			if (err == nil) != (ierr == nil) || len(ievs) != len(evs) {
				t.Fatalf("typed and type-erased Decide differ: %v / %v", err, ierr)
			}
			if err != nil {
				continue
			}
			for j := range evs {
				if err := s.Apply(&evs[j]); err != nil {
					t.Fatalf("accepted %s does not fold: %v", c, err)
				}
			}
			checkTiles(t, s)
		}
	})
}

// FuzzDecodeEvent: arbitrary event data never panics, and a decoded event
// either folds into a random position or is refused as inconsistent.
func FuzzDecodeEvent(f *testing.F) {
	s, _ := fuzzState(3, 30)
	_ = s
	for _, seed := range []struct{ typ, data string }{
		{"tiles_taken", `{"seat":0,"factory":1,"color":"red","count":2,"wild":0,"to_center":["yellow","yellow"],"token":false,"points_lost":0,"score":5}`},
		{"round_started", `{"round":2,"wild":"green","start_seat":1,"kept_to_hand":[[],["red"]],"factories":[["red","red","blue","blue"]],"tower_to_bag":3}`},
		{"tile_placed", `{"seat":1,"star":4,"space":6,"color":"blue","cost":6,"wilds":3,"points":3,"score":8,"features":[{"kind":"window","star":4}],"bonus_earned":3}`},
		{"passed", `{"seat":0,"kept":["green"],"discarded":[],"points_lost":0,"score":5,"auto":true}`},
		{"game_started", `{"ruleset":"summer-pavilion","players":2,"options":{"board":"monochrome","wild_order":["red","blue","purple","yellow","green","orange"]},"first_seat":0}`},
		{"game_ended", `{"reason":"rounds_played","players":[{"seat":0,"score":9,"rank":1,"breakdown":[{"item":"star_1_purple","count":1,"points":20}]},{"seat":1,"score":5,"rank":2,"breakdown":[]}],"winners":[0]}`},
		{"supply_refilled", `{"tiles":["red"],"tower_to_bag":2}`},
		{"bonus_taken", `{"seat":0,"tiles":["red"],"earned":1}`},
		{"acquisition_ended", `{"first_seat":0,"token":true}`},
		{"resigned", `{"seat":1}`},
	} {
		f.Add(seed.typ, []byte(seed.data), uint64(1), uint16(20))
	}
	f.Fuzz(func(t *testing.T, typ string, data []byte, seed uint64, steps uint16) {
		e, err := DecodeEvent(typ, SchemaVersion, data)
		if err != nil {
			return
		}
		// What decodes prints and decodes again to the same event.
		back, err := DecodeEvent(typ, SchemaVersion, e.AppendJSON(nil))
		if err != nil || back != e {
			t.Fatalf("%s %s: does not survive its JSON (%v)", typ, data, err)
		}
		s, _ := fuzzState(seed, int(steps%300))
		before := *s
		if err := s.Apply(&e); err != nil && *s != before {
			t.Fatal("a refused event changed the state")
		}
		var empty State
		_ = empty.Apply(&e)
	})
}
