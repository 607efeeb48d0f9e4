package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/smtp"
	"net/textproto"
	"sync/atomic"
	"testing"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/smtpin"
)

// TestSMTPFloodFromOneServer: a server that offers mail to postmaster@
// from a new made-up sender each time, on new connections, alternately to
// two azuld replicas (two listeners, two limiters on one database), gets
// no more taken in all than the per-server limit allows; the rest is
// refused 450 4.7.1 at MAIL FROM, and postmaster never sees it.
func TestSMTPFloodFromOneServer(t *testing.T) {
	t.Parallel()
	pool := pg.NewPool(t)
	policy := policyWith(t, map[string]string{limits.MailClients: "5/h"})
	var taken atomic.Int32
	var addrs []string
	for range 2 {
		admit := limits.MailAdmission(limits.NewChecker(limits.New(pool, limits.Options{}), policy, testLogger(t)), nil)
		srv, err := smtpin.New(smtpin.Config{Domain: "azul.example.org", Admit: admit, Logger: testLogger(t),
			Handler:    func(context.Context, smtpin.Envelope, []byte) error { return errors.New("no replies here") },
			Postmaster: func(context.Context, smtpin.Envelope, []byte) error { taken.Add(1); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = srv.Serve(context.Background(), l) }()
		t.Cleanup(func() { _ = srv.Close() })
		addrs = append(addrs, l.Addr().String())
	}
	refused := 0
	for i := range 40 {
		from := fmt.Sprintf("sender%d@flood.example", i)
		err := smtp.SendMail(addrs[i%2], nil, from, []string{"postmaster@azul.example.org"}, []byte("Subject: hi\r\n\r\nhi\r\n"))
		var te *textproto.Error
		switch {
		case err == nil:
		case errors.As(err, &te) && te.Code == 450:
			refused++
		default:
			t.Fatalf("mail %d: %v", i, err)
		}
	}
	if taken.Load() != 5 || refused != 35 {
		t.Fatalf("%d mails taken and %d refused of 40 from one server, want 5 and 35", taken.Load(), refused)
	}
}
