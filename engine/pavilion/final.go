package pavilion

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/azuld/azuld/engine"
)

const multiColour = NumColours // FinalSeat.StarColour of a multicoloured star

var reasonNames = [...]string{"", "rounds_played", "resigned"}

// computeFinal scores the end of the game (RULES.md §3.7, §3.8) or, when
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

func appendFinalJSON(b []byte, e *Event) []byte {
	f := finalOf(e.Reason, int(e.Players), &e.Final)
	data, err := json.Marshal(f)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, data...)
}

// decodeFinal reads game_ended data back into the compact form.
func decodeFinal(data []byte, e *Event) error {
	var f engine.Final
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("game_ended: %w", err)
	}
	switch f.Reason {
	case "rounds_played":
		e.Reason = reasonRounds
	case "resigned":
		e.Reason = reasonResigned
	default:
		return fmt.Errorf("game_ended: unknown reason %q", f.Reason)
	}
	if len(f.Players) < 2 || len(f.Players) > MaxPlayers {
		return fmt.Errorf("game_ended: %d players", len(f.Players))
	}
	e.Players = uint8(len(f.Players))
	for i, fp := range f.Players {
		if fp.Seat != i {
			return fmt.Errorf("game_ended: player %d has seat %d", i, fp.Seat)
		}
		if fp.Score < -32768 || fp.Score > 32767 || fp.Rank < 1 || fp.Rank > MaxPlayers {
			return fmt.Errorf("game_ended: seat %d: score or rank out of range", i)
		}
		fs := &e.Final[i]
		fs.Score, fs.Rank, fs.Resigned = int16(fp.Score), uint8(fp.Rank), fp.Resigned
		for _, item := range fp.Breakdown {
			if err := decodeScoreItem(item, fs); err != nil {
				return fmt.Errorf("game_ended: seat %d: %w", i, err)
			}
		}
	}
	return nil
}

func decodeScoreItem(item engine.ScoreItem, fs *FinalSeat) error {
	bad := fmt.Errorf("unknown breakdown item %+v", item)
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
