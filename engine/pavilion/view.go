package pavilion

import (
	"fmt"
	"strings"

	"github.com/azuld/azuld/engine"
)

// BoardView is a seat's board in the state JSON.
type BoardView struct {
	// Stars[star][space-1] is the colour on the space, or null.
	Stars [NumStars][6]*string `json:"stars"`
	// Costs[star][space-1] is the printed cost of the space on this side.
	Costs [NumStars][6]int `json:"costs"`
	// StarColours is each star's printed colour (null: the centre star,
	// and every star of the monochrome side).
	StarColours [NumStars]*string `json:"star_colours"`
}

func stringPtr(s string) *string { return &s }

// View is the state JSON of docs/architecture.md §5.4 without the server's fields.
func (s *State) View() engine.View {
	cfg := s.Config()
	v := engine.View{
		Ruleset: cfg.Ruleset, Options: cfg.Options, Round: int(s.round), Phase: s.phase.String(),
		Wild: s.Wild().String(), ToAct: s.ToAct(), Factories: make([]map[string]int, s.NumFactories()),
		Center: engine.CenterView{Tiles: s.centre.countMap(), Marker: s.token < 0 && s.phase != PhaseOver},
		Supply: s.supply.countMap(), Bag: s.bag.Total(), Discard: s.tower.Total(),
		Players: make([]engine.PlayerView, s.players), Final: s.Final(),
	}
	for f := range v.Factories {
		v.Factories[f] = s.factories[f].countMap()
	}
	mono := s.Monochrome()
	for i := range v.Players {
		p := &s.seats[i]
		var b BoardView
		for star := range NumStars {
			if star != CentreStar && !mono {
				b.StarColours[star] = stringPtr(outerStarColour[star].String())
			}
			for sp := range 6 {
				b.Costs[star][sp] = spaceCost(mono, star, sp+1)
				if c := p.Board[star][sp]; !c.Empty() {
					b.Stars[star][sp] = stringPtr(c.Colour().String())
				}
			}
		}
		v.Players[i] = engine.PlayerView{
			Seat: i, Score: int(p.Score), Hand: p.Hand.countMap(), Kept: p.Kept.countMap(),
			Board: b, Passed: p.Passed, Marker: int(s.token) == i,
		}
	}
	return v
}

// gameTitle is the game's name for people, as the mails and pages call
// it; the rule set id ("summer-pavilion") is for machines.
func gameTitle(r uint8) string {
	if r == 1 {
		return "Azul: Summer Pavilion Mini"
	}
	return "Azul: Summer Pavilion"
}

// Text renders the whole table for a monospace font, at most 72 columns
// per line. Labels match the notation: F1.. factories, C the centre, S0..S6
// the stars, spaces 1..6.
func (s *State) Text() string {
	var b strings.Builder
	side := "coloured"
	if s.Monochrome() {
		side = "monochrome"
	}
	fmt.Fprintf(&b, "%s, %d players, %s side\n", gameTitle(s.ruleset), s.players, side)
	fmt.Fprintf(&b, "Round %d/%d  wild: %s  phase: %s", s.round, Rounds, s.Wild(), s.phase)
	switch actor := s.actor(); {
	case s.phase == PhaseBonus:
		fmt.Fprintf(&b, "  seat %d chooses %d bonus tile(s)\n", actor, min(int(s.bonusDue), s.supply.Total()))
	case actor >= 0:
		fmt.Fprintf(&b, "  to act: seat %d\n", actor)
	default:
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Bag %d  Tower %d\n", s.bag.Total(), s.tower.Total())
	fmt.Fprintf(&b, "Supply: %s\n", s.supply.countsText())
	for f := range s.NumFactories() {
		fmt.Fprintf(&b, "F%d: %s\n", f+1, s.factories[f])
	}
	centre := s.centre.countsText()
	if s.token < 0 && s.phase != PhaseOver {
		centre = "token, " + centre
	}
	fmt.Fprintf(&b, "C: %s\n", centre)
	mono := s.Monochrome()
	if mono {
		b.WriteString("Costs: outer stars 3 2 1 4 5 6, centre star 3 on every space\n")
	}
	for i := range int(s.players) {
		p := &s.seats[i]
		fmt.Fprintf(&b, "\nSeat %d: score %d", i, p.Score)
		if int(s.token) == i {
			b.WriteString(", token")
		}
		if p.Passed {
			b.WriteString(", passed")
		}
		if s.resigned == int8(i) {
			b.WriteString(", resigned")
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "  hand: %s\n", p.Hand.countsText())
		fmt.Fprintf(&b, "  kept: %s\n", p.Kept.countsText())
		b.WriteString("                1 2 3 4 5 6\n")
		for star := range NumStars {
			label := "centre"
			if star != CentreStar {
				label = ""
				if !mono {
					label = outerStarColour[star].String()
				}
			}
			fmt.Fprintf(&b, "  S%d %-10s", star, label)
			for _, c := range p.Board[star] {
				if c.Empty() {
					b.WriteString(" .")
				} else {
					b.WriteString(" " + strings.ToUpper(c.Colour().String()[:1]))
				}
			}
			b.WriteString("\n")
		}
	}
	if f := s.Final(); f != nil {
		fmt.Fprintf(&b, "\nGame over (%s). Winner(s): %v\n", f.Reason, f.Winners)
		for _, fp := range f.Players {
			fmt.Fprintf(&b, "  #%d seat %d: %d", fp.Rank, fp.Seat, fp.Score)
			if fp.Resigned {
				b.WriteString(" (resigned)")
			}
			b.WriteString("\n")
			for _, item := range fp.Breakdown {
				fmt.Fprintf(&b, "      %-22s %3d x  %+d\n", item.Item, item.Count, item.Points)
			}
		}
	}
	return b.String()
}
