// Package tabletext draws a game's table as monospace text in a reader's
// words, for the places that are not a mail: the API's text/plain answers
// and the web page's table for readers without JavaScript. The drawing is
// the turn mail's (mail/compose), so every text table reads the same.
package tabletext

import (
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// Of is g's table in l's words; the seat of reader (a player id, "" for
// none) is marked as the reader's. A game not yet started has no table.
func Of(l *i18n.Localizer, g *play.Game, reader string) string {
	if g.State == nil {
		return ""
	}
	v := g.State.View()
	info := compose.GameInfo{ID: g.ID, Ruleset: g.Config.Ruleset, Version: g.Version, View: &v, ToAct: g.ToAct()}
	scores := g.State.Scores()
	mine := -1
	for seat, st := range g.Seats {
		ps := compose.PlayerScore{Seat: seat, Name: st.Name}
		if ps.Name == "" && st.Bot != "" {
			ps.Name = st.Bot
		}
		if seat < len(scores) {
			ps.Score = scores[seat]
		}
		info.Players = append(info.Players, ps)
		if reader != "" && st.PlayerID == reader && mine < 0 {
			mine = seat
		}
	}
	return compose.TableText(l, info, mine)
}
