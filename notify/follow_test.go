package notify_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// errFinished says a game has ended: no more moves to make.
var errFinished = errors.New("the game is over")

// newMini creates a two-seat Azul Mini game of ana's against ben.
func (e *env) newMini(t testing.TB, ana, ben play.Player) *play.Game {
	t.Helper()
	g, err := mailtest.CreateAccepted(context.Background(), e.Svc, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// moveRandom makes a random legal move (not resign) of the seat to act,
// checked against the version it was chosen at and keyed by it, so that a
// retry of a move whose answer was lost is answered with its first result.
func moveRandom(ctx context.Context, svc *play.Service, id string, rng *rand.Rand) (*play.MoveResult, error) {
	g, err := svc.Game(ctx, id)
	if err != nil {
		return nil, err
	}
	if g.Status != play.StatusActive {
		return nil, errFinished
	}
	seat := g.ToAct()[0]
	moves := slices.DeleteFunc(g.LegalMoves(seat), func(m engine.Move) bool { return strings.HasPrefix(m.Notation, "resign") })
	v := g.Version
	return svc.Move(ctx, play.MoveRequest{
		GameID: id, Actor: events.Actor{Kind: "player", PlayerID: g.Seats[seat].PlayerID}, Seat: &seat,
		Move: moves[rng.IntN(len(moves))].JSON, ExpectedVersion: &v,
		IdempotencyKey: fmt.Sprintf("%s-%d", id, v), Channel: "api",
	})
}

// checkJobsOnce fails the test for any mail enqueued twice (the same
// kind, game, version and seat), and for any move after which the game
// went on without a turn mail enqueued at the move's version.
func (e *env) checkJobsOnce(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	rows, err := e.Pool.Query(ctx, `SELECT args->>'mail', args->>'game_id', args->>'version', args->>'seat', count(*)
		FROM river_job WHERE kind = 'azuld_mail' GROUP BY 1, 2, 3, 4 HAVING count(*) > 1`)
	if err != nil {
		t.Fatal(err)
	}
	dups, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var kind, game, version, seat string
		var n int
		err := r.Scan(&kind, &game, &version, &seat, &n)
		return fmt.Sprintf("%s mail of game %s version %s seat %s: %d jobs", kind, game, version, seat, n), err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dups {
		t.Error(d)
	}
	// Every move's last event: a turn mail at its version, unless it
	// ended the game. An append's meta is on its first event only (the
	// others store 0), so a move's last event is the one before the next
	// append's first, or the stream's last.
	var missing []string
	rows, err = e.Pool.Query(ctx, `
		WITH heads AS (
			SELECT stream_id, meta->>'notation' AS notation,
				lead(version) OVER (PARTITION BY stream_id ORDER BY version) - 1 AS before_next
			FROM events WHERE meta::text <> '0'),
		moves AS (
			SELECT h.stream_id, coalesce(h.before_next, (SELECT max(version) FROM events l WHERE l.stream_id = h.stream_id)) AS version
			FROM heads h WHERE h.notation IS NOT NULL)
		SELECT m.stream_id::text, m.version FROM moves m JOIN games g ON g.id = m.stream_id
		WHERE NOT (g.status = 'finished' AND m.version = g.version)
		  AND NOT EXISTS (SELECT FROM river_job j WHERE j.kind = 'azuld_mail' AND j.args->>'mail' = 'turn'
			AND j.args->>'game_id' = m.stream_id::text AND (j.args->>'version')::bigint = m.version)`)
	if err != nil {
		t.Fatal(err)
	}
	missing, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var game string
		var v int64
		err := r.Scan(&game, &v)
		return fmt.Sprintf("%s@%d", game, v), err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("%d moves without a turn mail enqueued, e.g. %v", len(missing), missing[:min(5, len(missing))])
	}
}

// readModels reads every row of the read models the log feeds, in a
// fixed order, as text.
func readModels(t testing.TB, pool *pgxpool.Pool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for table, q := range map[string]string{
		"games":      `SELECT row(g.*)::text FROM games g ORDER BY id`,
		"game_seats": `SELECT row(s.*)::text FROM game_seats s ORDER BY game_id, seat`,
		"turn_inbox": `SELECT row(i.*)::text FROM turn_inbox i ORDER BY game_id, seat, player_id`,
		"results":    `SELECT row(r.*)::text FROM results r ORDER BY game_id, seat`,
	} {
		rows, err := pool.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		out[table], err = pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestFollowedReadModelsEqualARebuild: with a move one round trip, the
// games row written by the move's statement and the turn inbox and
// results written by the follower of the log are the rows a rebuild from
// the log gives; and every move's turn mail was enqueued once.
func TestFollowedReadModelsEqualARebuild(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, 0)
	ctx := context.Background()
	ana, ben, cleo := e.Register("Ana"), e.Register("Ben"), e.Register("Cleo")
	rng := rand.New(rand.NewPCG(1, 2))
	var ids []string
	for i := range 3 {
		g := e.newMini(t, ana, ben)
		ids = append(ids, g.ID)
		// The first plays to its end, the others stop on the way.
		for n := 0; i == 0 || n < 10*i; n++ {
			if _, err := moveRandom(ctx, e.Svc, g.ID, rng); errors.Is(err, errFinished) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
		}
	}
	// A three-seat game with a free seat, joined later, with a deadline.
	open, err := mailtest.CreateAccepted(ctx, e.Svc, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}, {}},
		TimeControl: &play.TimeControl{PerMove: play.Duration(72 * time.Hour)}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Svc.Join(ctx, open.ID, cleo, nil); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := moveRandom(ctx, e.Svc, open.ID, rng); err != nil {
			t.Fatal(err)
		}
	}
	// A GET right after a move shows it: the games row is the move's own.
	res, err := moveRandom(ctx, e.Svc, ids[1], rng)
	if err != nil {
		t.Fatal(err)
	}
	var version int64
	if err := e.Pool.QueryRow(ctx, `SELECT version FROM games WHERE id = $1`, ids[1]).Scan(&version); err != nil || version != res.Version {
		t.Fatalf("games row at version %d (%v) right after the move to %d", version, err, res.Version)
	}

	e.CaughtUp(t)
	live := readModels(t, e.Pool)
	if len(live["results"]) == 0 || len(live["turn_inbox"]) == 0 {
		t.Fatalf("the live read models lack results or turns: %v", live)
	}
	if err := e.Svc.RebuildProjections(ctx); err != nil {
		t.Fatal(err)
	}
	rebuilt := readModels(t, e.Pool)
	for table, rows := range rebuilt {
		if !slices.Equal(live[table], rows) {
			t.Errorf("%s live:\n%s\nrebuilt:\n%s", table, strings.Join(live[table], "\n"), strings.Join(rows, "\n"))
		}
	}
	e.checkJobsOnce(t)
}

