package notify

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"time"

	"github.com/riverqueue/river"

	"github.com/azuld/azuld/mail/compose"
)

// SigninArgs is a sign-in mail job: one link to one address. The link is
// a secret, so the job lives only as long as the link does (river deletes
// finished jobs; an undelivered link is useless after Valid anyway).
type SigninArgs struct {
	// PlayerID names the delivery's return path (VERP) owner.
	PlayerID string `json:"player_id,omitempty"`
	// Verify makes it the verification mail (compose.Verification): the
	// same link, worded for a new address.
	Verify bool   `json:"verify,omitempty"`
	To     string `json:"to"`
	Name   string `json:"name,omitempty"`
	// Link is the whole sign-in URL.
	Link string `json:"link"`
	// Valid is how long the link works, for the mail's text.
	Valid time.Duration `json:"valid"`
	// At fixes the mail's date, so a retried delivery renders the same mail.
	At time.Time `json:"at"`
}

// Kind implements river.JobArgs.
func (SigninArgs) Kind() string { return "azuld_signin_mail" }

// signinAttempts bounds the deliveries of a sign-in mail: a link is
// short-lived, so retrying for days would be pointless.
const signinAttempts = 5

// QueueSignin enqueues a sign-in mail.
func (n *Notifier) QueueSignin(ctx context.Context, a SigninArgs) error {
	if _, err := mail.ParseAddress(a.To); err != nil {
		return fmt.Errorf("sign-in mail to %q: %w", a.To, err)
	}
	if _, err := n.client.Insert(ctx, a, &river.InsertOpts{MaxAttempts: signinAttempts}); err != nil {
		return fmt.Errorf("enqueue sign-in mail: %w", err)
	}
	return nil
}

type signinWorker struct {
	river.WorkerDefaults[SigninArgs]
	n *Notifier
}

func (w *signinWorker) Timeout(*river.Job[SigninArgs]) time.Duration { return w.n.cfg.MailTimeout }

// Work renders and sends the mail. Without an SMTP server the mail goes to
// the log like every other, and the link is logged on a line of its own:
// in the logged message it is quoted-printable encoded and may be wrapped.
func (w *signinWorker) Work(ctx context.Context, job *river.Job[SigninArgs]) error {
	n, a := w.n, job.Args
	kind := compose.KindSignin
	lang, zone, err := n.ReaderOf(ctx, a.PlayerID)
	if err != nil {
		n.logDelivery(ctx, job.ID, job.Attempt, "mail:"+kind, "", -1, a.To, "failed", err.Error())
		return err
	}
	confirmed, err := n.confirmed(ctx, a.PlayerID, a.To)
	if err != nil {
		n.logDelivery(ctx, job.ID, job.Attempt, "mail:"+kind, "", -1, a.To, "failed", err.Error())
		return err
	}
	r := compose.Recipient{Name: a.Name, Address: a.To, Confirmed: confirmed, Lang: lang, Zone: zone}
	m := compose.Signin(n.cfg.Sender, r, a.Link, a.Valid, a.At)
	if a.Verify {
		kind = compose.KindVerify
		m = compose.Verification(n.cfg.Sender, r, a.Link, a.Valid, a.At)
	}
	raw, err := m.Bytes()
	if err != nil {
		err = river.JobCancel(fmt.Errorf("render sign-in mail: %w", err))
		n.logDelivery(ctx, job.ID, job.Attempt, "mail:"+kind, "", -1, a.To, "refused", err.Error())
		return err
	}
	// The one mail an unverified or undeliverable address still gets
	// (limited where it is queued: AllowLinkMail); it has a return path
	// of its own too, so a link mail that bounces is seen.
	from, err := n.returnPath(ctx, a.PlayerID)
	if err != nil {
		n.logDelivery(ctx, job.ID, job.Attempt, "mail:"+kind, "", -1, a.To, "failed", err.Error())
		return err
	}
	if n.logsMail() && n.cfg.LinkConsole != nil {
		// No relay: the operator passes the link on. It is printed on
		// the terminal only; the log says that it was.
		if _, err := fmt.Fprintf(n.cfg.LinkConsole, "azuld: no mail relay configured: the %s link for %s (works once, for %s): %s\n",
			linkWord(a.Verify), a.To, a.Valid, a.Link); err != nil {
			n.logDelivery(ctx, job.ID, job.Attempt, "mail:"+kind, "", -1, a.To, "failed", err.Error())
			return fmt.Errorf("print the %s link: %w", linkWord(a.Verify), err)
		}
		n.log.InfoContext(ctx, "mail (no SMTP server configured): its link was printed on the terminal", "kind", kind, "to", a.To)
		n.logDelivery(ctx, job.ID, job.Attempt, "mail:"+kind, "", -1, a.To, "sent", "")
		return nil
	}
	if n.logsMail() {
		n.log.InfoContext(ctx, "sign-in link", "to", a.To, "link", a.Link)
	}
	err = n.mailer.Send(ctx, from, []string{a.To}, raw)
	outcome, detail := "sent", ""
	switch {
	case errors.Is(err, ErrPermanent):
		outcome, detail = "refused", err.Error()
		err = river.JobCancel(err)
	case err != nil:
		outcome, detail = "failed", err.Error()
	}
	n.logDelivery(ctx, job.ID, job.Attempt, "mail:"+kind, "", -1, a.To, outcome, detail)
	return err
}

// linkWord names a link mail's link on the operator's terminal.
func linkWord(verify bool) string {
	if verify {
		return "address confirmation"
	}
	return "sign-in"
}

// confirmed tells whether the player's owner confirmed the address the
// link goes to: only then does the mail name them (compose.Recipient).
func (n *Notifier) confirmed(ctx context.Context, playerID, to string) (bool, error) {
	if playerID == "" {
		return false, nil
	}
	var ok bool
	err := n.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM players WHERE id = $1 AND email_verified AND lower(email) = lower($2))`,
		playerID, to).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("read whether the address is confirmed: %w", err)
	}
	return ok, nil
}
