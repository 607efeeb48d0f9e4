package mailin_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"testing"

	"github.com/azuld/azuld/mail/smtpin"
	"github.com/azuld/azuld/mailin"
)

// receiver answers every mail with outcome and err, and keeps the last
// envelope.
type receiver struct {
	outcome mailin.Outcome
	err     error
	env     mailin.Envelope
	rcpts   []string
}

func (r *receiver) Receive(_ context.Context, env mailin.Envelope, _ []byte) (mailin.Outcome, error) {
	r.env = env
	return r.outcome, r.err
}

func (r *receiver) ReceiveBounce(_ context.Context, rcpts []string, _ []byte) (mailin.BounceOutcome, error) {
	r.rcpts = rcpts
	return "", r.err
}

func reject(t *testing.T, err error) string {
	t.Helper()
	var rej *smtpin.Reject
	if !errors.As(err, &rej) {
		return fmt.Sprint(err)
	}
	return fmt.Sprintf("%d %s", rej.Code, rej.Message)
}

// The seat addresses' handler: unreadable and unknown are refused for
// good, a failure of ours goes back as it is (a temporary failure), and
// everything else is taken.
func TestSMTPHandler(t *testing.T) {
	ctx := context.Background()
	ours := errors.New("database down")
	for _, c := range []struct {
		outcome mailin.Outcome
		err     error
		want    string
	}{
		{mailin.OutcomeApplied, nil, "<nil>"},
		{mailin.OutcomeForged, nil, "<nil>"},
		{mailin.OutcomeNoToken, nil, "550 5.1.1 No such mailbox"},
		{"", fmt.Errorf("%w: no headers", mailin.ErrMalformed), "550 5.6.0 The message could not be read"},
		{"", ours, ours.Error()},
	} {
		r := &receiver{outcome: c.outcome, err: c.err}
		env := smtpin.Envelope{From: "ann@example.org", Rcpts: []string{"play+abc@azul.example.org"},
			RemoteAddr: &net.TCPAddr{IP: net.ParseIP("::ffff:192.0.2.7"), Port: 25}}
		if got := reject(t, mailin.SMTPHandler(r)(ctx, env, []byte("x"))); got != c.want {
			t.Errorf("%q, %v: %s, want %s", c.outcome, c.err, got, c.want)
		}
		// The sending server's address, for SPF, as IPv4 when it is one.
		if r.env.From != env.From || len(r.env.Rcpts) != 1 || r.env.RemoteIP != netip.MustParseAddr("192.0.2.7") {
			t.Errorf("envelope %+v", r.env)
		}
	}
}

// The return paths' handler takes every readable report.
func TestBounceHandler(t *testing.T) {
	ctx := context.Background()
	env := smtpin.Envelope{Rcpts: []string{"bounce+abc@azul.example.org"}}
	r := &receiver{}
	if err := mailin.BounceHandler(r)(ctx, env, []byte("x")); err != nil || len(r.rcpts) != 1 {
		t.Fatalf("%v, recipients %v", err, r.rcpts)
	}
	r.err = fmt.Errorf("%w: no headers", mailin.ErrMalformed)
	if got := reject(t, mailin.BounceHandler(r)(ctx, env, []byte("x"))); got != "550 5.6.0 The message could not be read" {
		t.Fatalf("unreadable: %s", got)
	}
	ours := errors.New("database down")
	r.err = ours
	if err := mailin.BounceHandler(r)(ctx, env, []byte("x")); !errors.Is(err, ours) {
		t.Fatalf("a failure of ours: %v", err)
	}
}
