package pavilion

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/azuld/azuld/engine"
)

// Start validates a configuration and returns the events that set up a new
// game: game_started (seat 0 starts round 1) and round 1's deal (the supply
// of 10, then every factory), drawn from seed.Rand(0). The events are
// appended to buf.
func Start(cfg engine.Config, seed engine.Seed, buf []Event) ([]Event, error) {
	ev, err := gameStartedEvent(cfg)
	if err != nil {
		return buf, err
	}
	var s State
	start := len(buf)
	buf = append(buf, ev)
	if err := s.Apply(&buf[start]); err != nil {
		return buf[:start], fmt.Errorf("start: %w", err)
	}
	buf, err = s.settle(draws{seed: seed}, buf)
	if err != nil {
		return buf[:start], err
	}
	return buf, nil
}

func gameStartedEvent(cfg engine.Config) (Event, error) {
	ev := Event{Kind: EvGameStarted, Seat: 0, WildOrder: defaultWildOrder}
	switch cfg.Ruleset {
	case RulesetPavilion:
		ev.Ruleset = 0
	case RulesetMini:
		ev.Ruleset = 1
	default:
		return ev, fmt.Errorf("%w: ruleset %q is not a Summer Pavilion rule set", engine.ErrBadCommand, cfg.Ruleset)
	}
	if cfg.Players < 2 || cfg.Players > MaxPlayers {
		return ev, fmt.Errorf("%w: %s is played by 2 to 4 players, not %d", engine.ErrBadCommand, cfg.Ruleset, cfg.Players)
	}
	ev.Players = uint8(cfg.Players)
	if cfg.Options.Wall != "" {
		return ev, fmt.Errorf("%w: option wall %q is an Azul option, not a Summer Pavilion one", engine.ErrBadCommand, cfg.Options.Wall)
	}
	switch cfg.Options.Board {
	case "":
		ev.BoardOpt = boardDefault
	case "coloured":
		ev.BoardOpt = boardColoured
	case "monochrome":
		ev.BoardOpt = boardMono
	default:
		return ev, fmt.Errorf("%w: option board %q: use \"coloured\" or \"monochrome\"", engine.ErrBadCommand, cfg.Options.Board)
	}
	if cfg.Options.WildOrder != nil {
		if len(cfg.Options.WildOrder) != Rounds {
			return ev, fmt.Errorf("%w: option wild_order needs the %d colours, %d given", engine.ErrBadCommand, Rounds, len(cfg.Options.WildOrder))
		}
		for i, name := range cfg.Options.WildOrder {
			c, ok := ParseColour(name)
			if !ok || name != c.String() {
				return ev, fmt.Errorf("%w: option wild_order: %q is not a colour (purple, green, orange, yellow, blue, red)", engine.ErrBadCommand, name)
			}
			ev.WildOrder[i] = c
		}
		if !isPermutation(ev.WildOrder) {
			return ev, fmt.Errorf("%w: option wild_order must name each of the six colours once", engine.ErrBadCommand)
		}
		ev.CustomWild = true
	}
	return ev, nil
}

// Decide validates cmd, issued by seat, against s and appends to buf the
// events it causes, with every automatic consequence (end of the acquire
// phase, automatic bonus choices and passes, the supply refill, the next
// round's deal, the end of the game). Random draws come from
// seed.Rand(reveal index). s is not changed. On error buf is returned as
// given.
func Decide(s *State, seat int, cmd Cmd, seed engine.Seed, buf []Event) ([]Event, error) {
	return s.decideAll(seat, cmd, draws{seed: seed}, buf)
}

// DecideRand is Decide with every random reveal of the batch drawn from
// rng instead of the game's seed. Bots use it for playouts over imagined
// draws: it allocates nothing, where seed.Rand builds a new generator per
// reveal. The events it returns are legal but are not the game's own draws.
func DecideRand(s *State, seat int, cmd Cmd, rng *rand.Rand, buf []Event) ([]Event, error) {
	return s.decideAll(seat, cmd, draws{rng: rng}, buf)
}

// draws is where a batch's reveals come from: the game's seed, or a
// caller's generator (DecideRand).
type draws struct {
	seed engine.Seed
	rng  *rand.Rand
}

