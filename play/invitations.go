package play

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
)

// A seat named for another player is an invitation: the seat is reserved
// for them (Seat.Reserved) until they accept it (Join), decline it
// (Decline) or it expires (ExpireInvitations). Nobody is seated, and no
// game starts, counts or runs a clock, without the consent of every
// player it names.

// DefaultInvitationTTL is how long an invitation waits for its answer
// unless Config.InvitationTTL says otherwise: a week leaves a player who
// reads their mail once a week time to answer, and a game nobody answers
// does not stay reserved for ever.
const DefaultInvitationTTL = 7 * 24 * time.Hour

// invitationSweepInterval is how often RunInvitations looks for
// invitations past their time. An invitation lives for days: a few
// minutes late is on time.
const invitationSweepInterval = 5 * time.Minute

// EvReservationExpired: nobody answered the invitation to a reserved seat
// in time; the seat is an ordinary free seat from then on, as after a
// decline. The system appends it, never a player.
const EvReservationExpired = "game.reservation_expired"

// reservationExpired frees a reserved seat whose invitation expired.
type reservationExpired struct {
	Seat     int    `json:"seat"`
	PlayerID string `json:"player_id"`
}

// InvitationExpiry is when the invitations of a game created at created
// expire.
func (s *Service) InvitationExpiry(created time.Time) time.Time {
	return created.Add(s.invitationTTL)
}

// RunInvitations expires the invitations left unanswered past their time,
// at start and then periodically, until ctx ends. The log is its only
// state: after a restart it finds the same invitations, and one that
// expired (on any replica) is not reserved any more, so it expires once.
func (s *Service) RunInvitations(ctx context.Context) error {
	ticker := time.NewTicker(invitationSweepInterval)
	defer ticker.Stop()
	for {
		if _, err := s.ExpireInvitations(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "invitation expiry failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// ExpireInvitations frees every reserved seat whose invitation is past
// its time (game.reservation_expired), and returns how many it freed.
// Running it again, or on two replicas at once, frees nothing twice.
func (s *Service) ExpireInvitations(ctx context.Context) (int, error) {
	ids, err := s.gamesWithOldInvitations(ctx, s.now().Add(-s.invitationTTL))
	if err != nil {
		return 0, err
	}
	freed := 0
	for _, id := range ids {
		n, err := s.expireInvitations(ctx, id)
		if err != nil {
			return freed, err
		}
		freed += n
	}
	return freed, nil
}

// expireInvitations expires the invitations of one game that are past
// their time, retrying when another append came first.
func (s *Service) expireInvitations(ctx context.Context, gameID string) (int, error) {
	for range 5 {
		g, err := s.game(ctx, gameID)
		if err != nil {
			return 0, err
		}
		if g.Status != StatusOpen || s.now().Before(s.InvitationExpiry(g.CreatedAt)) {
			return 0, nil
		}
		var batch []events.NewEvent
		for i, seat := range g.Seats {
			if seat.PlayerID != "" || seat.Reserved == "" {
				continue
			}
			ev, err := serverEvent(EvReservationExpired, reservationExpired{Seat: i, PlayerID: seat.Reserved})
			if err != nil {
				return 0, err
			}
			batch = append(batch, ev)
		}
		if len(batch) == 0 {
			return 0, nil
		}
		// The command id names the game's expiry: appended once, whichever
		// replica's sweep gets there first.
		meta := events.Meta{Actor: events.Actor{Kind: "system"}, Channel: "system", CommandID: "expire:" + g.ID}
		_, _, err = s.appendBatch(ctx, g, batch, meta, "", "", "")
		if isConflict(err) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("expire the invitations of game %s: %w", gameID, err)
		}
		s.log.InfoContext(ctx, "invitations expired", "game", g.ID, "seats", len(batch))
		return len(batch), nil
	}
	return 0, fmt.Errorf("expire the invitations of game %s: %w", gameID, events.ErrConflict)
}

// gamesWithOldInvitations lists the open games created before the given
// time in which a seat is still reserved.
func (s *Service) gamesWithOldInvitations(ctx context.Context, createdBefore time.Time) ([]string, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT g.id::text FROM games g
		WHERE g.status = 'open' AND g.created_at < $1
		  AND EXISTS (SELECT FROM jsonb_array_elements(g.seats) s WHERE coalesce(s->>'reserved', '') <> '')
		ORDER BY g.created_at`, createdBefore)
	if err != nil {
		return nil, fmt.Errorf("find expired invitations: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("find expired invitations: %w", err)
	}
	return ids, nil
}

// applyExpired folds game.reservation_expired: as a decline, the seat is
// free for anyone, and the player is counted among those who declined.
func (g *Game) applyExpired(rec events.Record) error {
	var e reservationExpired
	if err := json.Unmarshal(rec.Data, &e); err != nil {
		return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
	}
	return g.freeReserved(e.Seat, e.PlayerID)
}