// lagRecorder keeps the lags a follower observes.
type lagRecorder struct {
	mu       sync.Mutex
	followed []notify.Followed
}

func (l *lagRecorder) observe(f notify.Followed) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.followed = append(l.followed, f)
}

// lagsOf waits until the appends of game at versions are observed, and
// returns their lags in that order. The follower tells Observe after its
// batch commits, so a test that saw the checkpoint move may still have to
// wait a moment for the call.
func (l *lagRecorder) lagsOf(t *testing.T, game string, versions []int64) []time.Duration {
	t.Helper()
	var lags []time.Duration
	eventually.True(t, 30*time.Second, func() bool {
		l.mu.Lock()
		byVersion := map[int64]time.Duration{}
		for _, f := range l.followed {
			if f.GameID == game {
				byVersion[f.Version] = f.Lag()
			}
		}
		l.mu.Unlock()
		lags = nil
		for _, v := range versions {
			if lag, ok := byVersion[v]; ok {
				lags = append(lags, lag)
			}
		}
		return len(lags) == len(versions)
	}, "only %d of the %d appends %v were observed", eventually.Last(func() any { return len(lags) }), len(versions), versions)
	return lags
}

// TestStalledFollowerRecovers: while the follower's lock is held by a
// stalled holder (a replica hung in the middle of a batch), moves are
// still answered at once and their jobs wait; when the holder goes, the
// follower catches up, every job once, and the lag of the moves after
// that is back to normal.
func TestStalledFollowerRecovers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnvAt(t, pg.NewDatabase(t), 0)
	lags := &lagRecorder{}
	e.Follow(e.N, notify.FollowOptions{Observe: lags.observe})
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.newMini(t, ana, ben)
	e.CaughtUp(t)

	// The stalled holder: a transaction holding the consumer's lock.
	stall, err := e.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stall.Rollback(ctx) }()
	if _, err := stall.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('azuld.consumer:' || $1, 0))`, notify.OutboxConsumer); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var stalled []int64
	for range 6 {
		res, err := moveRandom(ctx, e.Svc, g.ID, rng)
		if err != nil {
			t.Fatal(err)
		}
		stalled = append(stalled, res.Version)
	}
	// The stall itself: the holder keeps the lock this long, and no job of
	// the moves made meanwhile may be enqueued.
	const stallFor = 1500 * time.Millisecond
	time.Sleep(stallFor)
	var jobs int
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'azuld_mail' AND (args->>'version')::bigint >= $1`, stalled[0]).Scan(&jobs); err != nil {
		t.Fatal(err)
	}
	if jobs != 0 {
		t.Fatalf("%d mail jobs enqueued while the follower was stalled", jobs)
	}
	if err := stall.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	e.CaughtUp(t)
	// The stalled moves waited for the holder; their lag says so.
	stalledLags := lags.lagsOf(t, g.ID, stalled)
	if slices.Max(stalledLags) < stallFor {
		t.Fatalf("lags of the stalled moves: %v, the longest at least %s", stalledLags, stallFor)
	}
	// Afterwards the lag is back to what the follower takes to notice.
	var recovered []int64
	for range 10 {
		res, err := moveRandom(ctx, e.Svc, g.ID, rng)
		if err != nil {
			t.Fatal(err)
		}
		recovered = append(recovered, res.Version)
	}
	e.CaughtUp(t)
	after := lags.lagsOf(t, g.ID, recovered)
	if slices.Max(after) >= stallFor {
		t.Errorf("lags after the recovery: %v, want all below %s", after, stallFor)
	}
	t.Logf("stalled lags up to %s; after the recovery up to %s", slices.Max(stalledLags), slices.Max(after))
	e.checkJobsOnce(t)
}