// rand is the random source of the reveal-th reveal.
func (d draws) rand(reveal int) *rand.Rand {
	if d.rng != nil {
		return d.rng
	}
	return d.seed.Rand(reveal)
}

func (s *State) decideAll(seat int, cmd Cmd, seed draws, buf []Event) ([]Event, error) {
	if s == nil || !s.started {
		return buf, fmt.Errorf("%w: no game", engine.ErrBadCommand)
	}
	if err := cmd.wellFormed(); err != nil {
		return buf, err
	}
	if s.phase == PhaseOver {
		return buf, engine.ErrGameOver
	}
	if seat < 0 || seat >= int(s.players) {
		return buf, &turnError{seat: int8(seat), why: turnNoSuchSeat}
	}
	start := len(buf)
	// The command is checked against s itself (refusing copies nothing);
	// its events are then applied to a copy, which settles the automatic
	// consequences.
	buf, err := s.decide(seat, cmd, buf)
	if err != nil {
		return buf[:start], err
	}
	sc := *s
	for i := start; i < len(buf); i++ {
		if err := sc.Apply(&buf[i]); err != nil {
			// Decide only emits events it has checked: this is a bug.
			return buf[:start], fmt.Errorf("internal: %w", err)
		}
	}
	if buf, err = sc.settle(seed, buf); err != nil {
		return buf[:start], err
	}
	return buf, nil
}

// decide appends the events a command causes directly; s is not changed.
func (s *State) decide(seat int, cmd Cmd, buf []Event) ([]Event, error) {
	if cmd.Kind == CmdResign {
		if s.resigned >= 0 {
			return buf, engine.ErrGameOver
		}
		return append(buf, Event{Kind: EvResigned, Seat: int8(seat)}), nil
	}
	if actor := s.actor(); actor != seat {
		switch {
		case actor < 0:
			return buf, &turnError{seat: int8(seat), why: turnNobody}
		case s.phase == PhaseBonus:
			return buf, &turnError{seat: int8(actor), why: turnBonus}
		}
		return buf, &turnError{seat: int8(actor), why: turnOther}
	}
	switch s.phase {
	case PhaseAcquire:
		if cmd.Kind != CmdTake {
			return buf, ruleError("acquire-phase", refTake, "tiles are taken now: phase 2 (place, pass, bonus) begins when the factories and the centre are empty")
		}
		return s.decideTake(seat, cmd, buf)
	case PhasePlay:
		switch cmd.Kind {
		case CmdPlace:
			return s.decidePlace(seat, cmd, buf)
		case CmdPass:
			return s.decidePass(seat, cmd, buf)
		case CmdTake:
			return buf, ruleError("play-phase", refPlay, "phase 1 is over: place a tile or pass")
		default:
			return buf, ruleError("no-bonus-due", refPlay, "no bonus tiles are due: place a tile or pass")
		}
	case PhaseBonus:
		if cmd.Kind != CmdBonus {
			return buf, ruleError("bonus-due", refPlay, "choose your %d bonus tile(s) from the supply first", s.bonusDue)
		}
		if rerr := s.bonusChoice(int(s.bonusDue), cmd.Tiles); rerr != nil {
			return buf, rerr
		}
		return append(buf, Event{Kind: EvBonusTaken, Seat: int8(seat), Tiles: cmd.Tiles, Earned: s.bonusDue}), nil
	}
	return buf, &turnError{seat: int8(seat), why: turnNobody}
}

// Reasons of a turnError.
const (
	turnOther = iota
	turnBonus
	turnNobody
	turnNoSuchSeat
)

// turnError is engine.ErrNotYourTurn with the reason. Its message is built
// only when asked for: bots and tests try many moves out of turn.
type turnError struct {
	seat int8
	why  uint8
}

func (e *turnError) Error() string {
	prefix := engine.ErrNotYourTurn.Error() + ": "
	switch e.why {
	case turnBonus:
		return prefix + "seat " + strconv.Itoa(int(e.seat)) + " must choose bonus tiles first"
	case turnNobody:
		return prefix + "nobody can act now"
	case turnNoSuchSeat:
		return prefix + "there is no seat " + strconv.Itoa(int(e.seat)) + " in this game"
	}
	return prefix + "it is seat " + strconv.Itoa(int(e.seat)) + "'s turn"
}

