package pavilion

import (
	"fmt"
	"strings"
)

// Summary is a one-line English account of the event for audit logs and
// mails, e.g. "seat 0 took 3 yellow + 1 wild from the centre, took the
// start token, -4 (score 1)". The server puts the seats' names in place
// of "seat N".
func (e Event) Summary() string {
	switch e.Kind {
	case EvGameStarted:
		return fmt.Sprintf("game started: %s, %d players; seat %d starts", rulesetName(e.Ruleset), e.Players, e.Seat)
	case EvRoundStarted:
		var b strings.Builder
		fmt.Fprintf(&b, "round %d: %s is wild, seat %d starts; drawn:", e.Round, e.Wild, e.Seat)
		at := 0
		if e.SupplyN > 0 {
			fmt.Fprintf(&b, " supply %s;", drawsText(e.Draws[:min(int(e.SupplyN), MaxDraws)]))
			at = int(e.SupplyN)
		}
		for i := range int(min(e.NumFactories, MaxFactories)) {
			n := int(e.FactoryN[i])
			fmt.Fprintf(&b, " F%d %s", i+1, drawsText(e.Draws[min(at, MaxDraws):min(at+n, MaxDraws)]))
			if i+1 < int(e.NumFactories) {
				b.WriteByte(',')
			}
			at += n
		}
		if e.Poured > 0 {
			fmt.Fprintf(&b, "; %d tiles went from the tower back into the bag", e.Poured)
		}
		return b.String()
	case EvTilesTaken:
		s := fmt.Sprintf("seat %d took %d %s", e.Seat, e.Count, e.Colour)
		if e.WildTaken > 0 {
			s += fmt.Sprintf(" + %d wild", e.WildTaken)
		}
		s += " from " + sourceText(e.Source)
		if e.Token {
			s += ", took the start token"
		}
		if e.Lost > 0 {
			s += fmt.Sprintf(", −%d", e.Lost)
		}
		if e.Source != Center && e.Tiles.Total() > 0 {
			s += "; " + e.Tiles.countsText() + " to the centre"
		}
		return s
	case EvAcquisitionEnded:
		return fmt.Sprintf("no tiles left to take: seat %d places first", e.Seat)
	case EvTilePlaced:
		s := fmt.Sprintf("seat %d placed %s on star %d, space %d, paying %d tile(s) (%d wild): +%d, score %d",
			e.Seat, e.Colour, e.Star, e.Space, e.Cost, e.Wilds, e.Points, e.Score)
		var done []string
		for f := range NumFeatures {
			if e.Features&(1<<uint(f)) != 0 {
				done = append(done, fmt.Sprintf("%s of star %d", FeatureKind(f), FeatureStar(f)))
			}
		}
		if len(done) > 0 {
			s += "; completed " + strings.Join(done, ", ")
		}
		if e.Earned > 0 {
			s += fmt.Sprintf("; earned %d bonus tile(s)", e.Earned)
		}
		return s
	case EvBonusTaken:
		s := fmt.Sprintf("seat %d took bonus tiles %s", e.Seat, e.Tiles)
		if e.Auto {
			s += " (automatically)"
		}
		return s
	case EvSupplyRefilled:
		s := "the supply was refilled: " + drawsText(e.Draws[:min(int(e.SupplyN), MaxDraws)])
		if e.Poured > 0 {
			s += fmt.Sprintf("; %d tiles went from the tower back into the bag", e.Poured)
		}
		return s
	case EvPassed:
		s := fmt.Sprintf("seat %d passed, keeping %s", e.Seat, e.Tiles)
		if e.Discarded.Total() > 0 {
			s += fmt.Sprintf(", discarding %s", e.Discarded)
		}
		if e.Lost > 0 {
			s += fmt.Sprintf(", −%d", e.Lost)
		}
		s += fmt.Sprintf(" (score %d)", e.Score)
		if e.Auto {
			s += " (automatically)"
		}
		return s
	case EvResigned:
		return fmt.Sprintf("seat %d resigned", e.Seat)
	case EvGameEnded:
		f := finalOf(e.Reason, int(e.Players), &e.Final)
		parts := make([]string, 0, len(f.Players))
		for _, p := range f.Players {
			s := fmt.Sprintf("seat %d %d (rank %d)", p.Seat, p.Score, p.Rank)
			if p.Resigned {
				s += ", resigned"
			}
			parts = append(parts, s)
		}
		return fmt.Sprintf("game over (%s): %s", strings.ReplaceAll(f.Reason, "_", " "), strings.Join(parts, "; "))
	}
	return "unknown event"
}

// sourceText names a factory or the centre.
func sourceText(source int8) string {
	if source == Center {
		return "the centre"
	}
	return fmt.Sprintf("F%d", source+1)
}

// drawsText lists drawn tiles ("-" when none).
func drawsText(draws []Colour) string {
	if len(draws) == 0 {
		return "-"
	}
	names := make([]string, len(draws))
	for i, c := range draws {
		names[i] = c.String()
	}
	return strings.Join(names, " ")
}
