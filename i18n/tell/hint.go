package tell

import (
	"strconv"

	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/i18n"
)

// Reason is one reason of a hint in the reader's words: a verb phrase
// whose subject is the move, without a full stop ("completes line 4
// (blue)", "scores 7 points"), so that "It …" (tell's callers' frame in
// every language) reads as a sentence.
func Reason(l *i18n.Localizer, r bots.Reason) string {
	switch r.Kind {
	case bots.ReasonCompletesLine:
		return l.T("tell.hint.completes_line", "Line", l.Num(r.Line), "Colour", colourNoun(l, r.Colour))
	case bots.ReasonScores:
		return l.T("tell.hint.scores", "Points", l.N("game.points", r.Points))
	case bots.ReasonCompletes:
		return l.T("tell.hint.completes", "Feature", l.T("tell.pavilion.feature."+r.Feature.Kind, "Star", strconv.Itoa(r.Feature.Star)))
	case bots.ReasonStartMarker:
		if r.Family == "pavilion" {
			return l.T("tell.hint.start_token")
		}
		return l.T("tell.hint.start_marker")
	case bots.ReasonWilds:
		return l.T("tell.hint.wilds", "Wilds", l.N("tell.pavilion.wilds", r.Count))
	case bots.ReasonBonus:
		return l.T("tell.hint.bonus", "Tiles", tileCounts(l, r.Tiles))
	case bots.ReasonKeeps:
		return l.T("tell.hint.keeps", "Tiles", tileCounts(l, r.Tiles))
	case bots.ReasonFloor:
		return l.T("tell.hint.floor", "Tiles", tilesOf(l, r.Colour, r.Count))
	}
	return l.T("tell.hint.search")
}

// Reasons are a hint's reasons in the reader's words, as one sentence's
// list: "scores 7 points, completes line 4 (blue)".
func Reasons(l *i18n.Localizer, rs []bots.Reason) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = Reason(l, r)
	}
	return out
}