func (e *turnError) Unwrap() error { return engine.ErrNotYourTurn }

func (s *State) decideTake(seat int, cmd Cmd, buf []Event) ([]Event, error) {
	r, rerr := s.take(seat, cmd.Source, cmd.Colour)
	if rerr != nil {
		return buf, rerr
	}
	return append(buf, Event{
		Kind: EvTilesTaken, Seat: int8(seat), Source: cmd.Source, Colour: cmd.Colour,
		Count: r.count, WildTaken: r.wildTaken, Tiles: r.toCentre, Token: r.token, Lost: r.lost,
		Score: s.seats[seat].Score - int16(r.lost),
	}), nil
}

func (s *State) decidePlace(seat int, cmd Cmd, buf []Event) ([]Event, error) {
	r, rerr := s.place(seat, int(cmd.Star), int(cmd.Space), cmd.Colour, int(cmd.Wilds))
	if rerr != nil {
		return buf, rerr
	}
	if cmd.HasBonus && r.earned == 0 {
		return buf, ruleError("no-bonus-earned", refPlay, "this placement completes no window, statue or pillar: leave out the bonus")
	}
	if cmd.HasBonus {
		// Check the choice against the supply before anything changes:
		// placing never changes the supply.
		if rerr := s.bonusChoice(int(r.earned), cmd.Tiles); rerr != nil {
			return buf, rerr
		}
	}
	buf = append(buf, Event{
		Kind: EvTilePlaced, Seat: int8(seat), Star: cmd.Star, Space: cmd.Space, Colour: cmd.Colour,
		Cost: r.cost, Wilds: cmd.Wilds, Points: r.points, Score: s.seats[seat].Score + int16(r.points),
		Features: r.features, Earned: r.earned,
	})
	if !cmd.HasBonus {
		return buf, nil
	}
	return append(buf, Event{Kind: EvBonusTaken, Seat: int8(seat), Tiles: cmd.Tiles, Earned: r.earned}), nil
}

func (s *State) decidePass(seat int, cmd Cmd, buf []Event) ([]Event, error) {
	if rerr := s.keepCheck(seat, cmd.Tiles); rerr != nil {
		return buf, rerr
	}
	discarded := s.seats[seat].Hand.Minus(cmd.Tiles)
	lost := s.penalty(seat, discarded.Total())
	return append(buf, Event{
		Kind: EvPassed, Seat: int8(seat), Tiles: cmd.Tiles, Discarded: discarded,
		Lost: uint8(lost), Score: s.seats[seat].Score - int16(lost),
	}), nil
}

// emit applies ev to sc and appends it.
func (sc *State) emit(buf []Event, ev Event) ([]Event, error) {
	buf = append(buf, ev)
	if err := sc.Apply(&buf[len(buf)-1]); err != nil {
		// Decide only emits events it has checked: this is a bug.
		return buf[:len(buf)-1], fmt.Errorf("internal: %w", err)
	}
	return buf, nil
}

