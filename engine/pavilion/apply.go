package pavilion

import (
	"fmt"

	"github.com/azuld/azuld/engine"
)

func inconsistent(format string, args ...any) error {
	return fmt.Errorf("%w: %s", engine.ErrInconsistent, fmt.Sprintf(format, args...))
}

// Apply folds one event into s. It checks that the event fits the state
// (a corrupted or forged log gives an error wrapping engine.ErrInconsistent
// and leaves s unchanged) and never draws: every random outcome is in the
// event.
func (s *State) Apply(e *Event) error {
	if e == nil {
		return inconsistent("nil event")
	}
	if e.Kind == EvGameStarted {
		return s.applyGameStarted(e)
	}
	if !s.started {
		return inconsistent("%s before game_started", e.Kind)
	}
	if s.phase == PhaseOver {
		return inconsistent("%s after the end of the game", e.Kind)
	}
	if s.resigned >= 0 && e.Kind != EvGameEnded {
		return inconsistent("%s after seat %d resigned", e.Kind, s.resigned)
	}
	if e.Kind != EvRoundStarted && e.Kind != EvSupplyRefilled && e.Kind != EvAcquisitionEnded && e.Kind != EvGameEnded {
		if e.Seat < 0 || e.Seat >= int8(s.players) {
			return inconsistent("%s: seat %d is not in the game", e.Kind, e.Seat)
		}
	}
	switch e.Kind {
	case EvRoundStarted:
		return s.applyRoundStarted(e)
	case EvTilesTaken:
		return s.applyTilesTaken(e)
	case EvAcquisitionEnded:
		return s.applyAcquisitionEnded(e)
	case EvTilePlaced:
		return s.applyTilePlaced(e)
	case EvBonusTaken:
		return s.applyBonusTaken(e)
	case EvSupplyRefilled:
		return s.applySupplyRefilled(e)
	case EvPassed:
		return s.applyPassed(e)
	case EvResigned:
		if s.resigned >= 0 {
			return inconsistent("seat %d already resigned", s.resigned)
		}
		s.resigned = e.Seat
		return nil
	case EvGameEnded:
		return s.applyGameEnded(e)
	}
	return inconsistent("unknown event kind %d", e.Kind)
}

func (s *State) applyGameStarted(e *Event) error {
	if s.started {
		return inconsistent("game_started twice")
	}
	if e.Ruleset > 1 || e.Players < 2 || e.Players > MaxPlayers || e.BoardOpt > boardMono ||
		e.Seat < 0 || e.Seat >= int8(e.Players) {
		return inconsistent("game_started: bad configuration")
	}
	if !isPermutation(e.WildOrder) || (!e.CustomWild && e.WildOrder != defaultWildOrder) {
		return inconsistent("game_started: wild order is not a permutation of the colours")
	}
	*s = State{
		ruleset: e.Ruleset, boardOpt: e.BoardOpt, customWild: e.CustomWild, wildOrder: e.WildOrder,
		players: e.Players, started: true, firstSeat: e.Seat,
		startSeat: e.Seat, turn: e.Seat, token: -1, bonusSeat: -1, resigned: -1,
	}
	for c := range s.bag {
		s.bag[c] = TilesPerColour
	}
	for i := range int(e.Players) {
		s.seats[i].Score = StartScore
	}
	return nil
}

var defaultWildOrder = [Rounds]Colour{Purple, Green, Orange, Yellow, Blue, Red}

func isPermutation(order [Rounds]Colour) bool {
	var seen [NumColours]bool
	for _, c := range order {
		if !c.Valid() || seen[c] {
			return false
		}
		seen[c] = true
	}
	return true
}

// nextStartSeat is who starts the next round: the token holder, or the
// start player of this round when nobody took the token (Decision S1).
func (s *State) nextStartSeat() int8 {
	if s.token >= 0 {
		return s.token
	}
	return s.startSeat
}

