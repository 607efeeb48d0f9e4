package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// OutboxConsumer is the name under which Follow keeps its checkpoint.
const OutboxConsumer = "azuld.outbox"

// FollowOptions tune Follow.
type FollowOptions struct {
	// BatchSize is about how many events one transaction handles (default
	// 500; an append's events are never split).
	BatchSize int
	// PollInterval is how long Follow waits when no event is ready and
	// nothing wakes it (default 200ms): an event becomes readable when
	// every older transaction has ended, which nothing announces.
	PollInterval time.Duration
	// Wake, when set (an events.Listener's SubscribeAll), ends a wait as
	// soon as an append is announced.
	Wake <-chan events.Notice
	// RetryAfter is the pause after a failed batch (default 1s).
	RetryAfter time.Duration
	// Observe, when set, is told of every append followed, once its batch
	// has committed.
	Observe func(Followed)
}

// Followed is an append that Follow has handled.
type Followed struct {
	GameID  string
	Version int64 // the game's version after the append
	// RecordedAt is the events' time (their transaction's start), Done
	// when the batch that wrote the append's read models and enqueued its
	// jobs committed. Done - RecordedAt, the lag azuld_outbox_lag_seconds
	// counts, includes the append's own wait for its commit.
	RecordedAt, Done time.Time
}

// Lag is the time from the append's events to the commit of its batch.
func (f Followed) Lag() time.Duration { return f.Done.Sub(f.RecordedAt) }

// Follow makes the log the outbox: the command path's follower of the log
// (play.Service.Follow), which writes the read models the append's own
// statement left out (the turn inbox, the results), enqueues in the same
// transaction the jobs of every append (mails, webhooks, timers, bot
// moves). So every job is enqueued exactly once whatever crashes, and
// none is skipped across overlapping transactions; any number of
// processes may run it (see play.Service.Follow). It returns when ctx
// ends; a failed batch is logged and tried again.
func (n *Notifier) Follow(ctx context.Context, opts FollowOptions) error {
	if n.svc == nil {
		return errors.New("notify: Follow before Attach")
	}
	return n.svc.Follow(ctx, play.FollowOptions{
		Consumer: OutboxConsumer, BatchSize: opts.BatchSize, PollInterval: opts.PollInterval,
		Wake: opts.Wake, RetryAfter: opts.RetryAfter,
		Also: n.enqueueFollowed,
		Committed: func(appends []play.Followed) {
			for _, a := range appends {
				f := Followed{GameID: a.After.ID, Version: a.After.Version, RecordedAt: a.RecordedAt, Done: a.Done}
				if n.outboxLag != nil {
					n.outboxLag.Observe(f.Lag().Seconds())
				}
				if opts.Observe != nil {
					opts.Observe(f)
				}
			}
		},
		Failed: func(error) {
			if n.outboxFailures != nil {
				n.outboxFailures.Inc()
			}
		},
		KeptBytes: func(b int64) {
			if n.followerBytes != nil {
				n.followerBytes.Set(float64(b))
			}
		},
	})
}

// enqueueFollowed enqueues, in the follower's transaction, the jobs of a
// batch's appends.
func (n *Notifier) enqueueFollowed(ctx context.Context, tx pgx.Tx, appends []play.Followed) error {
	games := make([]*play.Game, len(appends))
	for i, a := range appends {
		games[i] = a.After
	}
	// The seats' players of every game of the batch, in one round trip.
	people, err := n.recipientsOfMany(ctx, tx, games)
	if err != nil {
		return err
	}
	var jobs []river.InsertManyParams
	for _, a := range appends {
		if a.Imported() {
			continue // an imported log tells nobody anything
		}
		plan, err := n.plan(a.Before, a.After, a.Appended, people)
		if err != nil {
			return fmt.Errorf("plan the notifications of game %s: %w", a.After.ID, err)
		}
		jobs = append(jobs, plan...)
		if job, ok := botMoveJob(a.After); ok && !play.OnlyTalk(a.Appended) {
			jobs = append(jobs, job)
		}
	}
	if len(jobs) > 0 {
		if _, err := n.client.InsertManyTx(ctx, tx, jobs); err != nil {
			return fmt.Errorf("enqueue notifications: %w", err)
		}
	}
	return nil
}
