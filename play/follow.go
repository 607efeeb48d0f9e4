package play

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/projections"
)

// FollowOptions tune Follow.
type FollowOptions struct {
	// Consumer is the name under which Follow keeps its checkpoint
	// (required; one name per follower of the log).
	Consumer string
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
	// Also runs in each batch's transaction after its read models are
	// queued, with the batch's appends in the log's order (the outbox
	// enqueues their jobs there). An error fails the batch.
	Also func(ctx context.Context, tx pgx.Tx, appends []Followed) error
	// Committed, when set, is told of a batch's appends once it has
	// committed.
	Committed func([]Followed)
	// Failed, when set, is told of every failed batch (it comes again).
	Failed func(error)
	// KeptBytes, when set, is told the estimated memory of the games
	// kept folded between batches whenever it changes.
	KeptBytes func(int64)
}

// Followed is one append that Follow handled: the game before and after
// it, and its events.
type Followed struct {
	Before, After *Game
	Appended      []events.Record
	// RecordedAt is the events' time (their transaction's start), Done
	// when the batch that wrote the append's read models committed.
	// Done - RecordedAt includes the append's own wait for its commit.
	RecordedAt, Done time.Time
}

// Lag is the time from the append's events to the commit of its batch.
func (f Followed) Lag() time.Duration { return f.Done.Sub(f.RecordedAt) }

// Imported reports whether the append is several commands' (an imported
// log, written at once) rather than one command's.
func (f Followed) Imported() bool {
	for _, r := range f.Appended[1:] {
		if r.Meta.CommandID != f.Appended[0].Meta.CommandID {
			return true
		}
	}
	return false
}

// Follow writes the read models an append's own statement leaves out
// (the turn inbox, the results, the ratings; see projections.Companions)
// from the log: it reads the appends in the global commit order and
// queues, for each, its read models in one transaction per batch together
// with the consumer's checkpoint (and Also's work). So nothing is written
// twice or skipped whatever crashes, across overlapping transactions too.
// Any number of processes may run it: they take turns under the
// consumer's lock, and when one dies (its transaction ends with its
// connection) another goes on from the checkpoint. It returns when ctx
// ends; a failed batch is logged and tried again.
func (s *Service) Follow(ctx context.Context, opts FollowOptions) error {
	if opts.Consumer == "" {
		return fmt.Errorf("play: Follow without a consumer name")
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
	f := &follower{svc: s, opts: opts, games: map[string]*Game{}, maxBytes: maxFollowedBytes}
	consumer := events.NewConsumer(s.pool, opts.Consumer)
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
			s.log.Log(ctx, level, "following the log failed; the batch will be tried again", "err", err.Error())
			if opts.Failed != nil {
				opts.Failed(err)
			}
			clear(f.games)
			f.gamesBytes = 0
			wait = opts.RetryAfter
		} else {
			done := time.Now()
			for i := range f.started {
				f.started[i].Done = done
			}
			if opts.Committed != nil && len(f.started) > 0 {
				opts.Committed(f.started)
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
	svc   *Service
	opts  FollowOptions
	games map[string]*Game
	// gamesBytes is the estimated memory of games (Game.MemSize), kept
	// under maxBytes.
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
// (and Also's work) written in the consumer's transaction.
func (f *follower) handle(ctx context.Context, tx pgx.Tx, batch []events.Record, b *pgx.Batch) error {
	first := len(f.started)
	for len(batch) > 0 {
		// The events of one stream in one transaction: one append.
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
		after, err := f.svc.Fold(before, appended)
		if err != nil {
			return fmt.Errorf("fold game %s: %w", appended[0].StreamID, err)
		}
		f.keep(after)
		f.started = append(f.started, Followed{Before: before, After: after, Appended: appended, RecordedAt: appended[0].RecordedAt})
	}
	// The read models go in the consumer's last round trip, with its
	// checkpoint. The batch need not wait for its commit to reach the
	// disk: should the server crash before, the checkpoint goes with the
	// read models (and the jobs Also enqueued), and the batch comes
	// again; a worker that takes a job commits (and flushes) after it, so
	// no mail leaves for a job lost.
	b.Queue(`SET LOCAL synchronous_commit TO off`)
	appends := f.started[first:]
	for _, a := range appends {
		if err := projections.QueueFollowed(b, a.Before.StoredRow(), a.After.Row()); err != nil {
			return fmt.Errorf("read models of game %s: %w", a.After.ID, err)
		}
	}
	if f.opts.Also != nil {
		return f.opts.Also(ctx, tx, appends)
	}
	return nil
}

// before is the game as it was before an append's first event.
func (f *follower) before(ctx context.Context, first events.Record) (*Game, error) {
	if g, ok := f.games[first.StreamID]; ok && g.Version == first.Version-1 {
		return g, nil
	}
	g, err := f.svc.GameBefore(ctx, first.StreamID, first.Version)
	if err != nil {
		return nil, fmt.Errorf("load game %s before version %d: %w", first.StreamID, first.Version, err)
	}
	return g, nil
}

// keep remembers a game as an append left it.
func (f *follower) keep(g *Game) {
	if old, ok := f.games[g.ID]; ok {
		f.gamesBytes -= old.MemSize()
		delete(f.games, g.ID)
	}
	if g.Status != StatusFinished {
		size := g.MemSize()
		if len(f.games) >= maxFollowedGames || f.gamesBytes+size > f.maxBytes {
			clear(f.games)
			f.gamesBytes = 0
		}
		f.games[g.ID] = g
		f.gamesBytes += size
	}
	if f.opts.KeptBytes != nil {
		f.opts.KeptBytes(f.gamesBytes)
	}
}