func (s *State) applyRoundStarted(e *Event) error {
	switch {
	case s.round == 0 && s.phase == PhaseNone:
	case s.phase == PhasePlay && s.allPassed() && !s.refillDue && s.round < Rounds && s.resigned < 0:
	default:
		return inconsistent("round_started while round %d is not over", s.round)
	}
	if e.Round != s.round+1 || e.Wild != s.wildOrder[e.Round-1] {
		return inconsistent("round_started: round %d with wild %s does not follow round %d", e.Round, e.Wild, s.round)
	}
	if e.Seat != s.nextStartSeat() {
		return inconsistent("round_started: seat %d starts, expected %d", e.Seat, s.nextStartSeat())
	}
	if e.Players != s.players || int(e.NumFactories) != s.NumFactories() {
		return inconsistent("round_started: %d players, %d factories do not fit the game", e.Players, e.NumFactories)
	}
	for i := range MaxPlayers {
		if e.Returned[i] != s.seats[i].Kept {
			return inconsistent("round_started: seat %d gets %s back, kept %s", i, e.Returned[i], s.seats[i].Kept)
		}
	}
	supplyTarget := 0
	if e.Round == 1 {
		supplyTarget = SupplySize - s.supply.Total()
	}
	next := *s
	d := drawCheck{bag: &next.bag, tower: &next.tower, draws: e.Draws[:]}
	if err := d.fill(&next.supply, int(e.SupplyN), supplyTarget); err != nil {
		return fmt.Errorf("round_started supply: %w", err)
	}
	for f := range MaxFactories {
		target := 0
		if f < next.NumFactories() {
			target = FactorySize
			if next.factories[f].Total() != 0 {
				return inconsistent("round_started: factory F%d is not empty", f+1)
			}
		}
		if err := d.fill(&next.factories[f], int(e.FactoryN[f]), target); err != nil {
			return fmt.Errorf("round_started factory F%d: %w", f+1, err)
		}
	}
	if err := d.finish(e.Poured); err != nil {
		return fmt.Errorf("round_started: %w", err)
	}
	for i := range int(next.players) {
		p := &next.seats[i]
		p.Hand = p.Hand.Plus(p.Kept)
		p.Kept = Tiles{}
		p.Passed = false
	}
	next.round = e.Round
	next.phase = PhaseAcquire
	next.token = -1
	next.startSeat = e.Seat
	next.turn = e.Seat
	next.reveals++
	*s = next
	return nil
}

// drawCheck replays the tiles of one reveal, in order, out of the bag,
// pouring the tower back into the bag when the bag runs empty (docs/rules.md §1).
type drawCheck struct {
	bag, tower *Tiles
	draws      []Colour
	at         int
	poured     int
}

// fill moves the next n listed tiles to dst; target is how many were due:
// fewer is a short draw, allowed only when bag and tower are both empty.
func (d *drawCheck) fill(dst *Tiles, n, target int) error {
	if n > target {
		return inconsistent("%d tiles drawn, at most %d due", n, target)
	}
	if d.at+n > len(d.draws) {
		return inconsistent("more tiles than a reveal can list")
	}
	for _, c := range d.draws[d.at : d.at+n] {
		if d.bag.Total() == 0 {
			if d.tower.Total() == 0 {
				return inconsistent("a tile drawn from an empty bag and tower")
			}
			d.poured += d.tower.Total()
			*d.bag = d.bag.Plus(*d.tower)
			*d.tower = Tiles{}
		}
		if !c.Valid() || d.bag[c] == 0 {
			return inconsistent("%s drawn, the bag holds none", c)
		}
		d.bag[c]--
		dst[c]++
	}
	d.at += n
	if n < target && d.bag.Total()+d.tower.Total() > 0 {
		return inconsistent("short draw (%d of %d) while tiles are left", n, target)
	}
	return nil
}

func (d *drawCheck) finish(poured uint8) error {
	for _, c := range d.draws[d.at:] {
		if c != 0 {
			return inconsistent("tiles listed beyond the draw")
		}
	}
	if int(poured) != d.poured {
		return inconsistent("%d tiles poured from the tower into the bag, the event says %d", d.poured, poured)
	}
	return nil
}

