package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	gomail "github.com/wneessen/go-mail"
)

// Mailer delivers one rendered mail to its recipients.
type Mailer interface {
	Send(ctx context.Context, from string, to []string, raw []byte) error
}

// LogMailer writes mails to the log instead of sending them (no
// AZUL_SMTP_URL configured).
type LogMailer struct{ Logger *slog.Logger }

// Send logs the mail.
func (m LogMailer) Send(ctx context.Context, from string, to []string, raw []byte) error {
	m.Logger.InfoContext(ctx, "mail (no SMTP server configured)", "from", from, "to", to, "message", string(raw))
	return nil
}

// authMechanisms are the mechanisms an SMTP URL may name with auth=...;
// without it go-mail picks the strongest the relay offers (and refuses
// PLAIN and LOGIN without TLS, except to localhost with auth=plain).
var authMechanisms = map[string]gomail.SMTPAuthType{
	"plain": gomail.SMTPAuthPlain, "login": gomail.SMTPAuthLogin, "cram-md5": gomail.SMTPAuthCramMD5,
	"scram-sha-1": gomail.SMTPAuthSCRAMSHA1, "scram-sha-256": gomail.SMTPAuthSCRAMSHA256,
	"plain-noenc": gomail.SMTPAuthPlainNoEnc, "login-noenc": gomail.SMTPAuthLoginNoEnc,
	"autodiscover": gomail.SMTPAuthAutoDiscover,
}

// SMTPMailer sends through an SMTP relay with go-mail, which handles the
// TLS policy and the authentication mechanisms; the message itself is
// sent byte for byte as rendered.
type SMTPMailer struct {
	host string
	opts []gomail.Option
}

// NewSMTPMailer reads a relay URL: smtp://[user:pass@]host[:port][?tls=starttls|opportunistic|none]
// (default port 587, STARTTLS required) or smtps://[user:pass@]host[:port]
// (TLS from the start, default port 465); &auth=<mechanism> picks the
// authentication mechanism, &helo=<name> the HELO name.
func NewSMTPMailer(rawURL string) (*SMTPMailer, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("SMTP URL: %w", err)
	}
	host := u.Hostname()
	if host == "" {
		return nil, errors.New("SMTP URL: no host")
	}
	var opts []gomail.Option
	port := 587
	switch u.Scheme {
	case "smtp":
		switch mode := u.Query().Get("tls"); mode {
		case "", "starttls":
			opts = append(opts, gomail.WithTLSPortPolicy(gomail.TLSMandatory))
		case "opportunistic":
			opts = append(opts, gomail.WithTLSPortPolicy(gomail.TLSOpportunistic))
		case "none":
			opts = append(opts, gomail.WithTLSPortPolicy(gomail.NoTLS))
		default:
			return nil, fmt.Errorf("SMTP URL: tls=%q: want starttls, opportunistic or none", mode)
		}
	case "smtps":
		port = 465
		opts = append(opts, gomail.WithSSLPort(false))
	default:
		return nil, fmt.Errorf("SMTP URL: scheme %q: want smtp or smtps", u.Scheme)
	}
	if p := u.Port(); p != "" {
		port, err = strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return nil, fmt.Errorf("SMTP URL: bad port %q", p)
		}
	}
	opts = append(opts, gomail.WithPort(port))
	if u.User != nil && u.User.Username() != "" {
		pass, _ := u.User.Password()
		mech := gomail.SMTPAuthAutoDiscover
		if v := u.Query().Get("auth"); v != "" {
			m, ok := authMechanisms[strings.ToLower(v)]
			if !ok {
				return nil, fmt.Errorf("SMTP URL: auth=%q: want one of plain, login, cram-md5, scram-sha-1, scram-sha-256, plain-noenc, login-noenc", v)
			}
			mech = m
		}
		opts = append(opts, gomail.WithSMTPAuth(mech),
			gomail.WithUsername(u.User.Username()), gomail.WithPassword(pass))
	}
	if helo := u.Query().Get("helo"); helo != "" {
		opts = append(opts, gomail.WithHELO(helo))
	}
	return &SMTPMailer{host: host, opts: opts}, nil
}

// Send delivers raw to the relay. A 5xx answer is permanent (a retry
// would fail the same way); anything else is retried. When ctx ends first,
// Send returns at once and the session is left to go-mail's per-command
// timeout (closing it from here would wait for the command in progress).
func (m *SMTPMailer) Send(ctx context.Context, from string, to []string, raw []byte) error {
	done := make(chan error, 1)
	go func() { done <- m.send(ctx, from, to, raw) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("SMTP delivery abandoned: %w", ctx.Err())
	}
}

func (m *SMTPMailer) send(ctx context.Context, from string, to []string, raw []byte) error {
	c, err := gomail.NewClient(m.host, m.opts...)
	if err != nil {
		return fmt.Errorf("SMTP client: %w", err)
	}
	sc, err := c.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return fmt.Errorf("SMTP connect to %s: %w", m.host, err)
	}
	defer func() { _ = c.CloseWithSMTPClient(sc) }()
	// The paths go in angle brackets (RFC 5321 4.1.2): go-mail's low-level
	// client sends the argument as it is, and strict servers (mailpit
	// among them) refuse a bare address with 501.
	if err := sc.Mail("<" + from + ">"); err != nil {
		return smtpError("MAIL FROM", err)
	}
	for _, rcpt := range to {
		if err := sc.Rcpt("<" + rcpt + ">"); err != nil {
			return smtpError("RCPT TO "+rcpt, err)
		}
	}
	w, err := sc.Data()
	if err != nil {
		return smtpError("DATA", err)
	}
	if _, err := w.Write(raw); err != nil {
		return smtpError("message", err)
	}
	if err := w.Close(); err != nil {
		return smtpError("end of data", err)
	}
	return nil
}

// ErrPermanent marks a delivery the relay refused for good.
var ErrPermanent = errors.New("permanent delivery failure")

func smtpError(step string, err error) error {
	var te *textproto.Error
	if errors.As(err, &te) && te.Code >= 500 {
		return fmt.Errorf("%w: SMTP %s: %v", ErrPermanent, step, err)
	}
	return fmt.Errorf("SMTP %s: %w", step, err)
}
