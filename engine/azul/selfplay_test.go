package azul

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
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

// TestSelfPlay plays random games for every player count and wall, checking
// after every move: the 100 tiles are each in one place, the scores equal
// an independent recomputation, every legal move is accepted and sampled
// illegal moves are rejected, Decide leaves its state alone; at random
// points the snapshot round trip; at the end of every game the fold of the
// JSON-encoded-then-decoded events equals the live state.
func TestSelfPlay(t *testing.T) {
	games := selfPlayGames()
	for _, players := range []int{2, 3, 4} {
		for _, grey := range []bool{false, true} {
			wall := "coloured"
			if grey {
				wall = "grey"
			}
			t.Run(fmt.Sprintf("%dp-%s", players, wall), func(t *testing.T) {
				t.Parallel()
				g := newGameChecker(t, players, grey)
				for i := range games {
					g.play(uint64(i)*4+uint64(players), grey)
					if t.Failed() {
						return
					}
				}
			})
		}
	}
}

// gameChecker plays checked random games, reusing its buffers.
type gameChecker struct {
	t       *testing.T
	players int
	grey    bool
	rules   engine.Rules
	legal   []Cmd
	evs     []Event
	scratch []Event
	log     []Event
	moves   int
}

func newGameChecker(t *testing.T, players int, grey bool) *gameChecker {
	return &gameChecker{t: t, players: players, grey: grey, rules: New()}
}

// maxMoves bounds a game: 50 rounds of at most 36 takes plus the grey
// choices of every round.
const maxMoves = MaxRounds * (4*MaxFactories + 5*MaxPlayers)

func (g *gameChecker) play(gameNo uint64, grey bool) {
	t := g.t
	rng := rand.New(rand.NewPCG(gameNo, 0x5eed))
	var seed engine.Seed
	for i := range seed {
		seed[i] = byte(rng.Uint32())
	}
	cfg := engine.Config{Ruleset: Ruleset, Players: g.players}
	if grey {
		cfg.Options.Wall = "grey"
	}
	var err error
	g.evs, err = Start(cfg, seed, g.evs[:0])
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	g.log = g.log[:0]
	var s State
	sh := newShadow(g.players, grey)
	if !g.fold(&s, sh, g.evs) {
		return
	}
	resignAt := -1
	if rng.IntN(100) == 0 {
		resignAt = rng.IntN(200)
	}
	snapshotAt := rng.IntN(60)
	for move := 0; !s.Over(); move++ {
		if move > maxMoves {
			t.Fatalf("game %d did not end after %d moves", gameNo, move)
		}
		mask := s.ToActMask()
		if mask == 0 {
			t.Fatalf("game %d: nobody to act in a running game\n%s", gameNo, s.Text())
		}
		seat := pickSeat(rng, mask)
		g.legal = AppendLegal(g.legal[:0], &s, seat)
		if len(g.legal) == 0 {
			t.Fatalf("game %d: seat %d to act has no legal move\n%s", gameNo, seat, s.Text())
		}
		if !g.checkLegality(&s, seat, mask, seed, rng) {
			return
		}
		cmd := g.legal[rng.IntN(len(g.legal))]
		if move == resignAt {
			cmd = Resign()
			seat = rng.IntN(g.players)
		}
		before := s
		g.evs, err = Decide(&s, seat, cmd, seed, g.evs[:0])
		if err != nil {
			t.Fatalf("game %d: legal move %s by seat %d rejected: %v", gameNo, cmd, seat, err)
		}
		if s != before {
			t.Fatalf("game %d: Decide changed its state", gameNo)
		}
		if !g.fold(&s, sh, g.evs) {
			return
		}
		if move == snapshotAt {
			g.checkSnapshot(&s)
		}
		g.moves++
	}
	if _, err := Decide(&s, 0, Resign(), seed, g.scratch[:0]); !errors.Is(err, engine.ErrGameOver) {
		t.Fatalf("game %d: a move after the end gave %v, want ErrGameOver", gameNo, err)
	}
	g.checkReplay(&s, gameNo%8 == 0)
}

func pickSeat(rng *rand.Rand, mask uint8) int {
	var seats [MaxPlayers]int
	n := 0
	for seat := range MaxPlayers {
		if mask&(1<<seat) != 0 {
			seats[n] = seat
			n++
		}
	}
	return seats[rng.IntN(n)]
}

