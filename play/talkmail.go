package play

import (
	"context"
	"fmt"
)

// HasMessagesAfter reports whether game gameID's log holds table talk
// after version after. It answers from the events' primary key and type
// without folding anything, so a mail that has no message to bring (most
// turn mails) costs one small query.
func (s *Service) HasMessagesAfter(ctx context.Context, gameID string, after int64) (bool, error) {
	if !validUUID(gameID) {
		return false, nil
	}
	var found bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM events WHERE stream_id = $1::uuid AND version > $2 AND type = $3)`,
		gameID, after, EvMessage).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("look for messages of game %s: %w", gameID, err)
	}
	return found, nil
}
