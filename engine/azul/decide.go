package azul

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/azuld/azuld/engine"
)

// Start validates cfg and appends the events that set up a game to buf:
// game_started (seat 0 starts round 1) and the first deal, drawn from
// seed.Rand(0).
func Start(cfg engine.Config, seed engine.Seed, buf []Event) ([]Event, error) {
	grey, err := checkConfig(cfg)
	if err != nil {
		return buf, err
	}
	started := Event{Kind: EvGameStarted, Players: uint8(cfg.Players), Grey: grey, Seat: 0}
	var s State
	if err := s.apply(&started); err != nil {
		return buf, fmt.Errorf("start %s: %w", Ruleset, err)
	}
	deal := dealEvent(&s, seed.Rand(s.Reveals()))
	return append(buf, started, deal), nil
}

// Decide validates cmd, issued by seat, against s and appends the events
// it causes to buf (pass buf[:0] to reuse a buffer). It never changes s.
//
// After the last take of a round (or the last grey-wall choice) the batch
// also holds the automatic consequences: wall tiling with its points, grey
// lines without a legal space going to the floor, floor penalties, then
// either game_ended or the next deal, drawn from seed.Rand(s.Reveals()).
//
// Errors: ErrGameOver, ErrBadCommand (malformed cmd, seat out of range, no
// game), ErrNotYourTurn, or a *engine.RuleError naming the broken rule.
func Decide(s *State, seat int, cmd Cmd, seed engine.Seed, buf []Event) ([]Event, error) {
	return decide(s, seat, cmd, draws{seed: seed}, buf)
}

// DecideRand is Decide with every random reveal of the batch drawn from
// rng instead of the game's seed. Bots use it for playouts over imagined
// deals: it allocates nothing, where seed.Rand builds a new generator per
// reveal. The events it returns are legal but are not the game's own draws.
func DecideRand(s *State, seat int, cmd Cmd, rng *rand.Rand, buf []Event) ([]Event, error) {
	return decide(s, seat, cmd, draws{rng: rng}, buf)
}

// draws is where a batch's reveals come from: the game's seed, or a
// caller's generator (DecideRand).
type draws struct {
	seed engine.Seed
	rng  *rand.Rand
}

// rand is the random source of the reveal-th reveal.
func (d draws) rand(reveal int) randIntN {
	if d.rng != nil {
		return d.rng
	}
	return d.seed.Rand(reveal)
}

func decide(s *State, seat int, cmd Cmd, seed draws, buf []Event) ([]Event, error) {
	if s == nil || s.phase == phaseNone {
		return buf, fmt.Errorf("%w: the game has not started", engine.ErrBadCommand)
	}
	if s.phase == PhaseOver {
		return buf, engine.ErrGameOver
	}
	if err := cmd.check(); err != nil {
		return buf, err
	}
	if seat < 0 || seat >= int(s.players) {
		return buf, fmt.Errorf("%w: no seat %d in a %d-player game", engine.ErrBadCommand, seat, s.players)
	}
	switch cmd.Kind {
	case CmdResign:
		return append(buf, endEvent(s, EndResigned, seat, false)), nil
	case CmdTake:
		buf = append(buf, Event{})
		e := &buf[len(buf)-1]
		if err := takeEvent(s, seat, cmd, e); err != nil {
			return buf[:len(buf)-1], err
		}
		if s.onOffer > e.Count {
			return buf, nil // the offer goes on: nothing else happens
		}
		w := *s
		w.applyTake(e)
		return w.finishRound(buf, seed), nil
	default: // CmdTile
		line, err := checkTileTurn(s, seat)
		if err != nil {
			return buf, err
		}
		if int(cmd.Line) != line {
			return buf, ruleErr(RuleLinesTopToBottom, "docs/rules.md §2.3, §2.6",
				"lines are tiled top to bottom: choose the wall space of line %d first", line)
		}
		e, err := wallEvent(s, seat, line, int(cmd.Column)-1)
		if err != nil {
			return buf, err
		}
		w := *s
		w.applyWall(&e)
		buf = append(buf, e)
		return w.finishRound(buf, seed), nil
	}
}

