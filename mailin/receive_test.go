package mailin_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

const domain = "mail.test"

// outbox knows no reply token and no return path, and keeps what it is
// asked to queue: the inbound side's whole view of the outbox.
type outbox struct {
	queued []notify.MailArgs
	stops  int
}

func (o *outbox) Sender() compose.Sender { return compose.Sender{Domain: domain} }
func (o *outbox) SeatOfToken(context.Context, string) (string, int, int64, bool, error) {
	return "", 0, 0, false, nil
}
func (o *outbox) ReaderOf(context.Context, string) (string, *time.Location, error) {
	return "en", time.UTC, nil
}
func (o *outbox) StopMails(context.Context, string, int) error { o.stops++; return nil }
func (o *outbox) BounceTokenOwner(context.Context, string) (string, bool, error) {
	return "", false, nil
}
func (o *outbox) QueueMailsTx(_ context.Context, _ pgx.Tx, mails ...notify.MailArgs) error {
	o.queued = append(o.queued, mails...)
	return nil
}

func newReceiver(t *testing.T) (*mailin.Receiver, *outbox, *prometheus.Registry) {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pg.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	out, reg := &outbox{}, prometheus.NewRegistry()
	svc := play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All()})
	r, err := mailin.New(mailin.Config{Pool: pool, Service: svc, Outbox: out, Metrics: reg, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return r, out, reg
}

// TestReceiveChangesNothingWithoutASeat: what cannot name a seat is
// answered by nobody and queues nothing: an unreadable mail is
// ErrMalformed, an automatic reply is ignored, an unknown reply address
// is recorded (so that it comes again as a duplicate), and a mail to a
// return path is a bounce. Each is counted by its outcome.
func TestReceiveChangesNothingWithoutASeat(t *testing.T) {
	t.Parallel()
	r, out, reg := newReceiver(t)
	ctx := context.Background()
	to := "play+abcdefghijklmnopqrstuvwxyz234567@" + domain

	if _, err := r.Receive(ctx, mailin.Envelope{}, []byte("\x00\xff")); !errors.Is(err, mailin.ErrMalformed) {
		t.Errorf("an unreadable mail: %v, want ErrMalformed", err)
	}
	auto := "From: ana@example.org\r\nTo: " + to + "\r\nMessage-ID: <auto@example.org>\r\nAuto-Submitted: auto-replied\r\n\r\nI am away.\r\n"
	if got, err := r.Receive(ctx, mailin.Envelope{}, []byte(auto)); err != nil || got != mailin.OutcomeAuto {
		t.Errorf("an automatic reply: %q, %v", got, err)
	}
	unknown := "From: ana@example.org\r\nTo: " + to + "\r\nMessage-ID: <unknown@example.org>\r\n\r\n1\r\n"
	for _, want := range []mailin.Outcome{mailin.OutcomeNoToken, mailin.OutcomeDuplicate} {
		if got, err := r.Receive(ctx, mailin.Envelope{}, []byte(unknown)); err != nil || got != want {
			t.Errorf("a reply to an unknown address: %q, %v; want %q", got, err, want)
		}
	}
	bounce := "bounce+abcdefghijklmnop@" + domain
	notReport := "From: someone@example.org\r\nTo: " + bounce + "\r\nMessage-ID: <hello@example.org>\r\n\r\nhello\r\n"
	if got, err := r.Receive(ctx, mailin.Envelope{Rcpts: []string{bounce}}, []byte(notReport)); err != nil || got != mailin.OutcomeBounce {
		t.Errorf("a mail to a return path: %q, %v", got, err)
	}
	if len(out.queued) != 0 || out.stops != 0 {
		t.Errorf("queued %d mails and stopped %d seats, want none", len(out.queued), out.stops)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counted := 0
	for _, f := range families {
		if f.GetName() == "azuld_inbound_mails_total" {
			counted = len(f.GetMetric())
		}
	}
	// malformed, auto_reply, unknown_token, duplicate, bounce_not_report
	if counted != 5 {
		t.Errorf("%d outcomes counted, want 5", counted)
	}
}
