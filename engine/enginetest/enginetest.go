// Package enginetest checks that a game family keeps the contract of
// package engine, in the manner of testing/fstest: a family's tests call
// TestRules with its rules and the configurations to play, and the suite
// plays random legal games from Start to the end, checking every promise
// of engine.go on the way.
package enginetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/azuld/azuld/engine"
)

// Options say what TestRules plays.
type Options struct {
	// Configs are the configurations to start games with; at least one.
	Configs []engine.Config
	// Games is the number of games played per configuration (default 2).
	Games int
	// Seed makes the random choices of the games repeatable.
	Seed uint64
	// EventTypes, when set, are the event types the games must have
	// produced between them: a check that the games reached every kind
	// of fact the family describes.
	EventTypes []string
	// MaxErrors stops the suite after this many reported errors (default
	// 10), so that one broken promise does not flood the output.
	MaxErrors int
}

// TB is the part of testing.TB the suite reports through.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// TestRules plays opts.Games random legal games per configuration with
// rules and reports through t every broken promise of engine.go:
//
//   - Start returns game_started then the first deal, and they fold;
//   - Decide never changes s, never panics, refuses junk commands (another
//     family's, a seat not to act) with the contract's errors;
//   - Evolve never changes s, never panics, and its errors on forged
//     events wrap engine.ErrInconsistent;
//   - LegalMoves' JSON and notation parse back to the same command;
//   - every event survives its JSON and DecodeEvent unchanged, and
//     describes itself with a phrase of engine.Phrases;
//   - DecodeState(MarshalJSON) is the same state;
//   - a decision whose events reveal nothing (Reveals unchanged) does
//     not depend on the seed;
//   - Final only when Over, ToAct empty when over, one score per seat;
//   - the same seed and commands give the same events;
//   - Text lines are at most 72 columns;
//   - every seat's board draws itself, also read back from its JSON.
func TestRules(t TB, rules engine.Rules, opts Options) {
	t.Helper()
	if opts.Games <= 0 {
		opts.Games = 2
	}
	if opts.MaxErrors <= 0 {
		opts.MaxErrors = 10
	}
	if len(opts.Configs) == 0 {
		t.Errorf("enginetest: no configurations to play")
		return
	}
	c := &checker{t: t, rules: rules, max: opts.MaxErrors, seen: map[string]bool{}}
	c.rng = rand.New(rand.NewPCG(opts.Seed, 0x2545f4914f6cdd1d))
	c.startRefusals()
	for _, cfg := range opts.Configs {
		for game := range opts.Games {
			if c.stopped() {
				return
			}
			c.game = fmt.Sprintf("%s/%dp/%+v game %d", cfg.Ruleset, cfg.Players, cfg.Options, game)
			c.play(cfg)
		}
	}
	c.game = ""
	for _, typ := range opts.EventTypes {
		if !c.seen[typ] {
			c.errorf("no game produced a %s event", typ)
		}
	}
}

// checker holds one run of the suite.
type checker struct {
	t     TB
	rules engine.Rules
	rng   *rand.Rand
	max   int
	errs  int
	game  string
	seen  map[string]bool
}

func (c *checker) errorf(format string, args ...any) {
	c.t.Helper()
	c.errs++
	if c.errs > c.max {
		return
	}
	prefix := c.rules.Ruleset()
	if c.game != "" {
		prefix = c.game
	}
	c.t.Errorf("%s: %s", prefix, fmt.Sprintf(format, args...))
}

func (c *checker) stopped() bool { return c.errs >= c.max }

// safely runs f and reports a panic as a broken promise.
func (c *checker) safely(what string, f func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			c.errorf("%s panicked: %v", what, r)
			ok = false
		}
	}()
	f()
	return true
}

// startRefusals checks that Start refuses a configuration of another rule
// set and one without players.
func (c *checker) startRefusals() {
	for _, cfg := range []engine.Config{
		{Ruleset: c.rules.Ruleset() + "-none", Players: 2},
		{Ruleset: c.rules.Ruleset(), Players: 0},
		{Ruleset: c.rules.Ruleset(), Players: 99},
	} {
		c.safely("Start", func() {
			if _, err := c.rules.Start(cfg, engine.Seed{}); err == nil {
				c.errorf("Start(%+v) accepted a configuration it cannot play", cfg)
			}
		})
	}
}

// turn is one command of a game's record.
type turn struct {
	seat int
	cmd  engine.Command
}