// TestFollowersTakeTurns: several followers (replicas) on one database
// under concurrent moves enqueue every job once.
func TestFollowersTakeTurns(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, 0)
	for range 2 {
		other := e.NewNotifier(0)
		other.Attach(e.Svc)
		e.Follow(other, notify.FollowOptions{BatchSize: 3})
	}
	ana, ben := e.Register("Ana"), e.Register("Ben")
	playConcurrently(t, e.Svc, []*play.Game{e.newMini(t, ana, ben), e.newMini(t, ana, ben), e.newMini(t, ana, ben), e.newMini(t, ana, ben)}, 15, nil)
	e.CaughtUp(t)
	e.checkJobsOnce(t)
}

// playConcurrently plays moves in every game at once, one goroutine a
// game, each at most n moves; between moves, each calls between (when
// set). It returns the results of the moves.
func playConcurrently(t testing.TB, svc *play.Service, games []*play.Game, n int, between func()) [][]*play.MoveResult {
	t.Helper()
	out := make([][]*play.MoveResult, len(games))
	var wg sync.WaitGroup
	errs := make(chan error, len(games))
	for i, g := range games {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 9))
			for range n {
				res, err := moveRandom(context.Background(), svc, g.ID, rng)
				if errors.Is(err, errFinished) {
					return
				}
				if err != nil {
					errs <- err
					return
				}
				out[i] = append(out[i], res)
				if between != nil {
					between()
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return out
}

// The environment that turns the test binary into a follower process.
const followerDBEnv = "AZULD_NOTIFY_TEST_FOLLOWER_DB"

// runFollowerProcess follows the log of a test database until the
// process is killed (or, should its test be gone, a minute passes).
func runFollowerProcess(url string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "follower process:", err)
		return 2
	}
	n, err := mailtest.NewNotifier(pool, "127.0.0.1:1", 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "follower process:", err)
		return 2
	}
	n.Attach(play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All()}))
	// Small batches and fast polls: a kill finds it inside a batch often.
	if err := n.Follow(ctx, notify.FollowOptions{BatchSize: 2, PollInterval: 5 * time.Millisecond}); err != nil {
		fmt.Fprintln(os.Stderr, "follower process:", err)
		return 2
	}
	return 3
}