func (s *State) applyTilesTaken(e *Event) error {
	seat := int(e.Seat)
	if s.phase != PhaseAcquire || s.actor() != seat {
		return inconsistent("tiles_taken by seat %d out of turn", seat)
	}
	if !e.Colour.Valid() {
		return inconsistent("tiles_taken: bad colour")
	}
	r, rerr := s.take(seat, e.Source, e.Colour)
	if rerr != nil {
		return inconsistent("tiles_taken: %v", rerr)
	}
	if r.count != e.Count || r.wildTaken != e.WildTaken || r.toCentre != e.Tiles || r.token != e.Token ||
		r.lost != e.Lost || int(s.seats[seat].Score)-int(r.lost) != int(e.Score) {
		return inconsistent("tiles_taken does not match the table")
	}
	wild := s.Wild()
	var taken Tiles
	taken[e.Colour] += r.count
	taken[wild] += r.wildTaken
	if e.Source == Center {
		s.centre = s.centre.Minus(taken)
	} else {
		s.factories[e.Source] = Tiles{}
		s.centre = s.centre.Plus(r.toCentre)
	}
	p := &s.seats[seat]
	p.Hand = p.Hand.Plus(taken)
	if r.token {
		s.token = int8(seat)
	}
	p.Score = e.Score
	s.turn = int8((seat + 1) % int(s.players))
	return nil
}

func (s *State) applyAcquisitionEnded(e *Event) error {
	if s.phase != PhaseAcquire || !s.tableEmpty() {
		return inconsistent("acquisition_ended while tiles are on the table")
	}
	if e.Seat != s.nextStartSeat() || e.Token != (s.token >= 0) {
		return inconsistent("acquisition_ended: seat %d plays first, expected %d", e.Seat, s.nextStartSeat())
	}
	s.phase = PhasePlay
	s.turn = e.Seat
	return nil
}

func (s *State) applyTilePlaced(e *Event) error {
	seat := int(e.Seat)
	if s.phase != PhasePlay || s.actor() != seat {
		return inconsistent("tile_placed by seat %d out of turn", seat)
	}
	if e.Star < 0 || e.Star >= NumStars || e.Space < 1 || e.Space > 6 || !e.Colour.Valid() || e.Wilds > 5 {
		return inconsistent("tile_placed: bad space or colour")
	}
	star, space := int(e.Star), int(e.Space)
	r, rerr := s.place(seat, star, space, e.Colour, int(e.Wilds))
	if rerr != nil {
		return inconsistent("tile_placed: %v", rerr)
	}
	p := &s.seats[seat]
	if r.cost != e.Cost || r.points != e.Points || r.features != e.Features || r.earned != e.Earned ||
		int(p.Score)+int(r.points) != int(e.Score) {
		return inconsistent("tile_placed does not match the board")
	}
	wild := s.Wild()
	own := int(r.cost) - int(e.Wilds)
	p.Hand[e.Colour] -= uint8(own)
	p.Hand[wild] -= e.Wilds
	s.tower[e.Colour] += uint8(own - 1)
	s.tower[wild] += e.Wilds
	p.Board[star][space-1] = cellOf(e.Colour)
	p.Covered |= bit(star, space)
	p.Score = e.Score
	if r.earned > 0 {
		s.phase = PhaseBonus
		s.bonusSeat = e.Seat
		s.bonusDue = r.earned
		return nil
	}
	s.turn = int8(s.nextActive(seat))
	return nil
}

