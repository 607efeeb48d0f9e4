package history

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/play"
)

// Options say what to generate.
type Options struct {
	// Finished and Running are how many games to write of each kind.
	Finished, Running int
	// Players is the size of the community the games' seats are drawn
	// from (0: one player per 20 games, at least 8).
	Players int
	// Mover chooses the players' moves: bots.Greedy (default) or
	// bots.Random.
	Mover string
	// BotSeats is the share of seats held by a bot (random or greedy).
	BotSeats float64
	// Joined is the share of games created with a free seat that a
	// second player then joins.
	Joined float64
	// Keyed is the share of the players' moves sent with an
	// Idempotency-Key.
	Keyed float64
	// Span is how far back the finished games go (default two years);
	// Gap the mean time between a player's moves (default 30 minutes).
	Span, Gap time.Duration
	// Batch is how many games are written per group of transactions
	// (default 2000).
	Batch int
	// Workers play games in parallel (default GOMAXPROCS).
	Workers int
	// Seed fixes the choice of rule sets, seats and times (the games'
	// own seeds are always secret random ones).
	Seed uint64
	// Now is the end of the history (default time.Now).
	Now func() time.Time
	// Progress, when set, is called after each batch is written.
	Progress func(Stats)
}

// Stats is what has been written so far.
type Stats struct {
	Games, Finished, Running int
	Events, Appends          int64
	Players                  int
	Elapsed                  time.Duration
	// Playing is the time spent playing the games in memory (on
	// Workers goroutines), Writing the time spent writing them; the two
	// overlap.
	Playing, Writing time.Duration
}

// GamesPerSecond is the rate so far.
func (s Stats) GamesPerSecond() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Games) / s.Elapsed.Seconds()
}

// variant is one rule set with options.
type variant struct {
	ruleset string
	options engine.Options
}

// variants are every rule set and option azuld offers.
var variants = []variant{
	{"azul-mini", engine.Options{}},
	{"azul-mini", engine.Options{Wall: "grey"}},
	{"summer-pavilion", engine.Options{}},
	{"summer-pavilion", engine.Options{Board: "monochrome"}},
	{"summer-pavilion", engine.Options{WildOrder: []string{"red", "blue", "yellow", "orange", "green", "purple"}}},
	{"summer-pavilion-mini", engine.Options{}},
	{"summer-pavilion-mini", engine.Options{Board: "monochrome"}},
	{"summer-pavilion-mini", engine.Options{WildOrder: []string{"green", "purple", "red", "yellow", "blue", "orange"}}},
}

