package pavilion

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/azuld/azuld/engine"
)

var long = flag.Bool("long", false, "play many more self-play games")

// selfPlayGames is how many games each configuration plays: 2,000, a
// quarter of them under the race detector (the suite's short form, see
// docs/testing.md), 50,000 with -long.
func selfPlayGames() int {
	switch {
	case *long:
		return 50000
	case raceDetector:
		return 500
	}
	return 2000
}

// selfPlayConfig is one configuration of self-play games.
type selfPlayConfig struct {
	cfg   engine.Config
	games int
}

func selfPlayConfigs() []selfPlayConfig {
	games := selfPlayGames()
	var out []selfPlayConfig
	for _, ruleset := range []string{RulesetPavilion, RulesetMini} {
		for players := 2; players <= 4; players++ {
			for _, board := range []string{"", "monochrome"} {
				out = append(out, selfPlayConfig{engine.Config{Ruleset: ruleset, Players: players, Options: engine.Options{Board: board}}, games})
			}
		}
	}
	custom := []string{"red", "blue", "purple", "yellow", "green", "orange"}
	out = append(out,
		selfPlayConfig{engine.Config{Ruleset: RulesetPavilion, Players: 3, Options: engine.Options{WildOrder: custom}}, games / 10},
		selfPlayConfig{engine.Config{Ruleset: RulesetMini, Players: 4, Options: engine.Options{Board: "monochrome", WildOrder: custom}}, games / 10},
	)
	return out
}

func TestSelfPlay(t *testing.T) {
	for i, sc := range selfPlayConfigs() {
		name := fmt.Sprintf("%s/%dp/%s/wild=%v", sc.cfg.Ruleset, sc.cfg.Players, sc.cfg.Options.Board, sc.cfg.Options.WildOrder != nil)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := newSelfPlayer(uint64(i))
			for game := range sc.games {
				// Alternate a uniformly random player with one that
				// prefers placing tiles, so that games also reach full
				// stars, all-1s bonuses and an empty bag.
				g.builder = game%3 == 1
				// Check every legal move of every position in the
				// first games, a sample later (keeps the run short).
				g.checkAll = game < 10
				g.play(t, sc.cfg, game)
				if t.Failed() {
					return
				}
			}
		})
	}
}

// selfPlayer plays random games and checks the engine after every move.
type selfPlayer struct {
	rng      *rand.Rand
	builder  bool
	checkAll bool
	legal    []Cmd
	buf      []Event
	log      []Event
	expected [MaxPlayers]int
	resigned int
}

