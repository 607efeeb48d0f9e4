package notify

import (
	"context"
	"fmt"
)

// MessageSigner signs a rendered mail (mail/dkim.Signer).
type MessageSigner interface {
	Sign(raw []byte) ([]byte, error)
}

// SigningMailer signs every mail with DKIM before its Mailer sends it
// (used only when a key is configured: AZUL_DKIM_KEY). A retried delivery
// is signed again; the signature covers the same bytes, so receivers see
// the same mail.
type SigningMailer struct {
	Mailer Mailer
	Signer MessageSigner
}

// Send signs raw and hands it on. A mail that cannot be signed is not
// sent unsigned: the operator asked for signatures, and receivers that
// enforce DMARC would drop it anyway.
func (m SigningMailer) Send(ctx context.Context, from string, to []string, raw []byte) error {
	signed, err := m.Signer.Sign(raw)
	if err != nil {
		return fmt.Errorf("sign the mail: %w", err)
	}
	return m.Mailer.Send(ctx, from, to, signed)
}

// RelaysMail reports whether mails leave the server (an SMTP relay is
// configured); without one they are written to the log, and the pages
// say so instead of "we mailed you".
func (n *Notifier) RelaysMail() bool { return !n.logsMail() }

// logsMail reports whether mails go to the log (no SMTP relay), signed or
// not.
func (n *Notifier) logsMail() bool {
	m := n.mailer
	if s, ok := m.(SigningMailer); ok {
		m = s.Mailer
	}
	_, ok := m.(LogMailer)
	return ok
}