func (o *Options) defaults() error {
	if o.Finished < 0 || o.Running < 0 {
		return errors.New("history: negative number of games")
	}
	if o.Players == 0 {
		o.Players = max(8, (o.Finished+o.Running)/20)
	}
	if o.Players < 4 {
		return errors.New("history: at least 4 players are needed (a game seats up to 4)")
	}
	if o.Mover == "" {
		o.Mover = bots.Greedy
	}
	if o.Mover != bots.Greedy && o.Mover != bots.Random {
		return fmt.Errorf("history: the players' moves are chosen by %q or %q, not %q", bots.Greedy, bots.Random, o.Mover)
	}
	if o.Span <= 0 {
		o.Span = 2 * 365 * 24 * time.Hour
	}
	if o.Gap <= 0 {
		o.Gap = 30 * time.Minute
	}
	if o.Batch <= 0 {
		o.Batch = 2000
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}

// Generate writes the history into a database migrated by azuld's
// migrations, connected as the schema's owner or a role of azuld_app.
// azuld must not be serving the database meanwhile: its follower of the
// log would send the notifications of the old moves before the generator
// marks them as followed. It refuses a database whose follower has not
// caught up, since marking would skip those events. When it stops
// half-way (an error, ctx ended), the history written so far is marked
// as followed too; the batch being written may then hold games without
// their read models.
func Generate(ctx context.Context, pool *pgxpool.Pool, opts Options) (Stats, error) {
	if err := opts.defaults(); err != nil {
		return Stats{}, err
	}
	start := time.Now()
	var playing atomic.Int64
	if err := checkFollowerCaughtUp(ctx, pool); err != nil {
		return Stats{}, err
	}
	now := opts.Now()
	rng := mrand.New(mrand.NewPCG(opts.Seed, 0x5eed))
	players, err := writePlayers(ctx, pool, opts.Players, now.Add(-opts.Span-30*24*time.Hour), rng)
	if err != nil {
		return Stats{}, err
	}
	stats := Stats{Players: len(players)}
	reg := rulesets.All()
	folds := play.New(play.Config{Rules: reg})
	format := play.SnapshotFormat(reg)
	total := opts.Finished + opts.Running
	// Games are played one batch ahead of the writing, so that the
	// engine's work and the database's overlap.
	ctx, cancel := context.WithCancel(ctx)
	batches := make(chan played, 1)
	defer func() {
		// Stop the player and wait for it.
		cancel()
		for range batches {
		}
	}()
	go func() {
		defer close(batches)
		for done := 0; done < total; {
			n := min(opts.Batch, total-done)
			jobs := make([]job, n)
			for i := range jobs {
				jobs[i] = newJob(rng, opts, players, done+i, done+i < opts.Finished, now)
			}
			begun := time.Now()
			games, err := playAll(ctx, reg, folds, jobs, opts.Workers)
			playing.Add(int64(time.Since(begun)))
			select {
			case batches <- played{jobs, games, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
			done += n
		}
	}()
	err = writeAll(ctx, pool, batches, format, &stats, func() {
		stats.Elapsed = time.Since(start)
		stats.Playing = time.Duration(playing.Load())
		if opts.Progress != nil {
			opts.Progress(stats)
		}
	})
	// The follower of the log is moved past whatever was written, also
	// when the generation stopped half-way: azuld must never send the
	// notifications of the history's old turns.
	if markErr := markFollowed(context.WithoutCancel(ctx), pool); err == nil {
		err = markErr
	}
	stats.Elapsed = time.Since(start)
	return stats, err
}

// writeAll writes the batches as they come, counting them in stats and
// calling progress after each.
func writeAll(ctx context.Context, pool *pgxpool.Pool, batches <-chan played, format int, stats *Stats, progress func()) error {
	for b := range batches {
		if b.err != nil {
			return b.err
		}
		begun := time.Now()
		if err := writeGames(ctx, pool, b.games, format); err != nil {
			return err
		}
		stats.Writing += time.Since(begun)
		for i, g := range b.games {
			stats.Games++
			if b.jobs[i].finished {
				stats.Finished++
			} else {
				stats.Running++
			}
			stats.Events += int64(g.Events())
			stats.Appends += int64(len(g.Appends))
		}
		progress()
	}
	return ctx.Err()
}

// played is a batch of games played, or why it could not be.
type played struct {
	jobs  []job
	games []*Game
	err   error
}

// job is one game to play and how.
type job struct {
	spec     Spec
	finished bool
	// end is when a finished game ends, or a running one last moved.
	end  time.Time
	seed uint64
}

// newJob draws the seats and times of the n-th game; the rule sets and
// their options take turns, so that even a small history has them all.
func newJob(rng *mrand.Rand, opts Options, players []string, n int, finished bool, now time.Time) job {
	v := variants[n%len(variants)]
	size := 2
	switch r := rng.IntN(4); {
	case r == 2:
		size = 3
	case r == 3:
		size = 4
	}
	seats := make([]play.Seat, size)
	picked := map[string]bool{}
	humans := 0
	for i := range seats {
		if i > 0 && rng.Float64() < opts.BotSeats {
			seats[i].Bot = []string{bots.Random, bots.Greedy}[rng.IntN(2)]
			continue
		}
		for {
			p := players[rng.IntN(len(players))]
			if !picked[p] {
				picked[p] = true
				seats[i].PlayerID = p
				break
			}
		}
		humans++
	}
	join := -1
	if humans >= 2 && rng.Float64() < opts.Joined {
		for i := size - 1; i > 0; i-- {
			if seats[i].PlayerID != "" {
				join = i
				break
			}
		}
	}
	end := now.Add(-time.Duration(rng.Int64N(int64(opts.Span))))
	if !finished {
		end = now.Add(-time.Duration(rng.Int64N(int64(2 * opts.Gap))))
	}
	return job{
		finished: finished, end: end, seed: rng.Uint64(),
		spec: Spec{
			ID:     newGameID(),
			Config: engine.Config{Ruleset: v.ruleset, Players: size, Options: v.options},
			Seats:  seats, Creator: seats[0].PlayerID, JoinSeat: join,
			Mover: opts.Mover, Keyed: opts.Keyed, Gap: opts.Gap,
		},
	}
}

// newGameID is a time-ordered id, as azuld gives its games.
func newGameID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// playAll plays the jobs' games on workers; games[i] is jobs[i]'s.
func playAll(ctx context.Context, reg engine.Registry, folder *play.Service, jobs []job, workers int) ([]*Game, error) {
	games := make([]*Game, len(jobs))
	errs := make([]error, workers)
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				k := next
				next++
				mu.Unlock()
				if k >= len(jobs) {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				game, err := playJob(ctx, reg, folder, jobs[k])
				if err != nil {
					errs[w] = err
					// The others stop at their next game.
					mu.Lock()
					next = len(jobs)
					mu.Unlock()
					return
				}
				games[k] = game
			}
		})
	}
	wg.Wait()
	return games, errors.Join(errs...)
}

