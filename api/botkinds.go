package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/api/web"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/projections"
)

// botKind is one bot kind a seat may hold, as GET /v1/bots lists it: its
// kind (what a seat names), its name in the reader's language, its level
// (1–6, 0 for random, greedy and search) and its ratings at the default
// budget, by rule set and number of players (none before its first rated
// game).
type botKind struct {
	Kind    string        `json:"kind"`
	Name    string        `json:"name"`
	Level   int           `json:"level,omitempty"`
	Ratings []ratingEntry `json:"ratings"`
}

// botList is the body of GET /v1/bots.
type botList struct {
	Bots []botKind `json:"bots"`
}

// listBots serves the bot kinds a seat may hold with their names and
// ratings: what a client shows where a player chooses a bot.
func (s *Server) listBots(c echo.Context) error {
	if err := s.limitReads(c); err != nil {
		return err
	}
	if s.pool == nil {
		return unavailable("no_database")
	}
	rows, err := projections.BotRatings(c.Request().Context(), s.pool, s.rulesetIDs())
	if err != nil {
		return err
	}
	l := s.reader(c)
	out := botList{Bots: make([]botKind, 0, len(bots.Kinds()))}
	for _, k := range bots.Kinds() {
		b := botKind{Kind: k, Name: web.BotName(l, k), Level: bots.Level(k), Ratings: []ratingEntry{}}
		for _, r := range rows {
			if r.Bot != k {
				continue
			}
			e := newRatingEntry(r)
			e.Bot, e.Name, e.Ruleset, e.Players = "", "", r.Ruleset, r.Players
			b.Ratings = append(b.Ratings, e)
		}
		out.Bots = append(out.Bots, b)
	}
	return c.JSON(http.StatusOK, out)
}
