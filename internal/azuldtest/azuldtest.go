// Package azuldtest serves azuld's API in a test, wired as `azuld serve`
// wires it, for the tests of clients that talk to a real server over
// HTTP (the load tool, its generator).
package azuldtest

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/api"
	"github.com/azuld/azuld/app"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
)

// Options are what differs between the tests' servers.
type Options struct {
	// SMTPURL, when set, runs azuld serve's job workers as well: they
	// relay the mails through it (addresses unverified, as with
	// AZUL_VERIFY_ADDRESSES=false) and move the bot seats.
	SMTPURL string
}

// MetricsToken is the bearer token the server's /metrics wants (azuld
// does not serve it on its public port without one).
const MetricsToken = "azuldtest-metrics-token"

// Start serves azuld's API over the database at url (moves in one round
// trip, the follower of the log writing the turn inbox and enqueueing
// notifications), without rate limits, until the test ends. url should
// be the server's own role (pgtest's ServerRoleURL). It returns the base
// URL and the pool.
func Start(t testing.TB, url string, o Options) (string, *pgxpool.Pool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	ncfg := notify.Config{Sender: compose.Sender{Domain: "mail.test", BaseURL: "http://azuld.test"}}
	if o.SMTPURL != "" {
		mailer, err := notify.NewSMTPMailer(o.SMTPURL)
		if err != nil {
			t.Fatal(err)
		}
		ncfg.Mailer, ncfg.Workers, ncfg.FetchPollInterval = mailer, 4, 50*time.Millisecond
	}
	parts, err := app.New(app.Config{
		Pool: pool, DatabaseURL: url, Notify: ncfg,
		Follow: notify.FollowOptions{PollInterval: 20 * time.Millisecond, RetryAfter: 50 * time.Millisecond},
		Limits: limits.Options{Off: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := parts.Start(ctx); err != nil {
		t.Fatal(err)
	}
	srv, err := api.New(api.Config{App: parts, MetricsToken: MetricsToken})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
		stop, cancelStop := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancelStop()
		if err := parts.Stop(stop); err != nil {
			t.Errorf("job workers: %v", err)
		}
		cancel()
		pool.Close()
	})
	return hs.URL, pool
}