func newSelfPlayer(seed uint64) *selfPlayer {
	return &selfPlayer{rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

func (g *selfPlayer) play(t *testing.T, cfg engine.Config, game int) {
	var seed engine.Seed
	for i := range seed {
		seed[i] = byte(g.rng.Uint32())
	}
	var err error
	g.log, err = Start(cfg, seed, g.log[:0])
	if err != nil {
		t.Fatal(err)
	}
	var s State
	for i := range g.log {
		if err := s.Apply(&g.log[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range cfg.Players {
		g.expected[i] = StartScore
	}
	for moves := 0; !s.Over(); moves++ {
		if moves > 3000 {
			t.Fatalf("game %d does not end", game)
		}
		seat := s.actor()
		if seat < 0 {
			t.Fatalf("game %d: nobody can act in a running game\n%s", game, s.Text())
		}
		g.legal = AppendLegal(g.legal[:0], &s, seat)
		if len(g.legal) == 0 {
			t.Fatalf("game %d: seat %d has no legal move\n%s", game, seat, s.Text())
		}
		g.checkLegal(t, &s, seat, seed)
		g.checkRandomCommands(t, &s, seat, seed)
		cmd := g.choose(&s, seat)
		mover := seat
		if g.rng.IntN(4000) == 0 {
			// Now and then a seat, maybe not the one to act, resigns.
			cmd, mover = Resign(), g.rng.IntN(cfg.Players)
		}
		g.predict(&s, mover, cmd)
		before := s
		g.buf, err = Decide(&s, mover, cmd, seed, g.buf[:0])
		if err != nil {
			t.Fatalf("game %d: legal %s refused: %v\n%s", game, cmd, err, s.Text())
		}
		if moves%8 == 0 && s != before {
			t.Fatalf("Decide changed the state")
		}
		for i := range g.buf {
			e := &g.buf[i]
			if e.Kind == EvTilePlaced {
				p := &s.seats[e.Seat]
				if want := refBonusEarned(p.Board, int(e.Star), int(e.Space)); int(e.Earned) != want {
					t.Fatalf("game %d: %s earned %d bonus tiles, the rules say %d", game, cmd, e.Earned, want)
				}
			}
			if err := s.Apply(e); err != nil {
				t.Fatalf("game %d: apply %s: %v", game, e.Kind, err)
			}
		}
		g.log = append(g.log, g.buf...)
		for c, n := range s.TileCount() {
			if n != TilesPerColour {
				t.Fatalf("game %d after %s: %d %s tiles in the game\n%s", game, cmd, n, Colour(c), s.Text())
			}
		}
		if s.Over() {
			g.resigned = -1
			g.predictEnd(&before, &s, mover, cmd)
			g.checkRanks(t, &s)
		}
		for i := range cfg.Players {
			if s.Score(i) != g.expected[i] {
				t.Fatalf("game %d after %s: seat %d scores %d, the reference scorer says %d\n%s", game, cmd, i, s.Score(i), g.expected[i], s.Text())
			}
		}
		if g.rng.IntN(512) == 0 {
			checkSnapshot(t, &s)
		}
	}
	g.checkFold(t, &s, game%64 == 0 || g.resigned >= 0)
}

// choose picks the next command.
func (g *selfPlayer) choose(s *State, seat int) Cmd {
	cmd := g.legal[g.rng.IntN(len(g.legal))]
	if g.builder && s.phase == PhasePlay {
		places := 0
		for _, c := range g.legal {
			if c.Kind == CmdPlace {
				places++
			}
		}
		if places > 0 && g.rng.IntN(20) != 0 {
			cmd = g.legal[g.rng.IntN(places)] // places are listed first
		}
	}
	if cmd.Kind == CmdPlace && g.rng.IntN(2) == 0 {
		// Choose the bonus inside the move when the placement earns one.
		r, _ := s.place(seat, int(cmd.Star), int(cmd.Space), cmd.Colour, int(cmd.Wilds))
		if r.earned > 0 {
			k := min(int(r.earned), s.supply.Total())
			options := appendSubsets(nil, CmdBonus, s.supply, 0, Tiles{}, k, true)
			cmd.HasBonus = true
			cmd.Tiles = options[g.rng.IntN(len(options))].Tiles
		}
	}
	return cmd
}

// predict updates the expected scores for cmd with the reference rules.
func (g *selfPlayer) predict(s *State, seat int, cmd Cmd) {
	floor := 1
	if s.Config().Ruleset == RulesetMini {
		floor = 0
	}
	score := g.expected[seat]
	switch cmd.Kind {
	case CmdTake:
		if cmd.Source == Center && s.TokenHolder() < 0 {
			n := 1
			if cmd.Colour != s.Wild() {
				n = int(s.Centre()[cmd.Colour])
				if s.Centre()[s.Wild()] > 0 {
					n++
				}
			}
			score -= refLose(score, n, floor)
		}
	case CmdPlace:
		score += refRun(s.Seat(seat).Board, int(cmd.Star), int(cmd.Space))
	case CmdPass:
		discarded := s.Seat(seat).Hand.Total() - cmd.Tiles.Total()
		score -= refLose(score, discarded, floor)
	}
	g.expected[seat] = score
}

// predictEnd adds the end-of-game scoring (nothing after a resignation):
// the kept tiles are those of the seats that passed before the last move,
// plus what the last move kept (automatic passes keep nothing).
func (g *selfPlayer) predictEnd(before, s *State, seat int, cmd Cmd) {
	floor := 1
	if s.Config().Ruleset == RulesetMini {
		floor = 0
	}
	if s.Final().Reason == "resigned" {
		g.resigned = seat
		return
	}
	for i := range s.Players() {
		kept := before.Seat(i).Kept.Total()
		if i == seat && cmd.Kind == CmdPass {
			kept = cmd.Tiles.Total()
		}
		score := g.expected[i] + refEndBonus(s.Seat(i).Board, s.Monochrome())
		score -= refLose(score, kept, floor)
		g.expected[i] = score
	}
}

// checkRanks checks the final ranks against the scores: shared on ties;
// after a resignation the resigning seat is last and the others are
// ranked among themselves.
func (g *selfPlayer) checkRanks(t *testing.T, s *State) {
	f := s.Final()
	for _, p := range f.Players {
		want := 1
		for _, o := range f.Players {
			if o.Seat != p.Seat && o.Seat != g.resigned && (p.Seat == g.resigned || o.Score > p.Score) {
				want++
			}
		}
		if p.Rank != want || p.Score != g.expected[p.Seat] || p.Resigned != (p.Seat == g.resigned) {
			t.Fatalf("final %+v: seat %d rank %d, want %d", f, p.Seat, p.Rank, want)
		}
		if (p.Rank == 1) != slices.Contains(f.Winners, p.Seat) {
			t.Fatalf("winners %v, seat %d rank %d", f.Winners, p.Seat, p.Rank)
		}
	}
}

// checkLegal checks that every listed move is accepted, in the first games
// of each configuration. (In every game the move played is a random
// listed one, so later games still sample the list.)
func (g *selfPlayer) checkLegal(t *testing.T, s *State, seat int, seed engine.Seed) {
	if !g.checkAll {
		return
	}
	for _, c := range g.legal {
		var err error
		g.buf, err = Decide(s, seat, c, seed, g.buf[:0])
		if err != nil {
			t.Fatalf("listed move %s refused: %v\n%s", c, err, s.Text())
		}
	}
}

// checkRandomCommands throws random commands at Decide: a listed one must
// be accepted, any other refused (places with a bonus inside aside, which
// are legal but not listed), and nobody but the actor may move.
func (g *selfPlayer) checkRandomCommands(t *testing.T, s *State, seat int, seed engine.Seed) {
	for range 1 {
		c := randomCmd(g.rng)
		if c.Kind == CmdResign {
			continue
		}
		listed := false
		for _, l := range g.legal {
			if l == c {
				listed = true
				break
			}
		}
		var err error
		g.buf, err = Decide(s, seat, c, seed, g.buf[:0])
		if listed != (err == nil) && !(c.Kind == CmdPlace && c.HasBonus) {
			t.Fatalf("%s (listed %v): error %v\n%s", c, listed, err, s.Text())
		}
		if err != nil && c.wellFormed() != nil && !errors.Is(err, engine.ErrBadCommand) {
			t.Fatalf("malformed %+v: %v, want ErrBadCommand", c, err)
		}
		if g.rng.IntN(4) != 0 {
			continue
		}
		other := (seat + 1 + g.rng.IntN(s.Players()-1)) % s.Players()
		if _, err := Decide(s, other, c, seed, g.buf[:0]); err == nil ||
			!(errors.Is(err, engine.ErrNotYourTurn) || errors.Is(err, engine.ErrBadCommand)) {
			t.Fatalf("%s by seat %d out of turn: %v", c, other, err)
		}
	}
}

// randomCmd is an arbitrary command, sometimes with out-of-range fields.
func randomCmd(rng *rand.Rand) Cmd {
	c := Cmd{Kind: CmdKind(rng.IntN(6))}
	if rng.IntN(30) == 0 {
		c.Kind = CmdKind(rng.IntN(256))
	}
	switch c.Kind {
	case CmdTake:
		c.Source = int8(rng.IntN(10) - 1)
		c.Colour = Colour(rng.IntN(NumColours))
	case CmdPlace:
		c.Colour = Colour(rng.IntN(NumColours))
		c.Star = int8(rng.IntN(NumStars))
		c.Space = int8(1 + rng.IntN(6))
		c.Wilds = uint8(rng.IntN(4))
		if rng.IntN(10) == 0 {
			c.HasBonus = true
			c.Tiles[rng.IntN(NumColours)] = uint8(1 + rng.IntN(2))
		}
	case CmdBonus, CmdPass:
		for range rng.IntN(6) {
			c.Tiles[rng.IntN(NumColours)]++
		}
	}
	if rng.IntN(40) == 0 {
		switch c.Kind {
		case CmdTake:
			c.Colour = Colour(rng.IntN(256))
			c.Source = int8(rng.IntN(256))
		case CmdPlace:
			c.Colour = Colour(rng.IntN(256))
			c.Star = int8(rng.IntN(256))
			c.Space = int8(rng.IntN(256))
		}
	}
	return c
}

// checkSnapshot round-trips the state through its snapshot JSON.
func checkSnapshot(t *testing.T, s *State) {
	t.Helper()
	data, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeState(data)
	if err != nil {
		t.Fatalf("DecodeState: %v\n%s", err, data)
	}
	if *back != *s {
		t.Fatalf("snapshot round trip differs\n%s", data)
	}
}

// checkFold folds the JSON of every event of the game, decoded again, and
// compares with the live state.
func (g *selfPlayer) checkFold(t *testing.T, live *State, snapshot bool) {
	t.Helper()
	var s State
	var data []byte
	for i := range g.log {
		e := &g.log[i]
		data = e.AppendJSON(data[:0])
		back, err := DecodeEvent(e.EventType(), e.SchemaVersion(), data)
		if err != nil {
			t.Fatalf("decode %s %s: %v", e.Kind, data, err)
		}
		if back != *e {
			t.Fatalf("event %s does not survive its JSON: %s\n%+v\n%+v", e.Kind, data, *e, back)
		}
		if err := s.Apply(&back); err != nil {
			t.Fatalf("fold %s: %v", e.Kind, err)
		}
	}
	if s != *live {
		t.Fatalf("fold of the decoded events differs from the live state")
	}
	if snapshot {
		checkSnapshot(t, &s)
	}
}

// TestDeterministic replays the same seed and commands twice and compares
// the events' JSON byte for byte.
func TestDeterministic(t *testing.T) {
	cfg := engine.Config{Ruleset: RulesetPavilion, Players: 4, Options: engine.Options{Board: "monochrome"}}
	run := func() []byte {
		g := newSelfPlayer(42)
		g.builder = true
		g.play(t, cfg, 0)
		var out []byte
		for i := range g.log {
			out = append(out, g.log[i].EventType()...)
			out = g.log[i].AppendJSON(out)
			out = append(out, '\n')
		}
		return out
	}
	a, b := run(), run()
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Fatal("the same seed and commands gave different events")
	}
}