// fold applies events to s, logs them, and checks the shadow scores and
// the tile count after each.
func (g *gameChecker) fold(s *State, sh *shadow, evs []Event) bool {
	t := g.t
	for _, e := range evs {
		if err := s.Apply(e); err != nil {
			t.Fatalf("apply %s: %v", e.Kind, err)
			return false
		}
		if err := sh.observe(e, s); err != nil {
			t.Fatalf("%s: %v\n%s", e.Kind, err, s.Text())
			return false
		}
		g.log = append(g.log, e)
	}
	if err := countTiles(s); err != nil {
		t.Fatalf("tile count: %v\n%s", err, s.Text())
		return false
	}
	return true
}

// checkLegality checks that Decide accepts every legal move of seat, and
// rejects a sample of other moves and the moves of seats not to act.
func (g *gameChecker) checkLegality(s *State, seat int, mask uint8, seed engine.Seed, rng *rand.Rand) bool {
	t := g.t
	for _, c := range g.legal {
		var err error
		if g.scratch, err = Decide(s, seat, c, seed, g.scratch[:0]); err != nil {
			t.Fatalf("legal move %s of seat %d rejected: %v\n%s", c, seat, err, s.Text())
			return false
		}
	}
	for range 1 {
		c := randomCmd(rng)
		if c.Kind == CmdResign || slices.Contains(g.legal, c) {
			continue
		}
		if _, err := Decide(s, seat, c, seed, g.scratch[:0]); err == nil {
			t.Fatalf("illegal move %s (%+v) of seat %d accepted\n%s", c, c, seat, s.Text())
			return false
		}
	}
	if other := rng.IntN(4 * g.players); other < g.players && mask&(1<<other) == 0 {
		c := g.legal[rng.IntN(len(g.legal))]
		if _, err := Decide(s, other, c, seed, g.scratch[:0]); !errors.Is(err, engine.ErrNotYourTurn) {
			t.Fatalf("seat %d not to act: %s gave %v, want ErrNotYourTurn", other, c, err)
			return false
		}
	}
	return true
}

// randomCmd is a well-formed or slightly malformed command.
func randomCmd(rng *rand.Rand) Cmd {
	switch rng.IntN(4) {
	case 0:
		return Tile(int8(rng.IntN(7)), int8(rng.IntN(7)))
	case 1:
		return Cmd{Kind: CmdKind(rng.IntN(5)), Source: int8(rng.IntN(12) - 2), Colour: Colour(rng.IntN(7)),
			Line: int8(rng.IntN(9) - 1), Column: int8(rng.IntN(3))}
	}
	return Take(int8(rng.IntN(MaxFactories+1)-1), Colour(rng.IntN(NumColours)), int8(rng.IntN(6)+1))
}

func (g *gameChecker) checkSnapshot(s *State) {
	data, err := s.MarshalJSON()
	if err != nil {
		g.t.Fatalf("snapshot: %v", err)
	}
	back, err := g.rules.DecodeState(data)
	if err != nil {
		g.t.Fatalf("decode snapshot: %v\n%s", err, data)
	}
	if *back.(*State) != *s {
		g.t.Fatalf("snapshot round trip differs\n%s", data)
	}
}

// checkReplay folds the JSON-encoded-then-decoded log and compares with
// the live state: through the type-erased rules when erased, else through
// State.Apply (the same fold without boxing, cheaper under -race).
func (g *gameChecker) checkReplay(s *State, erased bool) {
	t := g.t
	var st engine.State
	var typed State
	for i, e := range g.log {
		data, err := e.MarshalJSON() // json.Marshal gives the same bytes (TestEventJSON)
		if err != nil {
			t.Fatalf("encode %s: %v", e.Kind, err)
		}
		if erased {
			var back engine.Event
			if back, err = g.rules.DecodeEvent(e.EventType(), e.SchemaVersion(), data); err == nil {
				if *back.(*Event) != e {
					t.Fatalf("event %d %s changed in the JSON round trip: %s", i, e.Kind, data)
				}
				st, err = g.rules.Evolve(st, back)
			}
		} else {
			var back Event
			if back, err = DecodeEvent(e.EventType(), e.SchemaVersion(), data); err == nil {
				if back != e {
					t.Fatalf("event %d %s changed in the JSON round trip: %s", i, e.Kind, data)
				}
				err = typed.Apply(back)
			}
		}
		if err != nil {
			t.Fatalf("refold event %d: %v", i, err)
		}
	}
	if erased {
		typed = *st.(*State)
	}
	if typed != *s {
		t.Fatalf("the refolded state differs from the live state")
	}
	last := g.log[len(g.log)-1]
	if last.Kind != EvGameEnded {
		t.Fatalf("the game's last event is %s", last.Kind)
	}
	got, _ := json.Marshal(s.Final())
	want, _ := json.Marshal(finalOf(&last))
	if string(got) != string(want) {
		t.Fatalf("Final() %s, game_ended recorded %s", got, want)
	}
}

