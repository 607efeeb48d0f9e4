package mailin

import (
	"context"
	"errors"
	"net"
	"net/netip"

	"github.com/azuld/azuld/mail/smtpin"
)

// MailReceiver acts on inbound mail: replies (Receive) and delivery
// reports (ReceiveBounce). *Receiver is one.
type MailReceiver interface {
	Receive(ctx context.Context, env Envelope, raw []byte) (Outcome, error)
	ReceiveBounce(ctx context.Context, rcpts []string, raw []byte) (BounceOutcome, error)
}

// SMTPHandler is the handler of the built-in SMTP listener for the seat
// addresses: an unreadable mail or an unknown address is refused for
// good in the SMTP session (5xx: the sending server bounces it to its
// sender, azuld never sends a bounce itself); a failure of ours is
// temporary (4xx, the sending server retries). Everything else is taken,
// including a mail from the wrong sender, which is dropped without a
// word.
func SMTPHandler(r MailReceiver) smtpin.Handler {
	return func(ctx context.Context, env smtpin.Envelope, raw []byte) error {
		in := Envelope{From: env.From, Rcpts: env.Rcpts}
		if tcp, ok := env.RemoteAddr.(*net.TCPAddr); ok {
			in.RemoteIP, _ = netip.AddrFromSlice(tcp.IP)
			in.RemoteIP = in.RemoteIP.Unmap()
		}
		outcome, err := r.Receive(ctx, in, raw)
		switch {
		case errors.Is(err, ErrMalformed):
			return &smtpin.Reject{Code: 550, Message: "5.6.0 The message could not be read"}
		case err == nil && outcome == OutcomeNoToken:
			return &smtpin.Reject{Code: 550, Message: "5.1.1 No such mailbox"}
		}
		return err
	}
}

// BounceHandler is the handler of the SMTP listener for the return paths
// (bounce+<token>@domain): every readable message is taken (250), whether
// or not it was a report and its token known, so that nothing is ever
// sent back to the reporting server; an unreadable one is refused for
// good (550), and a failure of ours deferred (451).
func BounceHandler(r MailReceiver) smtpin.Handler {
	return func(ctx context.Context, env smtpin.Envelope, raw []byte) error {
		_, err := r.ReceiveBounce(ctx, env.Rcpts, raw)
		if errors.Is(err, ErrMalformed) {
			return &smtpin.Reject{Code: 550, Message: "5.6.0 The message could not be read"}
		}
		return err
	}
}

var _ MailReceiver = (*Receiver)(nil)
