package limits

import (
	"context"
	"errors"
	"net"
	"strings"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/mail/smtpin"
)

// MailAdmission is the SMTP listener's admission check
// (smtpin.Config.Admit) on c: mails per sending server's address and per
// sender address (at MAIL FROM; bounces, which have no sender, per
// sending server's address) and per recipient address (at RCPT TO: seat
// addresses and postmaster@). A refusal is a temporary 450 4.7.1 saying
// when to try again, so an honest sending server keeps the mail and
// delivers it later. cat writes the refusals (nil: their English log
// text, Refusal.Message). A nil c admits every mail.
func MailAdmission(c *Checker, cat *i18n.Catalogue) func(ctx context.Context, remote net.Addr, from, rcpt string) error {
	return func(ctx context.Context, remote net.Addr, from, rcpt string) error {
		return admitMail(ctx, c, cat, remote, from, rcpt)
	}
}

func admitMail(ctx context.Context, c *Checker, cat *i18n.Catalogue, remote net.Addr, from, rcpt string) error {
	host := ""
	if remote != nil {
		host, _, _ = net.SplitHostPort(remote.String())
	}
	var err error
	switch {
	case rcpt != "":
		err = c.Allow(ctx, MailTo, strings.ToLower(rcpt))
	default:
		// Every mail counts against its sending server, whatever sender
		// it names: made-up senders do not make one server many.
		if err = c.Allow(ctx, MailClients, AddressKey(host)); err != nil {
			break
		}
		if from == "" || from == "<>" {
			err = c.Allow(ctx, MailFrom, "<>@"+AddressKey(host))
		} else {
			err = c.Allow(ctx, MailFrom, strings.ToLower(from))
		}
	}
	var ref *Refusal
	if errors.As(err, &ref) {
		// The reply goes to a sending server, not to a reader whose
		// language is known, and SMTP replies are ASCII: English.
		text := ref.Message
		if cat != nil {
			text = ref.Text(cat.Localizer(i18n.Default, nil))
		}
		return &smtpin.Reject{Code: 450, Message: "4.7.1 " + text}
	}
	return err
}