// play plays one random game of cfg and checks it.
func (c *checker) play(cfg engine.Config) {
	var seed engine.Seed
	for i := range seed {
		seed[i] = byte(c.rng.Uint32())
	}
	var start []engine.Event
	if !c.safely("Start", func() {
		var err error
		start, err = c.rules.Start(cfg, seed)
		if err != nil {
			c.errorf("Start: %v", err)
		}
	}) || len(start) == 0 {
		return
	}
	if start[0].EventType() != "game_started" {
		c.errorf("Start's first event is %s, not game_started", start[0].EventType())
	}
	log := slices.Clone(start)
	var s engine.State
	for _, e := range start {
		if s = c.evolve(s, e); s == nil {
			return
		}
	}
	if s.Reveals() < 1 {
		c.errorf("Reveals is %d after Start's deal", s.Reveals())
	}
	var record []turn
	for moves := 0; ; moves++ {
		if c.stopped() {
			return
		}
		if moves > 5000 {
			c.errorf("the game did not end after %d moves", moves)
			return
		}
		c.checkState(cfg, s)
		if s.Over() {
			break
		}
		toAct := s.ToAct()
		if len(toAct) == 0 {
			c.errorf("ToAct is empty in a game that is not over")
			return
		}
		seat := toAct[c.rng.IntN(len(toAct))]
		c.checkRefusals(s, toAct)
		legal := s.LegalMoves(seat)
		if len(legal) == 0 {
			c.errorf("seat %d is to act but has no legal move", seat)
			return
		}
		for _, m := range legal {
			c.checkMove(m)
		}
		m := legal[c.rng.IntN(len(legal))]
		evs, ok := c.decide(s, seat, m.Command, seed)
		if !ok {
			return
		}
		c.checkSeedFree(s, seat, m, seed, evs)
		record = append(record, turn{seat, m.Command})
		log = append(log, evs...)
		for _, e := range evs {
			if s = c.evolve(s, e); s == nil {
				return
			}
		}
	}
	c.checkReplay(cfg, seed, record, log)
	c.checkForgeries(log)
}

// decide runs Decide and checks that it did not change s.
func (c *checker) decide(s engine.State, seat int, cmd engine.Command, seed engine.Seed) ([]engine.Event, bool) {
	before := c.snapshot(s)
	var evs []engine.Event
	var err error
	if !c.safely("Decide", func() { evs, err = c.rules.Decide(s, seat, cmd, seed) }) {
		return nil, false
	}
	if !bytes.Equal(before, c.snapshot(s)) {
		c.errorf("Decide(seat %d, %s) changed the state", seat, cmd.Notation())
	}
	if err != nil {
		c.errorf("Decide refused the legal move %q of seat %d: %v", cmd.Notation(), seat, err)
		return nil, false
	}
	if len(evs) == 0 {
		c.errorf("Decide(%q) caused no event", cmd.Notation())
		return nil, false
	}
	return evs, true
}

// evolve applies e, checks the contract around it and returns the new
// state (nil when the game cannot go on).
func (c *checker) evolve(s engine.State, e engine.Event) engine.State {
	c.checkEvent(e)
	var before []byte
	if s != nil {
		before = c.snapshot(s)
	}
	var next engine.State
	var err error
	if !c.safely("Evolve("+e.EventType()+")", func() { next, err = c.rules.Evolve(s, e) }) {
		return nil
	}
	if err != nil {
		c.errorf("Evolve refused its own event %s: %v", e.EventType(), err)
		return nil
	}
	if s != nil && !bytes.Equal(before, c.snapshot(s)) {
		c.errorf("Evolve(%s) changed the state it was given", e.EventType())
	}
	if s != nil && next.Reveals() < s.Reveals() {
		c.errorf("Reveals went down from %d to %d at %s", s.Reveals(), next.Reveals(), e.EventType())
	}
	return next
}

// snapshot is the state's snapshot JSON ("" when it does not marshal,
// which checkState reports).
func (c *checker) snapshot(s engine.State) []byte {
	var data []byte
	if s == nil {
		return nil
	}
	c.safely("State.MarshalJSON", func() { data, _ = s.MarshalJSON() })
	return data
}

// eventJSON is an event's stored data.
func eventJSON(e engine.Event) ([]byte, error) { return json.Marshal(e) }

