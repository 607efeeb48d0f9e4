package web_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/smtp"
	"net/textproto"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mail/smtpin"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// TestReplyByMailWithoutDatabaseIsDeferred: a reply that reaches the
// SMTP listener while no database answers is deferred with a temporary
// 451, so that the sending server keeps it and tries again (its
// Message-ID then makes the move once), never refused for good.
func TestReplyByMailWithoutDatabaseIsDeferred(t *testing.T) {
	t.Parallel()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dbURL := "postgres://azuld:secret@" + closed.Addr().String() + "/azuld?sslmode=disable"
	_ = closed.Close()
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	events.ConfigurePool(cfg, dbURL)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	n, err := notify.New(notify.Config{Pool: pool, Sender: compose.Sender{Domain: "players.test", BaseURL: "http://azuld.test"}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	svc := play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All(), Logger: log})
	n.Attach(svc)
	in, err := mailin.New(mailin.Config{Pool: pool, Service: svc, Outbox: n, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	handle := mailin.SMTPHandler(in)
	handled := make(chan error, 1)
	srv, err := smtpin.New(smtpin.Config{Domain: "players.test", Logger: log, Handler: func(ctx context.Context, env smtpin.Envelope, raw []byte) error {
		err := handle(ctx, env, raw)
		handled <- err
		return err
	}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { _ = srv.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); _ = srv.Close() })

	msg := "From: ana@example.org\r\nTo: play+abcdefghijklmnopqrstuvwxyz234567@players.test\r\n" +
		"Subject: Re: your turn\r\nMessage-ID: <reply-1@example.org>\r\n\r\nF1 red 1\r\n"
	err = smtp.SendMail(ln.Addr().String(), nil, "ana@example.org", []string{"play+abcdefghijklmnopqrstuvwxyz234567@players.test"}, []byte(msg))
	var tpErr *textproto.Error
	if !errors.As(err, &tpErr) || tpErr.Code != 451 {
		t.Fatalf("a reply while no database answers: %v, want a 451", err)
	}
	if err := <-handled; !events.Unavailable(err) {
		t.Fatalf("the reply failed with %v, not for want of a database", err)
	}
}
