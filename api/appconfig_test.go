package api

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/app"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
)

// A server built from an app takes every part from it: a part given both
// ways would wire two of it, and is refused.
func TestConfigAppRefusesAPartGivenTwice(t *testing.T) {
	t.Parallel()
	// Nothing connects: the pool dials on first use.
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	a, err := app.New(app.Config{Pool: pool, Notify: notify.Config{Sender: compose.Sender{Domain: "mail.test", BaseURL: "http://azuld.test"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Config{App: a, Service: a.Service}); err == nil {
		t.Fatal("a service given beside the app was taken")
	}
	if _, err := New(Config{App: a, Pool: pool}); err == nil {
		t.Fatal("a pool given beside the app was taken")
	}
	s, err := New(Config{App: a})
	if err != nil {
		t.Fatal(err)
	}
	if s.svc != a.Service || s.notifier != a.Notifier || s.pool != a.Pool {
		t.Fatal("the server does not use the app's parts")
	}
	s.Close()
}
