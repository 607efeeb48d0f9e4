package pavilion

import (
	"fmt"
	"strconv"

	"github.com/azuld/azuld/engine"
)

// References into docs/rules.md.
const (
	refTake  = "docs/rules.md §3.4"
	refPlay  = "docs/rules.md §3.5"
	refBoard = "docs/rules.md §3.3"
	refMono  = "docs/rules.md §3.8"
)

func ruleError(rule, ref, format string, args ...any) *engine.RuleError {
	return &engine.RuleError{Rule: "pavilion." + rule, Ref: ref, Detail: formatDetail(format, args)}
}

// formatDetail is a small Sprintf for rule error details (%d, %s, %v of
// the few types they use): refusing a move must stay cheap, as bots and
// move checks refuse many.
func formatDetail(format string, args []any) string {
	b := make([]byte, 0, len(format)+32)
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b = append(b, c)
			continue
		}
		i++
		if format[i] == '%' {
			b = append(b, '%')
			continue
		}
		if len(args) == 0 {
			b = append(b, "%!"...)
			b = append(b, format[i])
			continue
		}
		switch v := args[0].(type) {
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case uint8:
			b = strconv.AppendInt(b, int64(v), 10)
		case int8:
			b = strconv.AppendInt(b, int64(v), 10)
		case string:
			b = append(b, v...)
		case Colour:
			b = append(b, v.String()...)
		case Tiles:
			b = append(b, v.String()...)
		default:
			b = fmt.Append(b, v)
		}
		args = args[1:]
	}
	return string(b)
}

// takeResult is what taking colour from a source does.
type takeResult struct {
	count     uint8 // tiles of the colour
	wildTaken uint8 // extra wild tile (0 or 1)
	toCentre  Tiles // the factory's remainder
	token     bool
	lost      uint8
}

// take works out a take by seat (whose turn it is, in the acquire phase).
func (s *State) take(seat int, source int8, c Colour) (takeResult, *engine.RuleError) {
	var r takeResult
	var src Tiles
	switch {
	case source == Center:
		src = s.centre
	case source >= 0 && int(source) < s.NumFactories():
		src = s.factories[source]
	default:
		return r, ruleError("no-such-factory", refTake, "there is no factory F%d with %d players", int(source)+1, s.players)
	}
	if src.Total() == 0 {
		return r, ruleError("source-empty", refTake, "%s is empty", sourceName(source))
	}
	wild := s.Wild()
	if c == wild {
		if int(src[wild]) != src.Total() {
			return r, ruleError("wild-colour-not-takeable", refTake,
				"%s is this round's wild colour: take another colour (one wild tile comes with it); a wild tile alone may be taken only from a source holding nothing else", c)
		}
		r.count = 1
	} else {
		if src[c] == 0 {
			return r, ruleError("colour-not-in-source", refTake, "%s holds no %s tile", sourceName(source), c)
		}
		r.count = src[c]
		if src[wild] > 0 {
			r.wildTaken = 1
		}
	}
	if source != Center {
		r.toCentre = src
		r.toCentre[c] -= r.count
		r.toCentre[wild] -= r.wildTaken
	} else if s.token < 0 {
		r.token = true
		r.lost = uint8(s.penalty(seat, int(r.count)+int(r.wildTaken)))
	}
	return r, nil
}

func sourceName(source int8) string {
	if source == Center {
		return "the centre"
	}
	return "factory F" + strconv.Itoa(int(source)+1)
}

// penalty is how many of n penalty points seat really loses: the score
// never drops below the rule set's floor (Decision S4).
func (s *State) penalty(seat, n int) int {
	return max(0, min(n, int(s.seats[seat].Score)-s.Floor()))
}

// placeResult is what a placement does.
type placeResult struct {
	cost     uint8
	points   uint8
	features uint32
	earned   uint8
}