// checkEvent checks that e survives its JSON and describes itself.
func (c *checker) checkEvent(e engine.Event) {
	c.seen[e.EventType()] = true
	data, err := eventJSON(e)
	if err != nil {
		c.errorf("event %s does not marshal: %v", e.EventType(), err)
		return
	}
	var back engine.Event
	if !c.safely("DecodeEvent", func() { back, err = c.rules.DecodeEvent(e.EventType(), e.SchemaVersion(), data) }) {
		return
	}
	if err != nil {
		c.errorf("DecodeEvent(%s, %s): %v", e.EventType(), data, err)
		return
	}
	if !reflect.DeepEqual(back, e) {
		again, _ := eventJSON(back)
		c.errorf("event %s changed through its JSON:\n%s\n%s", e.EventType(), data, again)
	}
	d := e.Describe()
	if !slices.Contains(engine.Phrases(), d.Phrase) {
		c.errorf("event %s describes itself with the unknown phrase %q", e.EventType(), d.Phrase)
	}
}

// checkState checks a state's own promises.
func (c *checker) checkState(cfg engine.Config, s engine.State) {
	if !reflect.DeepEqual(s.Config().Options, cfg.Options) && !(len(cfg.Options.WildOrder) == 0 && len(s.Config().Options.WildOrder) == 0) {
		c.errorf("Config().Options = %+v, started with %+v", s.Config().Options, cfg.Options)
	}
	if s.Config().Ruleset != cfg.Ruleset || s.Config().Players != cfg.Players {
		c.errorf("Config() = %+v, started with %+v", s.Config(), cfg)
	}
	if n := len(s.Scores()); n != cfg.Players {
		c.errorf("Scores has %d seats, the game %d", n, cfg.Players)
	}
	toAct := s.ToAct()
	if !slices.IsSorted(toAct) {
		c.errorf("ToAct %v is not ascending", toAct)
	}
	switch {
	case s.Over() && len(toAct) > 0:
		c.errorf("ToAct is %v in a game that is over", toAct)
	case s.Over() && s.Final() == nil:
		c.errorf("Final is nil in a game that is over")
	case !s.Over() && s.Final() != nil:
		c.errorf("Final is set in a game that is not over")
	}
	if f := s.Final(); f != nil {
		if len(f.Players) != cfg.Players || len(f.Winners) == 0 {
			c.errorf("Final has %d players and %d winners", len(f.Players), len(f.Winners))
		}
	}
	for seat := range cfg.Players {
		if !slices.Contains(toAct, seat) && len(s.LegalMoves(seat)) > 0 {
			c.errorf("seat %d is not to act but has legal moves", seat)
		}
	}
	for i, line := range strings.Split(s.Text(), "\n") {
		if n := utf8.RuneCountInString(line); n > 72 {
			c.errorf("Text line %d has %d columns: %q", i+1, n, line)
		}
	}
	data, err := s.MarshalJSON()
	if err != nil {
		c.errorf("State.MarshalJSON: %v", err)
		return
	}
	var back engine.State
	if !c.safely("DecodeState", func() { back, err = c.rules.DecodeState(data) }) {
		return
	}
	if err != nil {
		c.errorf("DecodeState of its own snapshot: %v", err)
		return
	}
	again, err := back.MarshalJSON()
	if err != nil || !bytes.Equal(again, data) {
		c.errorf("DecodeState(MarshalJSON) differs:\n%s\n%s", data, again)
	}
	if !reflect.DeepEqual(back.View(), s.View()) || back.Text() != s.Text() || back.Reveals() != s.Reveals() ||
		!slices.Equal(back.ToAct(), s.ToAct()) || !slices.Equal(back.Scores(), s.Scores()) {
		c.errorf("the state decoded from its snapshot looks different")
	}
	c.checkBoards(s)
}

// checkBoards checks that every seat's board in the view can be drawn.
func (c *checker) checkBoards(s engine.State) {
	for _, p := range s.View().Players {
		b, ok := p.Board.(engine.Board)
		if !ok {
			c.errorf("seat %d's board %T is not an engine.Board", p.Seat, p.Board)
			continue
		}
		var d engine.Drawing
		if !c.safely("Board.Drawing", func() { d = b.Drawing() }) {
			continue
		}
		if len(d.Rows) == 0 {
			c.errorf("seat %d's board draws no rows", p.Seat)
		}
		data, err := json.Marshal(p.Board)
		if err != nil {
			c.errorf("seat %d's board does not marshal: %v", p.Seat, err)
			continue
		}
		var back engine.Board
		if !c.safely("DecodeBoard", func() { back, err = c.rules.DecodeBoard(data, s.Config().Options) }) {
			continue
		}
		if err != nil {
			c.errorf("DecodeBoard(%s): %v", data, err)
		} else if !reflect.DeepEqual(back.Drawing(), d) {
			c.errorf("seat %d's board draws otherwise read back from its JSON %s", p.Seat, data)
		}
	}
}

