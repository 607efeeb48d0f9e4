package play

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// MayRead answers whether viewer (a player id; "" for a visitor) may read
// a game, with nil, or with ErrNotFound, the same error for a game that
// does not exist and for one the viewer may not see, so that a private
// game's id cannot be told from an unknown one. Anyone may read a public
// game; a private one only its seated players, and anyone with its id
// while a seat is free (the link is the invitation). It reads the games
// read model, which the append that creates or fills a game writes.
func (s *Service) MayRead(ctx context.Context, gameID, viewer string) error {
	if s.pool == nil {
		// No database (a server built to test its routes): no game to
		// hide, and none to read.
		return nil
	}
	notFound := fmt.Errorf("%w: game %s", ErrNotFound, gameID)
	if !validUUID(gameID) {
		return notFound
	}
	// A game's visibility never changes after its creation: a cached
	// public game needs no query (every move of a public game asks).
	if private, ok := s.cache.private(gameID); ok && !private {
		return nil
	}
	var who *string
	if viewer != "" {
		if !validUUID(viewer) {
			return notFound
		}
		who = &viewer
	}
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT g.visibility = 'public' OR EXISTS (
			SELECT FROM game_seats s WHERE s.game_id = g.id
			AND (s.player_id = $2::uuid OR (s.player_id IS NULL AND s.bot = '')))
		FROM games g WHERE g.id = $1::uuid`, gameID, who).Scan(&ok)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return notFound
	case err != nil:
		return fmt.Errorf("may read game %s: %w", gameID, err)
	case !ok:
		return notFound
	}
	return nil
}
