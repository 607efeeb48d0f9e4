package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/azuld/azuld/play"
)

// DefaultAwayDelay is how long a player must have been away from a
// game's table before its turn mail goes: long enough that a player who
// plays a bot, or a quick opponent, live on the page gets none, short
// enough that one who walks away hears of the turn soon.
const DefaultAwayDelay = 3 * time.Minute

// recentMoves is how far back (in events) a turn mail looks for its
// player's last move: a move further back is older than any delay.
const recentMoves = 64

// atTable is a turn mail that waits: its player is at the game's table,
// or was there until less than the delay ago.
type atTable struct{ wait time.Duration }

func (e *atTable) Error() string {
	return fmt.Sprintf("the player is at the table; the mail waits %s", e.wait.Round(time.Second))
}

// snoozeAtTable turns a wait at the table into river's snooze (nil for
// any other outcome): the job runs again then (the attempt is not
// counted), and again checks that the turn is still the seat's and the
// player still away.
func snoozeAtTable(err error) error {
	var at *atTable
	if !errors.As(err, &at) {
		return nil
	}
	return river.JobSnooze(at.wait)
}

// awayFor decides whether a seat's turn mail may go now: nil when its
// player has been away from the game's table for the delay (or presence
// is not kept), an *atTable saying how long to wait otherwise. At the
// table means a stream of the game open, on any replica; away since the
// last of: the stream's end, the player's last move by the API or the
// pages (a move by mail is an answer to a mail: the next one is wanted).
func (n *Notifier) awayFor(ctx context.Context, g *play.Game, a MailArgs) error {
	if n.cfg.Presence == nil || a.PlayerID == "" {
		return nil
	}
	here, last, err := n.cfg.Presence.At(ctx, g.ID, a.PlayerID)
	if err != nil {
		return err
	}
	if here {
		return &atTable{wait: n.cfg.AwayDelay}
	}
	moved, err := n.lastMoveAt(ctx, g, a.Seat)
	if err != nil {
		return err
	}
	if moved.After(last) {
		last = moved
	}
	if last.IsZero() {
		return nil
	}
	if wait := last.Add(n.cfg.AwayDelay).Sub(n.now()); wait > 0 {
		return &atTable{wait: wait}
	}
	return nil
}

// lastMoveAt is when a seat last moved in a game by the API or the pages
// among its latest events (zero: not among them).
func (n *Notifier) lastMoveAt(ctx context.Context, g *play.Game, seat int) (time.Time, error) {
	recs, err := n.svc.Events(ctx, g.ID, max(0, g.Version-recentMoves), 0)
	if err != nil {
		return time.Time{}, fmt.Errorf("read the latest moves of game %s: %w", g.ID, err)
	}
	var last time.Time
	for _, r := range recs {
		if r.Type == play.EvMessage || r.Meta.Channel != "api" {
			continue
		}
		if s := r.Meta.Actor.Seat; s != nil && *s == seat && r.RecordedAt.After(last) {
			last = r.RecordedAt
		}
	}
	return last, nil
}
