package notify_test

import (
	"os"
	"testing"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/notify"
)

var pg *pgtest.Harness

func TestMain(m *testing.M) {
	// The test binary doubles as a separate worker or follower process
	// that a test kills (TestWorkerProcessKilledMidDelivery,
	// TestFollowerProcessKilled).
	if url := os.Getenv(crashWorkerDBEnv); url != "" {
		os.Exit(runWorkerProcess(url, os.Getenv(crashWorkerRelayEnv)))
	}
	if url := os.Getenv(followerDBEnv); url != "" {
		os.Exit(runFollowerProcess(url))
	}
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

const domain = mailtest.Domain

// outMail is a mail the relay received.
type outMail = mailtest.Mail

// env is one test's database, command path, notifier, relay and listener
// (mailtest.Env), with the helpers of this package's tests.
type env struct{ *mailtest.Env }

func newEnv(t testing.TB) *env { t.Helper(); return newEnvWith(t, 2) }

// newEnvWith is newEnv with a number of workers for the notifier the
// command path enqueues through (0: it only enqueues).
func newEnvWith(t testing.TB, workers int) *env {
	t.Helper()
	return &env{mailtest.Start(t, pg.NewDatabase(t), mailtest.Options{Workers: workers})}
}

// newEnvAt is newEnvWith on a database of the caller's, whose follower of
// the log the caller starts (Follow).
func newEnvAt(t testing.TB, url string, workers int) *env {
	t.Helper()
	return &env{mailtest.New(t, url, mailtest.Options{Workers: workers})}
}

// newEnvWithConfig is newEnvWith whose notifier's configuration tune
// changes (verification of addresses, say).
func newEnvWithConfig(t testing.TB, workers int, tune func(*notify.Config)) *env {
	t.Helper()
	return &env{mailtest.Start(t, pg.NewDatabase(t), mailtest.Options{Workers: workers, Notify: []func(*notify.Config){tune}})}
}