// countTiles checks that each colour has its 20 tiles in exactly the
// places the state shows: bag, lid, factories, centre, lines, walls, floors.
func countTiles(s *State) error {
	var n [NumColours]int
	add := func(counts [NumColours]uint8) {
		for c, k := range counts {
			n[c] += int(k)
		}
	}
	add(s.Bag())
	add(s.Lid())
	add(s.Center())
	for f := range MaxFactories {
		add(s.Factory(f))
	}
	markers := 0
	if s.CenterMarker() {
		markers++
	}
	for seat := range s.Players() {
		b := s.Board(seat)
		for r := range 5 {
			if b.LineCount[r] > 0 {
				n[b.LineColour[r]] += int(b.LineCount[r])
			}
			for col := range 5 {
				if c := b.Wall[r][col]; c != NoColour {
					n[c]++
				}
			}
		}
		for _, c := range b.Floor[:b.FloorLen] {
			if c == Marker {
				markers++
			} else {
				n[c]++
			}
		}
	}
	for c, k := range n {
		if k != TilesPerColour {
			return fmt.Errorf("%d %s tiles, want %d", k, Colour(c), TilesPerColour)
		}
	}
	if markers > 1 {
		return fmt.Errorf("%d start markers on the table", markers)
	}
	return nil
}

// shadow is an independent scorer: it keeps its own walls and floor
// counts from the events and recomputes every score with simple code of
// its own, then compares with the state.
type shadow struct {
	players int
	grey    bool
	wall    [MaxPlayers][5][5]Colour
	floor   [MaxPlayers]int
	score   [MaxPlayers]int
}

func newShadow(players int, grey bool) *shadow {
	sh := &shadow{players: players, grey: grey}
	for p := range sh.wall {
		for r := range 5 {
			for c := range 5 {
				sh.wall[p][r][c] = NoColour
			}
		}
	}
	return sh
}

// shadowPoints counts the run through (r, c) in each direction by walking
// the grid.
func shadowPoints(w *[5][5]Colour, r, c int) int {
	filled := func(r, c int) bool { return r >= 0 && r < 5 && c >= 0 && c < 5 && w[r][c] != NoColour }
	run := func(dr, dc int) int {
		k := 0
		for i := 1; filled(r+i*dr, c+i*dc); i++ {
			k++
		}
		return k
	}
	h := 1 + run(0, -1) + run(0, 1)
	v := 1 + run(-1, 0) + run(1, 0)
	switch {
	case h == 1 && v == 1:
		return 1
	case h == 1:
		return v
	case v == 1:
		return h
	}
	return h + v
}

