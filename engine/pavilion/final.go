package pavilion

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/azuld/azuld/engine"
)

const multiColour = NumColours // FinalSeat.StarColour of a multicoloured star

var reasonNames = [...]string{"", "rounds_played", "resigned"}

// computeFinal scores the end of the game (docs/rules.md §3.7, §3.8) or, when
// a seat resigned, ranks the seats by their current scores with the
// resigned seat last.
func (s *State) computeFinal(reason uint8, resigned int) [MaxPlayers]FinalSeat {
	var out [MaxPlayers]FinalSeat
	n := int(s.players)
	side := 0
	if s.Monochrome() {
		side = 1
	}
	for seat := range n {
		p := &s.seats[seat]
		f := &out[seat]
		f.Score = p.Score
		if reason == reasonResigned {
			f.Resigned = seat == resigned
			continue
		}
		bonus := 0
		for star := range NumStars {
			if p.Covered&starMask(star) != starMask(star) {
				continue
			}
			cols := p.starColours(star)
			if cols.colours() == 1 {
				c := p.Board[star][0].Colour()
				f.StarColour[star] = uint8(c)
				f.StarPoints[star] = colourValue[c]
			} else {
				f.StarColour[star] = multiColour
				f.StarPoints[star] = multiValue
			}
			bonus += int(f.StarPoints[star])
		}
		for k := 1; k <= 4; k++ {
			if m := costMasks[side][k-1]; p.Covered&m == m {
				f.AllCost |= 1 << uint(k-1)
				bonus += allCostBonus(k)
			}
		}
		score := int(p.Score) + bonus
		f.KeptN = uint8(p.Kept.Total())
		lost := min(int(f.KeptN), max(0, score-s.Floor()))
		f.KeptLost = uint8(lost)
		f.Score = int16(score - lost)
	}
	for seat := range n {
		rank := 1
		for other := range n {
			if other == seat || out[other].Resigned {
				continue
			}
			if out[seat].Resigned || out[other].Score > out[seat].Score {
				rank++
			}
		}
		out[seat].Rank = uint8(rank)
	}
	return out
}

// Final is the final breakdown, nil until the game is over.
func (s *State) Final() *engine.Final {
	if s.phase != PhaseOver {
		return nil
	}
	f := finalOf(s.reason, int(s.players), &s.final)
	return &f
}

// finalOf expands the compact final into the engine's form.
func finalOf(reason uint8, players int, seats *[MaxPlayers]FinalSeat) engine.Final {
	f := engine.Final{Players: make([]engine.FinalPlayer, 0, players), Winners: []int{}}
	if int(reason) < len(reasonNames) {
		f.Reason = reasonNames[reason]
	}
	for seat := range min(players, MaxPlayers) {
		fs := &seats[seat]
		fp := engine.FinalPlayer{Seat: seat, Score: int(fs.Score), Rank: int(fs.Rank), Resigned: fs.Resigned, Breakdown: []engine.ScoreItem{}}
		for star := range NumStars {
			if fs.StarPoints[star] == 0 {
				continue
			}
			name := "multicoloured"
			if fs.StarColour[star] < NumColours {
				name = colourNames[fs.StarColour[star]]
			}
			fp.Breakdown = append(fp.Breakdown, engine.ScoreItem{
				Item: "star_" + strconv.Itoa(star) + "_" + name, Count: 1, Points: int(fs.StarPoints[star]),
			})
		}
		for k := 1; k <= 4; k++ {
			if fs.AllCost&(1<<uint(k-1)) != 0 {
				fp.Breakdown = append(fp.Breakdown, engine.ScoreItem{Item: "all_" + strconv.Itoa(k) + "s", Count: 1, Points: allCostBonus(k)})
			}
		}
		if fs.KeptN > 0 {
			fp.Breakdown = append(fp.Breakdown, engine.ScoreItem{Item: "kept_tiles", Count: int(fs.KeptN), Points: -int(fs.KeptLost)})
		}
		if fs.Rank == 1 {
			f.Winners = append(f.Winners, seat)
		}
		f.Players = append(f.Players, fp)
	}
	return f
}

// appendFinalJSON writes game_ended: the JSON of engine.Final, field for
// field as encoding/json would, without reflection.
func appendFinalJSON(b []byte, e *Event) []byte {
	f := finalOf(e.Reason, int(e.Players), &e.Final)
	b = append(b, `{"reason":"`...)
	b = append(b, f.Reason...)
	b = append(b, `","players":[`...)
	for i, p := range f.Players {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"seat":`...)
		b = appendInt(b, p.Seat)
		b = append(b, `,"score":`...)
		b = appendInt(b, p.Score)
		b = append(b, `,"rank":`...)
		b = appendInt(b, p.Rank)
		b = append(b, `,"breakdown":[`...)
		for j, item := range p.Breakdown {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"item":"`...)
			b = append(b, item.Item...)
			b = append(b, `","count":`...)
			b = appendInt(b, item.Count)
			b = append(b, `,"points":`...)
			b = appendInt(b, item.Points)
			b = append(b, '}')
		}
		b = append(b, ']')
		if p.Resigned {
			b = append(b, `,"resigned":true`...)
		}
		b = append(b, '}')
	}
	b = append(b, `],"winners":[`...)
	for i, w := range f.Winners {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendInt(b, w)
	}
	return append(b, "]}"...)
}