// TestFollowerProcessKilled: follower processes killed with SIGKILL
// again and again under concurrent moves, another taking over each
// time, leave every job enqueued once and none missing.
func TestFollowerProcessKilled(t *testing.T) {
	t.Parallel()
	e := newEnvAt(t, pg.NewDatabase(t), 0)
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), followerDBEnv+"="+e.URL)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	var mu sync.Mutex
	procs := []*exec.Cmd{start(), start()}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	})
	ana, ben := e.Register("Ana"), e.Register("Ben")
	var games []*play.Game
	for range 5 {
		games = append(games, e.newMini(t, ana, ben))
	}
	moves, kills := 0, 0
	var lastKill time.Time
	playConcurrently(t, e.Svc, games, 40, func() {
		// Time for a new follower process to start (it loads the message
		// catalogue, slow under the race detector) and take a batch.
		time.Sleep(15 * time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		// Every seventh move, once a follower process has handled a
		// batch since the last kill, the older process dies and a new
		// one starts.
		if moves++; moves%7 != 0 {
			return
		}
		// A loaded machine can take seconds to start a process: wait for
		// the progress (up to a bound) rather than skip this kill, so that
		// the number of kills does not depend on the machine's speed.
		if !followerProgressedSince(t, e.Pool, lastKill, 10*time.Second) {
			return
		}
		_ = procs[0].Process.Kill()
		_ = procs[0].Wait()
		procs = append(procs[1:], start())
		lastKill = time.Now()
		kills++
	})
	// One last follower, in this process, finishes the work.
	e.Follow(e.N, notify.FollowOptions{})
	e.CaughtUp(t)
	t.Logf("%d moves, %d follower processes killed", moves, kills)
	if kills < 4 {
		t.Fatalf("only %d kills", kills)
	}
	e.checkJobsOnce(t)
}

// followerProgressedSince reports whether the outbox consumer's checkpoint
// moved after since, polling for at most wait.
func followerProgressedSince(t *testing.T, pool *pgxpool.Pool, since time.Time, wait time.Duration) bool {
	t.Helper()
	// Called between moves, off the test's goroutine, and a checkpoint
	// that did not move only skips a kill: Within, which fails nothing.
	var progressed bool
	var err error
	eventually.Within(wait, func() bool {
		err = pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT FROM consumer_checkpoints WHERE name = $1 AND updated_at > $2)`,
			notify.OutboxConsumer, since).Scan(&progressed)
		return progressed || err != nil
	})
	if err != nil {
		t.Errorf("reading the outbox checkpoint: %v", err)
		return false
	}
	return progressed
}

// TestOutboxCheckpointIsMigrated: the migration that moved the outbox to
// the log gave its consumer a checkpoint, so a database migrated with
// events already in it does not enqueue their jobs a second time.
func TestOutboxCheckpointIsMigrated(t *testing.T) {
	t.Parallel()
	e := newEnvAt(t, pg.NewDatabase(t), 0)
	var n int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM consumer_checkpoints WHERE name = $1`, notify.OutboxConsumer).Scan(&n); err != nil || n != 1 {
		t.Fatalf("checkpoints of %s: %d, %v", notify.OutboxConsumer, n, err)
	}
}

// TestFollowerFailureIsCounted: an append the follower cannot fold (a
// stream whose first event is no game's creation, written behind the
// server's back) stops the outbox where it is, without skipping it, and
// the failed batches are counted for an alert.
func TestFollowerFailureIsCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnvAt(t, pg.NewDatabase(t), 0)
	reg := prometheus.NewRegistry()
	n, err := notify.New(notify.Config{Pool: e.Pool, Sender: compose.Sender{Domain: domain, BaseURL: "http://azuld.test"}, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	n.Attach(e.Svc)
	e.Follow(n, notify.FollowOptions{RetryAfter: 10 * time.Millisecond})
	if _, err := events.NewStore(e.Pool).Append(ctx, events.AppendRequest{
		StreamID: "01a21074-0000-7000-8000-000000000001", Events: []events.NewEvent{{Type: "tiles_taken", Schema: 1, Data: []byte(`{}`)}},
		Meta: events.Meta{Actor: events.Actor{Kind: "system"}, CommandID: "poison"},
	}); err != nil {
		t.Fatal(err)
	}
	failed := func() float64 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "azuld_outbox_failed_batches_total" {
				return mf.GetMetric()[0].GetCounter().GetValue()
			}
		}
		return 0
	}
	var counted float64
	eventually.True(t, 30*time.Second, func() bool { counted = failed(); return counted >= 3 },
		"%v failed batches counted, want 3", eventually.Last(func() any { return counted }))
	if pending, err := events.NewConsumer(e.Pool, notify.OutboxConsumer).Pending(ctx); err != nil || !pending {
		t.Fatalf("the unfoldable append was passed over: pending %v, %v", pending, err)
	}
}