func (sh *shadow) observe(e Event, s *State) error {
	seat := int(e.Seat)
	switch e.Kind {
	case EvTilesTaken:
		if int(e.ToLine)+int(e.ToFloor)+int(e.ToLid) != int(e.Count) {
			return fmt.Errorf("%d tiles taken, %d+%d+%d placed", e.Count, e.ToLine, e.ToFloor, e.ToLid)
		}
		if e.Marker && sh.floor[seat] < FloorSize {
			sh.floor[seat]++
		}
		sh.floor[seat] += int(e.ToFloor)
		if sh.floor[seat] > FloorSize || (e.ToLid > 0 && sh.floor[seat] != FloorSize) {
			return fmt.Errorf("floor of seat %d: %d items after %d to the lid", seat, sh.floor[seat], e.ToLid)
		}
	case EvLineToFloor:
		if !sh.grey || int(e.ToFloor)+int(e.ToLid) != int(e.Line) || int(e.Count) != int(e.Line) {
			return fmt.Errorf("line %d to the floor: %d + %d", e.Line, e.ToFloor, e.ToLid)
		}
		sh.floor[seat] += int(e.ToFloor)
	case EvWallTiled:
		r, c := int(e.Line)-1, int(e.Column)-1
		w := &sh.wall[seat]
		if w[r][c] != NoColour {
			return fmt.Errorf("wall %d,%d already holds %s", r+1, c+1, w[r][c])
		}
		if !sh.grey && WallColour(r, c) != e.Colour {
			return fmt.Errorf("%s on the coloured wall at %d,%d", e.Colour, r+1, c+1)
		}
		for i := range 5 {
			if w[r][i] == e.Colour || w[i][c] == e.Colour {
				return fmt.Errorf("%s twice in row %d or column %d", e.Colour, r+1, c+1)
			}
		}
		w[r][c] = e.Colour
		points := shadowPoints(w, r, c)
		if points != int(e.Points) {
			return fmt.Errorf("wall tile at %d,%d scores %d, the event says %d", r+1, c+1, points, e.Points)
		}
		sh.score[seat] += points
	case EvFloorScored:
		penalties := []int{1, 1, 2, 2, 2, 3, 3}
		lost := 0
		for i := range sh.floor[seat] {
			lost += penalties[i]
		}
		if lost != int(e.Penalty) {
			return fmt.Errorf("floor of %d items costs %d, the event says %d", sh.floor[seat], lost, e.Penalty)
		}
		sh.score[seat] = max(0, sh.score[seat]-lost)
		sh.floor[seat] = 0
	case EvFactoriesFilled:
		for p := range sh.players {
			if sh.floor[p] != 0 {
				return fmt.Errorf("a deal while seat %d has %d floor items", p, sh.floor[p])
			}
		}
	case EvGameEnded:
		if err := sh.checkEnd(e); err != nil {
			return err
		}
	}
	for p := range sh.players {
		if s.Score(p) != sh.score[p] {
			return fmt.Errorf("seat %d scores %d, recomputed %d", p, s.Score(p), sh.score[p])
		}
	}
	return nil
}

// checkEnd adds the end bonuses itself and ranks the seats by sorting.
func (sh *shadow) checkEnd(e Event) error {
	var rows [MaxPlayers]int
	for p := range sh.players {
		w := &sh.wall[p]
		perColour := map[Colour]int{}
		cols, colours := 0, 0
		for r := range 5 {
			full := true
			for c := range 5 {
				if w[r][c] == NoColour {
					full = false
				} else {
					perColour[w[r][c]]++
				}
			}
			if full {
				rows[p]++
			}
		}
		for c := range 5 {
			full := true
			for r := range 5 {
				full = full && w[r][c] != NoColour
			}
			if full {
				cols++
			}
		}
		for _, k := range perColour {
			if k == 5 {
				colours++
			}
		}
		if e.Reason != EndResigned {
			sh.score[p] += 2*rows[p] + 7*cols + 10*colours
		}
		if int(e.Final[p].Score) != sh.score[p] {
			return fmt.Errorf("seat %d final score %d, recomputed %d", p, e.Final[p].Score, sh.score[p])
		}
	}
	if e.Reason == EndRowCompleted {
		any := false
		for p := range sh.players {
			any = any || rows[p] > 0
		}
		if !any {
			return errors.New("ended by a completed row, but no row is complete")
		}
	}
	order := make([]int, 0, sh.players)
	for p := range sh.players {
		if p != int(e.Resigned) {
			order = append(order, p)
		}
	}
	better := func(a, b int) bool {
		return sh.score[a] > sh.score[b] || (sh.score[a] == sh.score[b] && rows[a] > rows[b])
	}
	sort.SliceStable(order, func(i, j int) bool { return better(order[i], order[j]) })
	for i, p := range order {
		rank := i + 1
		if i > 0 && !better(order[i-1], p) {
			rank = int(e.Final[order[i-1]].Rank)
		}
		if int(e.Final[p].Rank) != rank {
			return fmt.Errorf("seat %d ranked %d, recomputed %d", p, e.Final[p].Rank, rank)
		}
	}
	if e.Resigned >= 0 && int(e.Final[e.Resigned].Rank) != sh.players {
		return fmt.Errorf("the resigned seat is ranked %d, not last", e.Final[e.Resigned].Rank)
	}
	return nil
}