// checkMove checks that a legal move's two forms read back to it.
func (c *checker) checkMove(m engine.Move) {
	want, err := m.Command.MarshalJSON()
	if err != nil || !bytes.Equal(want, m.JSON) {
		c.errorf("move %q: its JSON %s is not the command's %s", m.Notation, m.JSON, want)
	}
	if m.Notation != m.Command.Notation() {
		c.errorf("move %q: the command's notation is %q", m.Notation, m.Command.Notation())
	}
	var fromJSON, fromText engine.Command
	c.safely("ParseCommand", func() { fromJSON, err = c.rules.ParseCommand(m.JSON) })
	if err != nil || fromJSON == nil {
		c.errorf("ParseCommand(%s): %v", m.JSON, err)
	} else if got, _ := fromJSON.MarshalJSON(); !bytes.Equal(got, m.JSON) {
		c.errorf("ParseCommand(%s) reads %s", m.JSON, got)
	}
	for _, text := range []string{m.Notation, strings.ToUpper(m.Notation), strings.ToLower(m.Notation)} {
		c.safely("ParseNotation", func() { fromText, err = c.rules.ParseNotation(text) })
		if err != nil || fromText == nil {
			c.errorf("ParseNotation(%q): %v", text, err)
		} else if got, _ := fromText.MarshalJSON(); !bytes.Equal(got, m.JSON) {
			c.errorf("ParseNotation(%q) reads %s, not %s", text, got, m.JSON)
		}
	}
}

// foreign is a command of no family.
type foreign struct{}

func (foreign) Notation() string             { return "junk" }
func (foreign) MarshalJSON() ([]byte, error) { return []byte(`{"junk":true}`), nil }

// checkRefusals checks that Decide refuses what it must, with the
// contract's errors, without changing s or panicking.
func (c *checker) checkRefusals(s engine.State, toAct []int) {
	before := c.snapshot(s)
	try := func(what string, seat int, cmd engine.Command, want ...error) {
		var err error
		if !c.safely("Decide("+what+")", func() { _, err = c.rules.Decide(s, seat, cmd, engine.Seed{}) }) {
			return
		}
		if err == nil {
			c.errorf("Decide accepted %s", what)
			return
		}
		var rule *engine.RuleError
		for _, w := range want {
			if errors.Is(err, w) {
				return
			}
		}
		if !errors.As(err, &rule) {
			c.errorf("Decide(%s): %v is none of the contract's errors", what, err)
		}
	}
	try("a command of no family", toAct[0], foreign{}, engine.ErrBadCommand)
	try("a nil command", toAct[0], nil, engine.ErrBadCommand)
	for seat := range s.Config().Players {
		if !slices.Contains(toAct, seat) {
			for _, m := range s.LegalMoves(toAct[0]) {
				try(fmt.Sprintf("a move of seat %d, not to act", seat), seat, m.Command, engine.ErrNotYourTurn)
				break
			}
		}
	}
	try("seat -1", -1, foreign{}, engine.ErrBadCommand, engine.ErrNotYourTurn)
	for _, junk := range []string{``, `null`, `{}`, `[]`, `{"move":`, `"take"`, `{"type":1}`} {
		c.safely("ParseCommand", func() {
			if _, err := c.rules.ParseCommand([]byte(junk)); err == nil {
				c.errorf("ParseCommand accepted %q", junk)
			}
		})
	}
	for _, junk := range []string{``, `junk`, `F99 red 9`, `take`} {
		c.safely("ParseNotation", func() {
			if _, err := c.rules.ParseNotation(junk); err == nil {
				c.errorf("ParseNotation accepted %q", junk)
			}
		})
	}
	if !bytes.Equal(before, c.snapshot(s)) {
		c.errorf("a refused Decide changed the state")
	}
}