// place works out placing colour c on a space, paying wilds wild tiles.
func (s *State) place(seat, star, space int, c Colour, wilds int) (placeResult, *engine.RuleError) {
	var r placeResult
	p := &s.seats[seat]
	if !p.Board[star][space-1].Empty() {
		return r, ruleError("space-occupied", refPlay, "space %d of star %d is already covered", space, star)
	}
	if why := s.colourFits(p, star, c); why != fits {
		return r, s.colourError(p, star, c, why)
	}
	cost := spaceCost(s.Monochrome(), star, space)
	wild := s.Wild()
	if c == wild {
		if wilds != 0 {
			return r, ruleError("wilds-for-wild-colour", refPlay,
				"%s is the wild colour: a %s tile is placed as itself and paid with %s tiles only (give wilds 0)", c, c, c)
		}
		if int(p.Hand[c]) < cost {
			return r, ruleError("not-enough-tiles", refPlay, "this space costs %d %s tiles; the hand has %d", cost, c, p.Hand[c])
		}
	} else {
		if wilds > cost-1 {
			return r, ruleError("too-many-wilds", refPlay, "this space costs %d: at most %d of them can be wild (the placed tile must be %s)", cost, cost-1, c)
		}
		if int(p.Hand[c]) < cost-wilds {
			return r, ruleError("not-enough-tiles", refPlay, "this space costs %d: %d %s and %d wild; the hand has %d %s", cost, cost-wilds, c, wilds, p.Hand[c], c)
		}
		if int(p.Hand[wild]) < wilds {
			return r, ruleError("not-enough-wilds", refPlay, "%d wild (%s) tiles asked; the hand has %d", wilds, wild, p.Hand[wild])
		}
	}
	b := bit(star, space)
	r.cost = uint8(cost)
	r.points = uint8(runLength(p.Covered, star, space))
	r.features = completedFeatures(p.Covered, b)
	r.earned = uint8(bonusOf(r.features))
	return r, nil
}

// Reasons a colour does not fit a star (see colourFits).
const (
	fits = iota
	notStarColour
	onCentreStar
	singleColoured
	onMultiStar
)

// colourFits says whether colour c may go on a star of a board, and if not
// why. It is cheap: legal move listing calls it for every star and colour.
func (s *State) colourFits(p *Player, star int, c Colour) int {
	on := p.starColours(star)
	if !s.Monochrome() {
		if star == CentreStar {
			if on[c] > 0 {
				return onCentreStar
			}
			return fits
		}
		if c != outerStarColour[star] {
			return notStarColour
		}
		return fits
	}
	if on.Total() < 2 {
		return fits
	}
	if on.colours() == 1 {
		if on[c] == 0 {
			return singleColoured
		}
		return fits
	}
	if on[c] > 0 {
		return onMultiStar
	}
	return fits
}

// colourError explains why colour c does not fit a star.
func (s *State) colourError(p *Player, star int, c Colour, why int) *engine.RuleError {
	switch why {
	case onCentreStar:
		return ruleError("colour-already-on-centre-star", refPlay, "the centre star already holds a %s tile: its six tiles are all different", c)
	case notStarColour:
		sc := outerStarColour[star]
		return ruleError("colour-not-of-star", refPlay, "star %d is the %s star: only %s tiles go there", star, sc, sc)
	case singleColoured:
		on := p.Board[star][firstCovered(p, star)].Colour()
		return ruleError("star-single-coloured", refMono, "star %d is single-coloured (%s): only %s tiles go there", star, on, on)
	default:
		return ruleError("colour-already-on-star", refMono, "star %d is multicoloured and already holds a %s tile", star, c)
	}
}

func firstCovered(p *Player, star int) int {
	for i, c := range p.Board[star] {
		if !c.Empty() {
			return i
		}
	}
	return 0
}

// bonusChoice checks a bonus choice of seat, who owes due tiles.
func (s *State) bonusChoice(due int, t Tiles) *engine.RuleError {
	want := min(due, s.supply.Total())
	if t.Total() != want {
		if want < due {
			return ruleError("bonus-count", refPlay, "the supply holds only %d tiles: take them all (Decision S2), %d chosen", want, t.Total())
		}
		return ruleError("bonus-count", refPlay, "choose exactly %d bonus tiles, %d chosen", want, t.Total())
	}
	if !s.supply.Contains(t) {
		return ruleError("bonus-not-in-supply", refPlay, "the supply does not hold %s (it holds %s)", t, s.supply)
	}
	return nil
}

// forcedBonus is the only possible choice of due bonus tiles, if there is
// exactly one (the supply holds no more than due, or one colour only).
func (s *State) forcedBonus(due int) (Tiles, bool) {
	total := s.supply.Total()
	if due >= total {
		return s.supply, true
	}
	if s.supply.colours() == 1 {
		var t Tiles
		for c, n := range s.supply {
			if n > 0 {
				t[c] = uint8(due)
			}
		}
		return t, true
	}
	return Tiles{}, false
}

// keepCheck checks the tiles a passing seat keeps.
func (s *State) keepCheck(seat int, keep Tiles) *engine.RuleError {
	if keep.Total() > KeepLimit {
		return ruleError("keep-too-many", refPlay, "at most %d tiles can be kept, %d asked", KeepLimit, keep.Total())
	}
	if !s.seats[seat].Hand.Contains(keep) {
		return ruleError("keep-not-in-hand", refPlay, "the hand (%s) does not hold %s", s.seats[seat].Hand, keep)
	}
	return nil
}
