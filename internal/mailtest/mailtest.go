// Package mailtest is the mail round trip of azuld in a test: a relay
// that stands for the provider's and keeps what azuld sends (Relay), and
// an environment (Env) with the test's database, the command path, the
// outbox (notify) delivering to that relay, and the inbound mail
// (mailin) behind azuld's own SMTP listener, with the helpers the tests
// of both use: sending replies and delivery reports to the listener,
// waiting for the mails that come out, creating and playing games.
//
// The database is the test's own (pgtest's NewDatabase), so the tests
// that use an Env run in parallel. Everything talks SMTP over loopback.
package mailtest

import (
	"cmp"
	"context"
	"net"
	"net/mail"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mail/smtpin"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// Domain is the server's mail domain in the tests: its reply addresses,
// return paths and Message-IDs.
const Domain = "mail.test"

// Env is one test's database, command path, notifier, relay and listener.
type Env struct {
	T    testing.TB
	URL  string
	Pool *pgxpool.Pool
	Svc  *play.Service
	N    *notify.Notifier
	// In takes the mail that comes in (the SMTP listener's).
	In    *mailin.Receiver
	Relay *Relay
	// Inbound is the address of azuld's SMTP listener.
	Inbound string

	// notifyTune changes the configuration of the Env's notifiers.
	notifyTune []func(*notify.Config)
}

// Options are what differs between the tests' environments.
type Options struct {
	// Workers is the number of job workers of the notifier the command
	// path enqueues through (0: it only enqueues).
	Workers int
	// Notify change the configuration of the notifiers (verification of
	// addresses, say).
	Notify []func(*notify.Config)
	// Inbound change the configuration of the inbound mail (the checks
	// of SPF and DKIM, the limits of table talk).
	Inbound []func(*mailin.Config)
}

// Start is New with the follower of the log running (Follow).
func Start(t testing.TB, url string, o Options) *Env {
	t.Helper()
	e := New(t, url, o)
	e.Follow(e.N, notify.FollowOptions{})
	return e
}

// New builds an Env on the database at url, whose follower of the log
// the caller starts (Follow). Everything stops when the test ends.
func New(t testing.TB, url string, o Options) *Env {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e := &Env{T: t, URL: url, Pool: pool, Relay: StartRelay(t), notifyTune: o.Notify}
	e.N = e.NewNotifier(o.Workers)
	// As in azuld: a move is one round trip, the rest follows from the
	// log; with workers, they move the bots.
	e.Svc = play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All(), BotJobs: o.Workers > 0})
	e.N.Attach(e.Svc)
	e.Start(e.N)
	icfg := mailin.Config{Pool: pool, Service: e.Svc, Outbox: e.N}
	for _, f := range o.Inbound {
		f(&icfg)
	}
	if e.In, err = mailin.New(icfg); err != nil {
		t.Fatal(err)
	}
	in, err := smtpin.New(smtpin.Config{Domain: Domain, Handler: mailin.SMTPHandler(e.In), Bounce: mailin.BounceHandler(e.In)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.Inbound = l.Addr().String()
	go func() { _ = in.Serve(ctx, l) }()
	t.Cleanup(func() { _ = in.Close() })
	return e
}

// NewNotifier builds a notifier on the test's database that delivers to
// the relay, tuned to poll and retry fast, with the Env's configuration.
func (e *Env) NewNotifier(workers int) *notify.Notifier {
	e.T.Helper()
	n, err := NewNotifier(e.Pool, e.Relay.Addr, workers, e.notifyTune...)
	if err != nil {
		e.T.Fatal(err)
	}
	return n
}

// NewNotifier is a notifier tuned to poll and retry fast that delivers
// to the relay at relayAddr.
func NewNotifier(pool *pgxpool.Pool, relayAddr string, workers int, tune ...func(*notify.Config)) (*notify.Notifier, error) {
	mailer, err := notify.NewSMTPMailer("smtp://" + relayAddr + "?tls=none")
	if err != nil {
		return nil, err
	}
	cfg := notify.Config{
		Pool:   pool,
		Sender: compose.Sender{Domain: Domain, From: mail.Address{Name: "azuld", Address: "azuld@" + Domain}, BaseURL: "http://azuld.test"},
		Mailer: mailer, Workers: workers,
		FetchPollInterval: 10 * time.Millisecond, RetryPolicy: notify.FixedRetry(20 * time.Millisecond),
		// An attempt that runs out of time after the relay took the
		// mail but before its answer came is sent again (SMTP delivers
		// at least once): on a busy machine a second is too short.
		// A job still marked running this long after it started is
		// taken for one whose process died and is run again: far longer
		// than an attempt may take plus the time a busy machine needs to
		// record that it ended, or a slow delivery would go out twice.
		RescueStuckJobsAfter: 15 * time.Second, MailTimeout: 5 * time.Second, WebhookTimeout: time.Second,
		// The bot authors' endpoints of the tests are on loopback.
		WebhookAllowPrivate: true,
	}
	for _, f := range tune {
		f(&cfg)
	}
	return notify.New(cfg)
}

// Start attaches n to the command path and starts its workers until the
// test ends.
func (e *Env) Start(n *notify.Notifier) {
	e.T.Helper()
	n.Attach(e.Svc)
	if err := n.Start(context.Background()); err != nil {
		e.T.Fatal(err)
	}
	e.T.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = n.Shutdown(ctx)
	})
}

// Follow runs n's follower of the log, woken by a listener and tuned to
// poll and retry fast (unless opts says otherwise), until the returned
// function or the test's end stops it.
func (e *Env) Follow(n *notify.Notifier, opts notify.FollowOptions) (stop func()) {
	e.T.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	listener := events.NewListener(e.URL, nil)
	wake, stopWake := listener.SubscribeAll()
	opts.Wake = wake
	opts.PollInterval = cmp.Or(opts.PollInterval, 20*time.Millisecond)
	opts.RetryAfter = cmp.Or(opts.RetryAfter, 50*time.Millisecond)
	done := make(chan struct{}, 2)
	go func() { _ = listener.Run(ctx); done <- struct{}{} }()
	go func() {
		if err := n.Follow(ctx, opts); err != nil {
			e.T.Errorf("follow: %v", err)
		}
		done <- struct{}{}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			stopWake()
			<-done
			<-done
		})
	}
	e.T.Cleanup(stop)
	return stop
}

// CaughtUp waits until the follower of the log has handled every event
// committed so far: the turn inbox, the results and the jobs are written.
func (e *Env) CaughtUp(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := events.NewConsumer(e.Pool, notify.OutboxConsumer).WaitCaughtUp(ctx, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
}