// checkSeedFree checks that a decision which reveals nothing gives the
// same events under another seed: Reveals counts every random draw.
func (c *checker) checkSeedFree(s engine.State, seat int, m engine.Move, seed engine.Seed, evs []engine.Event) {
	next, err := engine.Fold(c.rules, s, evs)
	if err != nil || next.Reveals() != s.Reveals() {
		return
	}
	other := seed
	other[0] ^= 0xff
	var again []engine.Event
	c.safely("Decide", func() { again, err = c.rules.Decide(s, seat, m.Command, other) })
	if err != nil || !sameEvents(again, evs) {
		c.errorf("Decide(%q) revealed nothing (Reveals stayed %d) but depends on the seed", m.Notation, s.Reveals())
	}
}

// checkReplay replays the game's seed and commands and checks that they
// give the same events.
func (c *checker) checkReplay(cfg engine.Config, seed engine.Seed, record []turn, log []engine.Event) {
	start, err := c.rules.Start(cfg, seed)
	if err != nil {
		c.errorf("Start again: %v", err)
		return
	}
	replay := slices.Clone(start)
	s, err := engine.Fold(c.rules, nil, start)
	if err != nil {
		c.errorf("fold again: %v", err)
		return
	}
	for _, tn := range record {
		evs, err := c.rules.Decide(s, tn.seat, tn.cmd, seed)
		if err != nil {
			c.errorf("replay of %q: %v", tn.cmd.Notation(), err)
			return
		}
		replay = append(replay, evs...)
		if s, err = engine.Fold(c.rules, s, evs); err != nil {
			c.errorf("replay fold: %v", err)
			return
		}
	}
	if !sameEvents(replay, log) {
		c.errorf("the same seed and commands gave other events")
	}
}

func sameEvents(a, b []engine.Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].EventType() != b[i].EventType() {
			return false
		}
		x, err1 := eventJSON(a[i])
		y, err2 := eventJSON(b[i])
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// checkForgeries folds a game's events with forgeries among them: events
// out of place and events whose numbers were changed. Evolve must not
// panic, must not change the state it is given, and when it refuses, its
// error wraps engine.ErrInconsistent.
func (c *checker) checkForgeries(log []engine.Event) {
	s, err := engine.Fold(c.rules, nil, log[:1])
	if err != nil {
		return
	}
	forge := func(what string, s engine.State, e engine.Event) {
		before := c.snapshot(s)
		var err error
		if !c.safely("Evolve("+what+")", func() { _, err = c.rules.Evolve(s, e) }) {
			return
		}
		if err != nil && !errors.Is(err, engine.ErrInconsistent) {
			c.errorf("Evolve(%s): %v does not wrap ErrInconsistent", what, err)
		}
		if s != nil && !bytes.Equal(before, c.snapshot(s)) {
			c.errorf("Evolve(%s) changed the state it was given", what)
		}
	}
	for _, e := range log[1:] {
		forge("a "+e.EventType()+" before the game started", nil, e)
	}
	for i := 1; i < len(log) && !c.stopped(); i++ {
		forge("game_started again", s, log[0])
		if j := c.rng.IntN(len(log)); j != i {
			forge(fmt.Sprintf("event %d (%s) in place of %d", j, log[j].EventType(), i), s, log[j])
		}
		if forged, ok := c.tamper(log[i]); ok {
			forge("a tampered "+log[i].EventType(), s, forged)
		}
		next, err := c.rules.Evolve(s, log[i])
		if err != nil {
			c.errorf("refolding event %d (%s): %v", i, log[i].EventType(), err)
			return
		}
		s = next
	}
}

// tamper changes one number of an event's JSON and decodes it again.
func (c *checker) tamper(e engine.Event) (engine.Event, bool) {
	data, err := eventJSON(e)
	if err != nil {
		return nil, false
	}
	var digits []int
	for i, b := range data {
		if b >= '0' && b <= '9' {
			digits = append(digits, i)
		}
	}
	if len(digits) == 0 {
		return nil, false
	}
	forged := slices.Clone(data)
	i := digits[c.rng.IntN(len(digits))]
	forged[i] = '0' + byte((int(forged[i]-'0')+1+c.rng.IntN(9))%10)
	var back engine.Event
	c.safely("DecodeEvent(tampered)", func() { back, err = c.rules.DecodeEvent(e.EventType(), e.SchemaVersion(), forged) })
	if err != nil || back == nil {
		return nil, false
	}
	return back, true
}
