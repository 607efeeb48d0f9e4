package notify_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// TestPostgresKilledUnderLoad kills PostgreSQL with SIGKILL while games
// are played at full speed, starts it again on the same data and port,
// and plays on. Every move whose answer came is in the log as answered
// (a cluster with durable commits); the follower of the log enqueues
// every job once across the crash; and a worker started afterwards sends
// each mail once. (Deliveries under way during a crash are River's
// at-least-once: TestWorkerProcessKilledMidDelivery.)
func TestPostgresKilledUnderLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Durable: a commit answered is a commit kept.
	cluster := pgtest.StartPrivateCluster(t)
	dir, url := cluster.DataDir, cluster.URL

	e := newEnvAt(t, url, 0)
	e.Follow(e.N, notify.FollowOptions{})
	ana, ben := e.Register("Ana"), e.Register("Ben")
	games := []*play.Game{e.newMini(t, ana, ben), e.newMini(t, ana, ben), e.newMini(t, ana, ben), e.newMini(t, ana, ben)}

	// Movers retry every move until it is answered: the same command with
	// the same key, so that one whose answer was lost is answered with its
	// first result and not made twice.
	var (
		acked  sync.Map // game id -> []events.Record
		moves  atomic.Int64
		failed atomic.Int64
		stop   = make(chan struct{})
		wg     sync.WaitGroup
	)
	for i, g := range games {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 11))
			var mine []events.Record
			defer func() { acked.Store(g.ID, mine) }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cur, err := e.Svc.Game(ctx, g.ID)
				if err != nil {
					// PostgreSQL is down: try again shortly, as a player's
					// client would, without spinning.
					failed.Add(1)
					time.Sleep(20 * time.Millisecond)
					continue
				}
				if cur.Status != play.StatusActive {
					return
				}
				seat := cur.ToAct()[0]
				legal := slices.DeleteFunc(cur.LegalMoves(seat), func(m engine.Move) bool { return strings.HasPrefix(m.Notation, "resign") })
				v := cur.Version
				req := play.MoveRequest{
					GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: cur.Seats[seat].PlayerID}, Seat: &seat,
					Move: legal[rng.IntN(len(legal))].JSON, ExpectedVersion: &v,
					IdempotencyKey: fmt.Sprintf("%s-%d", g.ID, v), Channel: "api",
				}
				for {
					res, err := e.Svc.Move(ctx, req)
					if err == nil {
						mine = append(mine, res.Events...)
						moves.Add(1)
						break
					}
					failed.Add(1)
					select {
					case <-stop:
						return
					case <-time.After(20 * time.Millisecond):
					}
				}
			}
		})
	}
	waitMoves := func(n int64) {
		t.Helper()
		// Within, not True: the movers must stop before the test fails.
		if !eventually.Within(time.Minute, func() bool { return moves.Load() >= n }) {
			close(stop)
			wg.Wait()
			t.Fatalf("only %d of %d moves within a minute", moves.Load(), n)
		}
	}

	waitMoves(40)
	pidText, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(pidText), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killedAt := moves.Load()
	if err := cluster.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("PostgreSQL killed after %d moves and started again", killedAt)
	waitMoves(killedAt + 40)
	close(stop)
	wg.Wait()
	t.Logf("%d moves answered, %d attempts failed during the crash", moves.Load(), failed.Load())
	if failed.Load() == 0 {
		t.Error("no attempt failed: the crash went unnoticed")
	}

	// Every answered move is in the log as answered.
	for _, g := range games {
		v, _ := acked.Load(g.ID)
		recs, err := e.Svc.Events(ctx, g.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range v.([]events.Record) {
			i := slices.IndexFunc(recs, func(r events.Record) bool { return r.Version == want.Version })
			if i < 0 || recs[i].Position != want.Position || recs[i].Type != want.Type || recs[i].Meta.CommandID != want.Meta.CommandID {
				t.Errorf("game %s: answered event %d (%s at %d) is not in the log as answered", g.ID, want.Version, want.Type, want.Position)
			}
		}
	}
	e.CaughtUp(t)
	e.checkJobsOnce(t)

	// A worker started now sends each mail once.
	e.Start(e.NewNotifier(2))
	var left int
	eventually.True(t, time.Minute, func() bool {
		if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'azuld_mail' AND state NOT IN ('completed', 'cancelled', 'discarded')`).Scan(&left); err != nil {
			t.Fatal(err)
		}
		return left == 0
	}, "%d mail jobs left", eventually.Last(func() any { return left }))
	e.Relay.OnceEach(t)
	// The seat to act in each game still running has its turn mail.
	for _, g := range games {
		cur, err := e.Svc.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status != play.StatusActive {
			continue
		}
		seat := cur.ToAct()[0]
		if !slices.ContainsFunc(e.Relay.All(), func(m outMail) bool {
			return m.Kind == compose.KindTurn && m.Game == g.ID && m.Seat == seat && m.Version == cur.Version
		}) {
			t.Errorf("game %s: no turn mail to seat %d at version %d", g.ID, seat, cur.Version)
		}
	}
}