func (s *State) applyBonusTaken(e *Event) error {
	if s.phase != PhaseBonus || e.Seat != s.bonusSeat || e.Earned != s.bonusDue {
		return inconsistent("bonus_taken: no bonus of %d tiles due to seat %d", e.Earned, e.Seat)
	}
	if rerr := s.bonusChoice(int(s.bonusDue), e.Tiles); rerr != nil {
		return inconsistent("bonus_taken: %v", rerr)
	}
	if e.Auto {
		if forced, ok := s.forcedBonus(int(s.bonusDue)); !ok || forced != e.Tiles {
			return inconsistent("bonus_taken: automatic although the seat had a choice")
		}
	}
	s.supply = s.supply.Minus(e.Tiles)
	p := &s.seats[e.Seat]
	p.Hand = p.Hand.Plus(e.Tiles)
	s.phase = PhasePlay
	s.bonusSeat, s.bonusDue = -1, 0
	s.refillDue = s.supply.Total() < SupplySize && s.bag.Total()+s.tower.Total() > 0
	s.turn = int8(s.nextActive(int(e.Seat)))
	return nil
}

func (s *State) applySupplyRefilled(e *Event) error {
	if !s.refillDue {
		return inconsistent("supply_refilled without a bonus taken")
	}
	next := *s
	d := drawCheck{bag: &next.bag, tower: &next.tower, draws: e.Draws[:]}
	want := min(SupplySize-s.supply.Total(), s.bag.Total()+s.tower.Total())
	if int(e.SupplyN) != want {
		return inconsistent("supply_refilled: %d tiles drawn, %d due", e.SupplyN, want)
	}
	if err := d.fill(&next.supply, int(e.SupplyN), want); err != nil {
		return fmt.Errorf("supply_refilled: %w", err)
	}
	if err := d.finish(e.Poured); err != nil {
		return fmt.Errorf("supply_refilled: %w", err)
	}
	next.refillDue = false
	next.reveals++
	*s = next
	return nil
}

func (s *State) applyPassed(e *Event) error {
	seat := int(e.Seat)
	if s.phase != PhasePlay || s.refillDue || int(s.turn) != seat || s.seats[seat].Passed {
		return inconsistent("passed by seat %d out of turn", seat)
	}
	p := &s.seats[seat]
	if e.Auto != (p.Hand.Total() == 0) {
		return inconsistent("passed: automatic pass only with an empty hand")
	}
	if rerr := s.keepCheck(seat, e.Tiles); rerr != nil {
		return inconsistent("passed: %v", rerr)
	}
	discarded := p.Hand.Minus(e.Tiles)
	lost := s.penalty(seat, discarded.Total())
	if discarded != e.Discarded || int(e.Lost) != lost || int(p.Score)-lost != int(e.Score) {
		return inconsistent("passed does not match the hand")
	}
	p.Kept = e.Tiles
	p.Hand = Tiles{}
	s.tower = s.tower.Plus(discarded)
	p.Score = e.Score
	p.Passed = true
	if next := s.nextActive(seat); next >= 0 {
		s.turn = int8(next)
	}
	return nil
}

func (s *State) applyGameEnded(e *Event) error {
	resigned := -1
	switch e.Reason {
	case reasonRounds:
		if s.phase != PhasePlay || !s.allPassed() || s.refillDue || s.round != Rounds || s.resigned >= 0 {
			return inconsistent("game_ended before the end of round %d", Rounds)
		}
	case reasonResigned:
		if s.resigned < 0 {
			return inconsistent("game_ended by resignation, nobody resigned")
		}
		resigned = int(s.resigned)
	default:
		return inconsistent("game_ended: unknown reason")
	}
	if e.Players != s.players {
		return inconsistent("game_ended: %d players, the game has %d", e.Players, s.players)
	}
	final := s.computeFinal(e.Reason, resigned)
	if final != e.Final {
		return inconsistent("game_ended: the final scores do not match the boards")
	}
	for i := range int(s.players) {
		p := &s.seats[i]
		p.Score = final[i].Score
		if e.Reason == reasonRounds {
			s.tower = s.tower.Plus(p.Kept)
			p.Kept = Tiles{}
		}
	}
	s.final = final
	s.reason = e.Reason
	s.phase = PhaseOver
	// A resignation may come while a bonus is due: nothing is due any more.
	s.bonusSeat, s.bonusDue, s.refillDue = -1, 0, false
	return nil
}
