package play

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/projections"
)

// FormerPlayer is how a seat whose player deleted their account is shown:
// the log names players by id only, and the erased account has no name.
const FormerPlayer = projections.FormerPlayer

// nameOf is the name of a seat's player for display: "" on the command
// path (no names read), FormerPlayer for an account that no longer exists;
// "" for the seat of an imported game, which readers show by its number.
func (g *Game) nameOf(playerID string) string {
	if playerID == "" || g.names == nil || projections.ImportedPlayer(playerID) {
		return ""
	}
	if n, ok := g.names[playerID]; ok {
		return n
	}
	return FormerPlayer
}

// fillNames sets the seats' names from g.names.
func (g *Game) fillNames() {
	for i := range g.Seats {
		g.Seats[i].Name = g.nameOf(g.Seats[i].Holder())
	}
}

// Holder is the player a seat shows: its player, or the one it is
// reserved for.
func (s Seat) Holder() string {
	if s.PlayerID != "" {
		return s.PlayerID
	}
	return s.Reserved
}

// displayName is the seat's player name, or the bot's kind.
func (s Seat) displayName() string {
	switch {
	case s.Left == LeftForfeit:
		return FormerPlayer
	case s.Left != "":
		return FormerPlayer + " (" + s.Bot + " bot)"
	case s.Bot != "" && s.Name == "":
		return s.Bot + " bot"
	}
	return s.Name
}

// namedBot is the kind of the bot a seat shows by its kind's name: a
// bot's own seat, not one a player left (shown as the former player).
func (s Seat) namedBot() string {
	if s.Bot != "" && s.Name == "" && s.Left == "" {
		return s.Bot
	}
	return ""
}

// playerNames reads the names of players by id (one query; ids of erased
// accounts are simply not found).
func (s *Service) playerNames(ctx context.Context, ids []string) (map[string]string, error) {
	names := make(map[string]string, len(ids))
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if validUUID(id) && !slices.Contains(valid, id) {
			valid = append(valid, id)
		}
	}
	if len(valid) == 0 {
		return names, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id::text, name FROM players WHERE id = ANY($1::uuid[])`, valid)
	if err != nil {
		return nil, fmt.Errorf("read player names: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("read player names: %w", err)
		}
		names[id] = name
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read player names: %w", err)
	}
	return names, nil
}

// named returns g with its seats' names, read now from the players table:
// what the reads that show a game do. The command path never calls it,
// so a move reads no names.
func (s *Service) named(ctx context.Context, g *Game) (*Game, error) {
	if g == nil {
		return nil, nil
	}
	ids := make([]string, 0, len(g.Seats))
	for _, seat := range g.Seats {
		if id := seat.Holder(); id != "" {
			ids = append(ids, id)
		}
	}
	names, err := s.playerNames(ctx, ids)
	if err != nil {
		return nil, err
	}
	c := g.clone()
	c.names = names
	c.fillNames()
	return c, nil
}

// namesForLog reads the names of every player a log seats, for folds that
// describe it from its start (the audit log, the news, the rounds).
// from is the game the fold starts from (a snapshot, or an empty game).
func (s *Service) namesForLog(ctx context.Context, from *Game, recs []events.Record) (map[string]string, error) {
	var ids []string
	for _, seat := range from.Seats {
		if id := seat.Holder(); id != "" {
			ids = append(ids, id)
		}
	}
	for _, rec := range recs {
		switch rec.Type {
		case EvGameCreated:
			var c struct {
				Seats []struct {
					PlayerID string `json:"player_id"`
					Reserved string `json:"reserved"`
				} `json:"seats"`
			}
			if json.Unmarshal(rec.Data, &c) == nil {
				for _, seat := range c.Seats {
					for _, id := range []string{seat.PlayerID, seat.Reserved} {
						if id != "" {
							ids = append(ids, id)
						}
					}
				}
			}
		case EvSeatJoined:
			var j seatJoined
			if json.Unmarshal(rec.Data, &j) == nil && j.PlayerID != "" {
				ids = append(ids, j.PlayerID)
			}
		}
	}
	return s.playerNames(ctx, ids)
}

// stripNames is the upcaster of imported logs: the name fields that
// game.created's seats and game.joined carried before names left the log
// are removed, so an import stores no personal data. Other records are
// returned as they are.
func stripNames(rec events.Record) (events.Record, error) {
	switch rec.Type {
	case EvGameCreated:
		var c map[string]json.RawMessage
		if err := json.Unmarshal(rec.Data, &c); err != nil {
			return rec, fmt.Errorf("decode %s: %w", rec.Type, err)
		}
		raw, ok := c["seats"]
		if !ok {
			return rec, nil
		}
		var seats []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &seats); err != nil {
			return rec, fmt.Errorf("decode %s seats: %w", rec.Type, err)
		}
		changed := false
		for _, seat := range seats {
			if _, ok := seat["name"]; ok {
				delete(seat, "name")
				changed = true
			}
		}
		if !changed {
			return rec, nil
		}
		b, err := json.Marshal(seats)
		if err != nil {
			return rec, fmt.Errorf("encode %s seats: %w", rec.Type, err)
		}
		c["seats"] = b
		return withData(rec, c)
	case EvSeatJoined:
		var j map[string]json.RawMessage
		if err := json.Unmarshal(rec.Data, &j); err != nil {
			return rec, fmt.Errorf("decode %s: %w", rec.Type, err)
		}
		if _, ok := j["name"]; !ok {
			return rec, nil
		}
		delete(j, "name")
		return withData(rec, j)
	}
	return rec, nil
}

// withData is rec with data re-encoded from fields.
func withData(rec events.Record, fields map[string]json.RawMessage) (events.Record, error) {
	b, err := json.Marshal(fields)
	if err != nil {
		return rec, fmt.Errorf("encode %s: %w", rec.Type, err)
	}
	rec.Data = b
	return rec, nil
}
