package notify_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/play"
)

// The environment that turns the test binary into a worker process.
const (
	crashWorkerDBEnv    = "AZULD_NOTIFY_TEST_WORKER_DB"
	crashWorkerRelayEnv = "AZULD_NOTIFY_TEST_WORKER_RELAY"
)

// runWorkerProcess runs one notification worker against a test database
// until the process is killed (or, should its test be gone, a minute
// passes).
func runWorkerProcess(url, relayAddr string) int {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker process:", err)
		return 2
	}
	n, err := mailtest.NewNotifier(pool, relayAddr, 1)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker process:", err)
		return 2
	}
	n.Attach(play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All()}))
	if err := n.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "worker process:", err)
		return 2
	}
	// Deliver until the test kills the process; the minute only ends an
	// orphan whose test is gone.
	time.Sleep(time.Minute)
	return 3
}

// TestWorkerProcessKilledMidDelivery kills a worker process with SIGKILL
// while the relay holds one of its deliveries in DATA: the job stays
// marked running in the database, nothing was delivered, and a worker
// started afterwards rescues the job and delivers every mail once.
func TestWorkerProcessKilledMidDelivery(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, 0)
	e.Relay.HoldDeliveries()

	worker := exec.Command(os.Args[0], "-test.run=^$")
	worker.Env = append(os.Environ(), crashWorkerDBEnv+"="+e.URL, crashWorkerRelayEnv+"="+e.Relay.Addr)
	worker.Stderr = os.Stderr
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = worker.Process.Kill(); _ = worker.Wait() })

	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	e.Relay.WaitHolding(t)
	if err := worker.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = worker.Wait()

	var running int
	if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE state = 'running'`).Scan(&running); err != nil {
		t.Fatal(err)
	}
	if running == 0 {
		t.Fatal("no job was left running by the killed process")
	}
	if n := len(e.Relay.All()); n != 0 {
		t.Fatalf("%d mails delivered before the crash, want none", n)
	}
	e.Relay.Release()

	e.Start(e.NewNotifier(1))
	// The job waits for river's rescuer, which runs now and then on the
	// leader, and only once the dead process's leadership has expired.
	e.WaitOpeningMails(g, ana, ben, 2*time.Minute)
	// Nothing to wait for: a second copy of a mail would come unasked, so
	// give it room to show up before counting.
	time.Sleep(500 * time.Millisecond)
	e.Relay.OnceEach(t)
}
