package notify

import (
	"context"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/azuld/azuld/events"
)

// Retention of the outbox's bookkeeping, after which Cleanup deletes it.
const (
	// inboundRetention keeps the Message-IDs of processed replies: a mail
	// redelivered later than this would be read again (and its move,
	// whose idempotency key is kept a week, decided again against the
	// game as it is then).
	inboundRetention = 30 * 24 * time.Hour
	// deliveryRetention keeps the delivery log for support questions.
	deliveryRetention = 90 * 24 * time.Hour
	// tokenRetention keeps reply tokens (and stop links) working this long
	// after their game ended.
	tokenRetention = 30 * 24 * time.Hour
)

// CleanupArgs is the daily clean-up of the outbox's bookkeeping.
type CleanupArgs struct{}

// Kind implements river.JobArgs.
func (CleanupArgs) Kind() string { return "azuld_cleanup" }

type cleanupWorker struct {
	river.WorkerDefaults[CleanupArgs]
	n *Notifier
}

func (w *cleanupWorker) Work(ctx context.Context, _ *river.Job[CleanupArgs]) error {
	return w.n.Cleanup(ctx)
}

// cleanupJob runs Cleanup once a day on one of the replicas (river's
// leader), and at start.
func cleanupJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(24*time.Hour),
		func() (river.JobArgs, *river.InsertOpts) { return CleanupArgs{}, nil },
		&river.PeriodicJobOpts{RunOnStart: true})
}

// Cleanup deletes processed-reply records, delivery log rows, the reply
// tokens of long-finished games and idempotency keys past their
// retention. (River prunes its own finished jobs.)
func (n *Notifier) Cleanup(ctx context.Context) error {
	now := n.now()
	steps := []struct {
		what, sql string
		before    time.Time
	}{
		{"processed replies", `DELETE FROM inbound_mails WHERE received_at < $1`, now.Add(-inboundRetention)},
		{"delivery log", `DELETE FROM deliveries WHERE created_at < $1`, now.Add(-deliveryRetention)},
		{"reply tokens", `DELETE FROM mail_tokens t USING games g WHERE g.id = t.game_id AND g.status = 'finished' AND g.last_move_at < $1`, now.Add(-tokenRetention)},
		// A report comes back within days; a month covers the slowest.
		{"return-path tokens", `DELETE FROM bounce_tokens WHERE created_at < $1`, now.Add(-tokenRetention)},
		{"stopped mails", `DELETE FROM mail_stops s USING games g WHERE g.id = s.game_id AND g.status = 'finished' AND g.last_move_at < $1`, now.Add(-tokenRetention)},
		// Presence is worth minutes; a day is far past any delay.
		{"presence", `DELETE FROM presence WHERE seen_at < $1`, now.Add(-24 * time.Hour)},
	}
	for _, st := range steps {
		if _, err := n.pool.Exec(ctx, st.sql, st.before); err != nil {
			return fmt.Errorf("clean up %s: %w", st.what, err)
		}
	}
	// Idempotency keys past their retention: a retry after it is a new
	// request (see events.IdempotencyRetention).
	if _, err := events.DeleteExpiredKeys(ctx, n.pool, now.Add(-events.IdempotencyRetention)); err != nil {
		return fmt.Errorf("clean up: %w", err)
	}
	return nil
}
