package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
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

// Follow makes the log the outbox: it reads the appends in the global
// commit order and, for each, writes the read models the append's own
// statement left out (the turn inbox, the results; see
// play.Config.ReadModelsFollowLog) and enqueues its jobs (mails, webhooks,
// timers, bot moves), in one transaction per batch together with the
// consumer's checkpoint. So every job is enqueued exactly once whatever
// crashes, and none is skipped across overlapping transactions. Any number
// of processes may run it: they take turns under the consumer's lock, and
// when one dies (its transaction ends with its connection) another goes
// on from the checkpoint. It returns when ctx ends; a failed batch is
// logged and tried again.
func (n *Notifier) Follow(ctx context.Context, opts FollowOptions) error {
	if n.svc == nil {
		return errors.New("notify: Follow before Attach")
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 500
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 200 * time.Millisecond
	}
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = time.Second
	}
	f := &follower{n: n, games: map[string]*play.Game{}, maxBytes: maxFollowedBytes}
	consumer := events.NewConsumer(n.pool, OutboxConsumer)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		f.started = f.started[:0]
		handled, err := consumer.ProcessBatch(ctx, opts.BatchSize, f.handle)
		if ctx.Err() != nil {
			return nil
		}
		wait := opts.PollInterval
		if err != nil {
			// A database that is failing over is expected to come back: a
			// warning, not an error, until it does.
			level := slog.LevelError
			if events.Unavailable(err) {
				level = slog.LevelWarn
			}
			n.log.Log(ctx, level, "following the log failed; the batch will be tried again", "err", err.Error())
			if n.outboxFailures != nil {
				n.outboxFailures.Inc()
			}
			clear(f.games)
			wait = opts.RetryAfter
		} else {
			done := time.Now()
			for _, a := range f.started {
				a.Done = done
				if n.outboxLag != nil {
					n.outboxLag.Observe(a.Lag().Seconds())
				}
				if opts.Observe != nil {
					opts.Observe(a)
				}
			}
			if handled >= opts.BatchSize {
				continue
			}
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case _, ok := <-opts.Wake:
			if !ok {
				opts.Wake = nil // the listener stopped: poll only
			}
		}
	}
}

// follower is the state of one Follow: the games as the last batch left
// them, so that the next append of a game is folded onto it instead of
// loaded again.
type follower struct {
	n     *Notifier
	games map[string]*play.Game
	// gamesBytes is the estimated memory of games (play.Game.MemSize),
	// kept under maxBytes.
	gamesBytes, maxBytes int64
	// started are the appends of the batch under way.
	started []Followed
}

// maxFollowedGames and maxFollowedBytes bound the games kept folded
// between batches: 4,096 games of the largest kind (4-player Summer
// Pavilion, about 13 KiB) would take 53 MiB; the bytes bound keeps them
// under 32 MiB. Past either, the map starts afresh: a game not kept is
// loaded again, from its snapshot, by its next append.
const (
	maxFollowedGames = 4096
	maxFollowedBytes = 32 << 20
)

// handle follows one batch: each append in turn, with its read models
// and jobs written in the consumer's transaction.
func (f *follower) handle(ctx context.Context, tx pgx.Tx, batch []events.Record, b *pgx.Batch) error {
	// The appends, folded: the events of one stream in one transaction.
	type step struct {
		appended      []events.Record
		before, after *play.Game
	}
	var steps []step
	var games []*play.Game
	for len(batch) > 0 {
		k := 1
		for k < len(batch) && batch[k].StreamID == batch[0].StreamID && batch[k].TxID == batch[0].TxID {
			k++
		}
		appended := batch[:k]
		batch = batch[k:]
		before, err := f.before(ctx, appended[0])
		if err != nil {
			return err
		}
		after, err := f.n.svc.Fold(before, appended)
		if err != nil {
			return fmt.Errorf("fold game %s: %w", appended[0].StreamID, err)
		}
		f.keep(after)
		f.started = append(f.started, Followed{GameID: after.ID, Version: after.Version, RecordedAt: appended[0].RecordedAt})
		steps = append(steps, step{appended, before, after})
		games = append(games, after)
	}
	// The seats' players of every game of the batch, in one round trip.
	people, err := f.n.recipientsOfMany(ctx, tx, games)
	if err != nil {
		return err
	}
	// The read models go in the consumer's last round trip, with its
	// checkpoint. The batch need not wait for its commit to reach the
	// disk: should the server crash before, the checkpoint goes with the
	// jobs and the read models, and the batch comes again; a worker that
	// takes a job commits (and flushes) after it, so no mail leaves for a
	// job lost.
	b.Queue(`SET LOCAL synchronous_commit TO off`)
	var jobs []river.InsertManyParams
	for _, s := range steps {
		if err := projections.QueueFollowed(b, s.before.StoredRow(), s.after.Row()); err != nil {
			return fmt.Errorf("read models of game %s: %w", s.after.ID, err)
		}
		if imported(s.appended) {
			continue // an imported log tells nobody anything
		}
		plan, err := f.n.plan(s.before, s.after, s.appended, people)
		if err != nil {
			return fmt.Errorf("plan the notifications of game %s: %w", s.after.ID, err)
		}
		jobs = append(jobs, plan...)
		if job, ok := botMoveJob(s.after); ok && !play.OnlyTalk(s.appended) {
			jobs = append(jobs, job)
		}
	}
	if len(jobs) > 0 {
		if _, err := f.n.client.InsertManyTx(ctx, tx, jobs); err != nil {
			return fmt.Errorf("enqueue notifications: %w", err)
		}
	}
	return nil
}

// before is the game as it was before an append's first event.
func (f *follower) before(ctx context.Context, first events.Record) (*play.Game, error) {
	if g, ok := f.games[first.StreamID]; ok && g.Version == first.Version-1 {
		return g, nil
	}
	g, err := f.n.svc.GameBefore(ctx, first.StreamID, first.Version)
	if err != nil {
		return nil, fmt.Errorf("load game %s before version %d: %w", first.StreamID, first.Version, err)
	}
	return g, nil
}

// keep remembers a game as an append left it.
func (f *follower) keep(g *play.Game) {
	if old, ok := f.games[g.ID]; ok {
		f.gamesBytes -= old.MemSize()
		delete(f.games, g.ID)
	}
	if g.Status != play.StatusFinished {
		size := g.MemSize()
		if len(f.games) >= maxFollowedGames || f.gamesBytes+size > f.maxBytes {
			clear(f.games)
			f.gamesBytes = 0
		}
		f.games[g.ID] = g
		f.gamesBytes += size
	}
	if f.n.followerBytes != nil {
		f.n.followerBytes.Set(float64(f.gamesBytes))
	}
}

// imported reports whether a transaction's events are several commands'
// (an imported log, written at once) rather than one command's append.
func imported(appended []events.Record) bool {
	for _, r := range appended[1:] {
		if r.Meta.CommandID != appended[0].Meta.CommandID {
			return true
		}
	}
	return false
}