// final reads game_ended data into the compact form.
func (r *jreader) final(e *Event) {
	if !r.expect('{') {
		return
	}
	var seen [3]bool
	var winners uint8
	first := true
	for {
		k, ok := r.key(&first)
		if !ok {
			break
		}
		switch string(k) {
		case "reason":
			seen[0] = true
			switch string(r.str()) {
			case "rounds_played":
				e.Reason = reasonRounds
			case "resigned":
				e.Reason = reasonResigned
			default:
				r.fail("unknown reason")
			}
		case "players":
			seen[1] = true
			r.finalPlayers(e)
		case "winners":
			seen[2] = true
			if !r.expect('[') {
				return
			}
			elemFirst := true
			for r.elem(&elemFirst) {
				winners |= 1 << uint(r.integer(0, MaxPlayers-1))
			}
		default:
			r.unknown(k)
		}
	}
	if r.err != nil {
		return
	}
	if !seen[0] || !seen[1] || !seen[2] {
		r.fail("game_ended misses a field")
		return
	}
	var rankOne uint8
	for i := range int(e.Players) {
		if e.Final[i].Rank == 1 {
			rankOne |= 1 << uint(i)
		}
	}
	if winners != rankOne {
		r.fail("winners are not the seats ranked 1")
	}
}

func (r *jreader) finalPlayers(e *Event) {
	if !r.expect('[') {
		return
	}
	n := 0
	first := true
	for r.elem(&first) {
		if n >= MaxPlayers {
			r.fail("too many players")
			return
		}
		fs := &e.Final[n]
		if !r.expect('{') {
			return
		}
		var seen [4]bool
		objFirst := true
		for {
			k, ok := r.key(&objFirst)
			if !ok {
				break
			}
			switch string(k) {
			case "seat":
				seen[0] = true
				if r.integer(0, MaxPlayers-1) != n {
					r.fail("players out of seat order")
				}
			case "score":
				seen[1] = true
				fs.Score = int16(r.integer(-maxScore, maxScore))
			case "rank":
				seen[2] = true
				fs.Rank = uint8(r.integer(1, MaxPlayers))
			case "breakdown":
				seen[3] = true
				r.breakdown(fs)
			case "resigned":
				fs.Resigned = r.boolean()
			default:
				r.unknown(k)
			}
			if r.err != nil {
				return
			}
		}
		if !seen[0] || !seen[1] || !seen[2] || !seen[3] {
			r.fail("a final player misses a field")
			return
		}
		n++
	}
	if n < 2 {
		r.fail("a final needs 2 to 4 players")
	}
	e.Players = uint8(n)
}

func (r *jreader) breakdown(fs *FinalSeat) {
	if !r.expect('[') {
		return
	}
	first := true
	for r.elem(&first) {
		if !r.expect('{') {
			return
		}
		var item engine.ScoreItem
		var seen [3]bool
		objFirst := true
		for {
			k, ok := r.key(&objFirst)
			if !ok {
				break
			}
			switch string(k) {
			case "item":
				seen[0] = true
				item.Item = string(r.str())
			case "count":
				seen[1] = true
				item.Count = r.integer(0, 255)
			case "points":
				seen[2] = true
				item.Points = r.integer(-255, 255)
			default:
				r.unknown(k)
			}
			if r.err != nil {
				return
			}
		}
		if !seen[0] || !seen[1] || !seen[2] {
			r.fail("a breakdown item misses a field")
			return
		}
		if err := decodeScoreItem(item, fs); err != nil {
			r.fail("%v", err)
			return
		}
	}
}

func decodeScoreItem(item engine.ScoreItem, fs *FinalSeat) error {
	bad := errBadItem{item}
	switch {
	case item.Item == "kept_tiles":
		if item.Count < 1 || item.Count > 255 || item.Points > 0 || item.Points < -item.Count {
			return bad
		}
		fs.KeptN, fs.KeptLost = uint8(item.Count), uint8(-item.Points)
	case strings.HasPrefix(item.Item, "all_"):
		k, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(item.Item, "all_"), "s"))
		if err != nil || k < 1 || k > 4 || item.Count != 1 || item.Points != allCostBonus(k) || item.Item != "all_"+strconv.Itoa(k)+"s" {
			return bad
		}
		fs.AllCost |= 1 << uint(k-1)
	case strings.HasPrefix(item.Item, "star_"):
		parts := strings.Split(item.Item, "_")
		if len(parts) != 3 || len(parts[1]) != 1 || item.Count != 1 {
			return bad
		}
		star := int(parts[1][0] - '0')
		if star < 0 || star >= NumStars {
			return bad
		}
		col, value := uint8(multiColour), uint8(multiValue)
		if parts[2] != "multicoloured" {
			c, ok := ParseColour(parts[2])
			if !ok || parts[2] != c.String() {
				return bad
			}
			col, value = uint8(c), colourValue[c]
		}
		if item.Points != int(value) {
			return bad
		}
		fs.StarColour[star], fs.StarPoints[star] = col, value
	default:
		return bad
	}
	return nil
}

type errBadItem struct{ item engine.ScoreItem }

func (e errBadItem) Error() string { return fmt.Sprintf("unknown breakdown item %+v", e.item) }
