package pavilion

import "github.com/azuld/azuld/engine"

// AppendLegal appends every legal command of seat in s to dst, in a fixed
// order, and returns it. Places are listed without a bonus choice (the
// bonus is then chosen with a separate bonus command); a place with the
// bonus inside is legal too but not listed. Resigning is always legal and
// never listed.
func AppendLegal(dst []Cmd, s *State, seat int) []Cmd {
	if s == nil || seat < 0 || seat >= int(s.players) || s.actor() != seat {
		return dst
	}
	switch s.phase {
	case PhaseAcquire:
		wild := s.Wild()
		for f := -1; f < s.NumFactories(); f++ {
			src := s.centre
			if f >= 0 {
				src = s.factories[f]
			}
			total := src.Total()
			if total == 0 {
				continue
			}
			if int(src[wild]) == total {
				dst = append(dst, Take(f, wild))
				continue
			}
			for c, n := range src {
				if n > 0 && Colour(c) != wild {
					dst = append(dst, Take(f, Colour(c)))
				}
			}
		}
	case PhasePlay:
		dst = s.appendPlaces(dst, seat)
		dst = appendSubsets(dst, CmdPass, s.seats[seat].Hand, 0, Tiles{}, KeepLimit, false)
	case PhaseBonus:
		k := min(int(s.bonusDue), s.supply.Total())
		dst = appendSubsets(dst, CmdBonus, s.supply, 0, Tiles{}, k, true)
	}
	return dst
}

// AppendPlaces appends the placements of seat (AppendLegal's places
// alone, without the many ways of passing): for bots' playouts, which pass
// only when nothing can be placed.
func AppendPlaces(dst []Cmd, s *State, seat int) []Cmd {
	if s == nil || seat < 0 || seat >= int(s.players) || s.actor() != seat || s.phase != PhasePlay {
		return dst
	}
	return s.appendPlaces(dst, seat)
}

// appendPlaces lists every placement of seat, one per wild count.
func (s *State) appendPlaces(dst []Cmd, seat int) []Cmd {
	p := &s.seats[seat]
	wild := s.Wild()
	mono := s.Monochrome()
	for star := range NumStars {
		for c := range Colour(NumColours) {
			if p.Hand[c] == 0 || s.colourFits(p, star, c) != fits {
				continue
			}
			for space := 1; space <= 6; space++ {
				if !p.Board[star][space-1].Empty() {
					continue
				}
				cost := spaceCost(mono, star, space)
				if c == wild {
					if int(p.Hand[c]) >= cost {
						dst = append(dst, Place(star, space, c, 0))
					}
					continue
				}
				lo := max(0, cost-int(p.Hand[c]))
				hi := min(cost-1, int(p.Hand[wild]))
				for w := lo; w <= hi; w++ {
					dst = append(dst, Place(star, space, c, w))
				}
			}
		}
	}
	return dst
}

// appendSubsets lists the sub-multisets of from, of size at most k (or
// exactly k when exact), as commands of kind; colours before c are fixed
// in cur.
func appendSubsets(dst []Cmd, kind CmdKind, from Tiles, c int, cur Tiles, k int, exact bool) []Cmd {
	if c == NumColours {
		if !exact || k == 0 {
			dst = append(dst, Cmd{Kind: kind, Tiles: cur})
		}
		return dst
	}
	for n := 0; n <= int(from[c]) && n <= k; n++ {
		cur[c] = uint8(n)
		dst = appendSubsets(dst, kind, from, c+1, cur, k-n, exact)
	}
	return dst
}

// LegalMoves lists every legal command of seat with its canonical JSON and
// notation (see AppendLegal).
func (s *State) LegalMoves(seat int) []engine.Move {
	cmds := AppendLegal(nil, s, seat)
	moves := make([]engine.Move, len(cmds))
	for i, c := range cmds {
		moves[i] = engine.NewMove(c)
	}
	return moves
}