// settle appends the automatic events that follow until a seat must act or
// the game is over.
func (sc *State) settle(seed draws, buf []Event) ([]Event, error) {
	for {
		var ev Event
		switch {
		case sc.phase == PhaseOver:
			return buf, nil
		case sc.resigned >= 0:
			ev = Event{Kind: EvGameEnded, Reason: reasonResigned, Players: sc.players,
				Final: sc.computeFinal(reasonResigned, int(sc.resigned))}
		case sc.phase == PhaseNone:
			ev = sc.dealEvent(seed)
		case sc.phase == PhaseAcquire && sc.tableEmpty():
			ev = Event{Kind: EvAcquisitionEnded, Seat: sc.nextStartSeat(), Token: sc.token >= 0}
		case sc.phase == PhaseBonus:
			forced, ok := sc.forcedBonus(int(sc.bonusDue))
			if !ok {
				return buf, nil
			}
			ev = Event{Kind: EvBonusTaken, Seat: sc.bonusSeat, Tiles: forced, Earned: sc.bonusDue, Auto: true}
		case sc.refillDue:
			ev = sc.refillEvent(seed)
		case sc.phase == PhasePlay && sc.allPassed():
			if sc.round < Rounds {
				ev = sc.dealEvent(seed)
			} else {
				ev = Event{Kind: EvGameEnded, Reason: reasonRounds, Players: sc.players,
					Final: sc.computeFinal(reasonRounds, -1)}
			}
		case sc.phase == PhasePlay && sc.seats[sc.turn].Hand.Total() == 0:
			ev = Event{Kind: EvPassed, Seat: sc.turn, Score: sc.seats[sc.turn].Score, Auto: true}
		default:
			return buf, nil
		}
		var err error
		if buf, err = sc.emit(buf, ev); err != nil {
			return buf, err
		}
	}
}

// drawer draws tiles one by one for one reveal: rng.IntN(tiles in bag)
// picks a tile of the bag in colour order; an empty bag is first refilled
// with the whole tower; with both empty the draw stops short.
type drawer struct {
	rng        *rand.Rand
	bag, tower Tiles
	poured     int
}

func (d *drawer) draw() (Colour, bool) {
	if d.bag.Total() == 0 {
		if d.tower.Total() == 0 {
			return 0, false
		}
		d.poured += d.tower.Total()
		d.bag, d.tower = d.bag.Plus(d.tower), Tiles{}
	}
	r := d.rng.IntN(d.bag.Total())
	for c, n := range d.bag {
		if r < int(n) {
			d.bag[c]--
			return Colour(c), true
		}
		r -= int(n)
	}
	return 0, false // unreachable: r < total
}

// drawN draws up to n tiles into draws[at:] and returns how many it drew.
func (d *drawer) drawN(draws []Colour, at, n int) int {
	k := 0
	for k < n {
		c, ok := d.draw()
		if !ok {
			break
		}
		draws[at+k] = c
		k++
	}
	return k
}

// dealEvent draws the next round's factories (and round 1's supply).
func (sc *State) dealEvent(seed draws) Event {
	round := sc.round + 1
	ev := Event{
		Kind: EvRoundStarted, Round: round, Wild: sc.wildOrder[round-1], Seat: sc.nextStartSeat(),
		Players: sc.players, NumFactories: uint8(sc.NumFactories()),
	}
	for i := range int(sc.players) {
		ev.Returned[i] = sc.seats[i].Kept
	}
	d := drawer{rng: seed.rand(sc.Reveals()), bag: sc.bag, tower: sc.tower}
	at := 0
	if round == 1 {
		n := d.drawN(ev.Draws[:], at, SupplySize-sc.supply.Total())
		ev.SupplyN = uint8(n)
		at += n
	}
	for f := range sc.NumFactories() {
		n := d.drawN(ev.Draws[:], at, FactorySize)
		ev.FactoryN[f] = uint8(n)
		at += n
	}
	ev.Poured = uint8(d.poured)
	return ev
}

// refillEvent draws the supply back up to 10 after a bonus.
func (sc *State) refillEvent(seed draws) Event {
	ev := Event{Kind: EvSupplyRefilled}
	d := drawer{rng: seed.rand(sc.Reveals()), bag: sc.bag, tower: sc.tower}
	ev.SupplyN = uint8(d.drawN(ev.Draws[:], 0, SupplySize-sc.supply.Total()))
	ev.Poured = uint8(d.poured)
	return ev
}

// Actor is the seat that must act now (resigning aside), -1 when nobody
// can: ToAct without the slice, for hot loops.
func (s *State) Actor() int { return s.actor() }

// Legal reports whether cmd is accepted for seat in s, without building
// the automatic consequences.
func Legal(s *State, seat int, cmd Cmd) bool {
	if s == nil || !s.started || s.phase == PhaseOver || cmd.wellFormed() != nil || seat < 0 || seat >= int(s.players) {
		return false
	}
	var arr [2]Event
	_, err := s.decide(seat, cmd, arr[:0])
	return err == nil
}