// playJob plays one game, cuts a running one short, places it in time
// and folds its row.
func playJob(ctx context.Context, reg engine.Registry, folder *play.Service, j job) (*Game, error) {
	rng := mrand.New(mrand.NewPCG(j.seed, 0x9a3e))
	spec := j.spec
	spec.Rand = rng
	var err error
	if spec.Seed, err = engine.NewSeed(); err != nil {
		return nil, err
	}
	spec.Start = j.end
	var game *Game
	for range 20 {
		if game, err = PlayGame(reg, spec); err != nil {
			return nil, err
		}
		if j.finished {
			break
		}
		if err = game.cut(rng, spec.Seats); !errors.Is(err, errNoCut) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("game %s: %w", spec.ID, err)
	}
	// Played from j.end; moved back so that it ends there.
	shift := j.end.Sub(game.Appends[len(game.Appends)-1].At)
	for i := range game.Appends {
		game.Appends[i].At = game.Appends[i].At.Add(shift).Truncate(time.Microsecond)
	}
	if err := game.finish(ctx, folder, spec.Seats); err != nil {
		return nil, err
	}
	return game, nil
}

// writePlayers writes the community: players with a verified address and
// one API token each (whose secret nobody knows).
func writePlayers(ctx context.Context, pool *pgxpool.Pool, n int, since time.Time, rng *mrand.Rand) ([]string, error) {
	ids := make([]string, n)
	players := make([][]any, n)
	tokens := make([][]any, n)
	langs := []string{"en", "en", "en", "nl", "de", "it"}
	zones := []string{"UTC", "Europe/Amsterdam", "Europe/Berlin", "Europe/Rome", "America/New_York"}
	tag := uuid.NewString()[:8]
	for i := range ids {
		id := uuid.New()
		ids[i] = id.String()
		at := since.Add(time.Duration(rng.Int64N(int64(30 * 24 * time.Hour))))
		name := fmt.Sprintf("player-%s-%d", tag, i)
		players[i] = []any{id, name, name + "@example.org", at, langs[rng.IntN(len(langs))], zones[rng.IntN(len(zones))], true}
		hash := make([]byte, 32)
		if _, err := rand.Read(hash); err != nil {
			return nil, err
		}
		tokens[i] = []any{id, "registration", hash, at}
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"players"},
			[]string{"id", "name", "email", "created_at", "language", "time_zone", "email_verified"}, pgx.CopyFromRows(players)); err != nil {
			return fmt.Errorf("write players: %w", err)
		}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"api_tokens"},
			[]string{"player_id", "name", "hash", "created_at"}, pgx.CopyFromRows(tokens)); err != nil {
			return fmt.Errorf("write players' tokens: %w", err)
		}
		return nil
	})
	return ids, err
}