// checkTileTurn returns the pattern line whose wall space seat may choose
// now.
func checkTileTurn(s *State, seat int) (int, error) {
	if line := s.PendingLine(seat); line > 0 {
		return line, nil
	}
	if s.phase == PhaseOffer && int(s.turn) == seat {
		if !s.grey {
			return 0, ruleErr(RuleColouredWallFixed, "docs/rules.md §2.3",
				"on the coloured wall every tile has its printed space: there is nothing to choose")
		}
		return 0, ruleErr(RuleNoWallChoiceNow, "docs/rules.md §2.6",
			"wall spaces are chosen after the factory offer: take tiles now")
	}
	return 0, fmt.Errorf("%w: seat %d has no wall space to choose", engine.ErrNotYourTurn, seat)
}

// finishRound continues the round's end on the working state w once the
// offer is over: wall tiling, floors, then the end or the next deal. With
// the grey wall it stops while a player has a wall space to choose.
func (w *State) finishRound(buf []Event, seed draws) []Event {
	n := int(w.players)
	if w.grey {
		pending := false
		for seat := range n {
			buf = w.autoTile(seat, buf)
			if w.PendingLine(seat) > 0 {
				pending = true
			}
		}
		if pending {
			return buf
		}
	} else {
		for seat := range n {
			b := &w.boards[seat]
			for r := b.firstComplete(); r >= 0; r = b.firstComplete() {
				e, _ := wallEvent(w, seat, r+1, WallColumn(r, b.LineColour[r]))
				w.applyWall(&e)
				buf = append(buf, e)
			}
		}
	}
	for seat := range n {
		if w.boards[seat].FloorLen > 0 {
			e, _ := floorEvent(w, seat)
			w.applyFloor(&e)
			buf = append(buf, e)
		}
	}
	if reason := w.endCondition(); reason != NotEnded {
		e := endEvent(w, reason, -1, false)
		w.applyEnd(&e)
		return append(buf, e)
	}
	e := dealEvent(w, seed.rand(w.Reveals()))
	bag, lid, _ := followDeal(w, &e)
	w.applyDeal(&e, bag, lid)
	return append(buf, e)
}

// AppendLegal appends every legal move of seat to dst, without resign
// (always legal while the game runs, see Decide): takes ordered by source
// (F1.., then the centre), colour, then line 1..5 and the floor; or the
// legal columns of a grey-wall choice.
func AppendLegal(dst []Cmd, s *State, seat int) []Cmd {
	if s == nil || seat < 0 || seat >= int(s.players) {
		return dst
	}
	switch s.phase {
	case PhaseOffer:
		if seat != int(s.turn) {
			return dst
		}
		b := &s.boards[seat]
		// lineOK[c]: bit r set when line r+1 can take colour c.
		var lineOK [NumColours]uint8
		for r := range 5 {
			switch cnt := int(b.LineCount[r]); {
			case cnt == r+1:
			case cnt > 0:
				lineOK[b.LineColour[r]] |= 1 << r
			default:
				for c := range NumColours {
					if b.rowColours[r]&(1<<c) == 0 {
						lineOK[c] |= 1 << r
					}
				}
			}
		}
		nf := s.NumFactories()
		for src := 0; src <= nf; src++ {
			source, tiles := int8(src), &s.center
			if src < nf {
				tiles = &s.factories[src]
			} else {
				source = Center
			}
			for c := range Colour(NumColours) {
				if tiles[c] == 0 {
					continue
				}
				for ok := lineOK[c]; ok != 0; ok &= ok - 1 {
					dst = append(dst, Cmd{Kind: CmdTake, Source: source, Colour: c, Line: int8(bits.TrailingZeros8(ok) + 1)})
				}
				dst = append(dst, Cmd{Kind: CmdTake, Source: source, Colour: c, Line: Floor})
			}
		}
	case PhaseTiling:
		line := s.PendingLine(seat)
		if line == 0 {
			return dst
		}
		b := &s.boards[seat]
		for cols := b.greyColumns(line-1, b.LineColour[line-1]); cols != 0; cols &= cols - 1 {
			dst = append(dst, Tile(int8(line), int8(bits.TrailingZeros8(cols)+1)))
		}
	}
	return dst
}
