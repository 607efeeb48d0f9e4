package mailin_test

import (
	"context"
	"errors"
	"net/textproto"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/bounce"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/play"
)

// TestHardBounceStopsMailAndTellsTheOthers: a delivery status notification
// to a mail's return path, over SMTP, makes the address undeliverable;
// the other seat is told once (another bounce does not tell it again);
// the player's mails stop; mailtest.Verifying the address again clears it.
func TestHardBounceStopsMailAndTellsTheOthers(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, mailtest.Verifying)
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	e.MarkVerified(ana, ben)
	g := e.NewPavilion(ana, ben, nil)
	e.WaitOpeningMails(g, ana, ben, 30*time.Second)
	var anaMail outMail
	for _, m := range e.Relay.All() {
		if slices.Contains(m.To, ana.Email) {
			anaMail = m
		}
	}
	rp := mailtest.ReturnPath(t, anaMail)

	if err := e.SendBounce(rp, mailtest.Report(t, "postfix-user-unknown.eml", rp)); err != nil {
		t.Fatalf("the listener refused a bounce: %v", err)
	}
	if s := e.Status(ana); s != play.EmailUndeliverable {
		t.Fatalf("after a hard bounce, status %q", s)
	}
	if s := e.Status(ben); s != play.EmailOK {
		t.Fatalf("the other player's status became %q", s)
	}
	told := e.Relay.Wait(t, "unreachable", func(m outMail) bool {
		return m.Kind == compose.KindUnreachable && slices.Contains(m.To, ben.Email)
	})
	if !strings.Contains(told.Text, "Ana may not be hearing") {
		t.Errorf("the notice does not name the player:\n%s", told.Text)
	}
	// A second bounce of the same address tells nobody again.
	if err := e.SendBounce(rp, mailtest.Report(t, "postfix-user-unknown.eml", rp)); err != nil {
		t.Fatal(err)
	}
	var notices int
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'azuld_mail' AND args->>'mail' = $1`, compose.KindUnreachable).Scan(&notices); err != nil {
		t.Fatal(err)
	}
	if notices != 1 {
		t.Errorf("%d notices of the undeliverable address enqueued; want 1", notices)
	}
	if n := e.MailsTo(compose.KindUnreachable, ana.Email); n != 0 {
		t.Errorf("the undeliverable player was sent %d notices", n)
	}

	// Mails to the undeliverable address stop: play until Ana must act.
	checked := false
	for i := 0; i < 6 && !checked; i++ {
		cur, err := e.Svc.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		anaSeat := 0
		if slices.Contains(cur.ToAct(), anaSeat) && cur.Version > g.Version {
			if why := e.Skipped(g.ID, anaSeat, compose.KindTurn); !strings.Contains(why, "undeliverable") {
				t.Errorf("a turn mail to an undeliverable address was skipped because %q", why)
			}
			checked = true
			continue
		}
		e.MoveFirst(cur, ana, ben)
	}
	if !checked {
		t.Fatal("Ana never had to act again")
	}

	// Following a link clears it, and the notice may be given again.
	e.MarkVerified(ana)
	if s := e.Status(ana); s != play.EmailOK {
		t.Fatalf("after mailtest.Verifying again, status %q", s)
	}
	var left int
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM undeliverable_notices WHERE player_id = $1`, ana.ID).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d notices left after mailtest.Verifying again (%v)", left, err)
	}
}

// TestSoftBouncesCountToTheThreshold: a full mailbox counts; the third
// within the window makes the address undeliverable.
func TestSoftBouncesCountToTheThreshold(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, mailtest.Verifying)
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	e.MarkVerified(ana, ben)
	g := e.NewPavilion(ana, ben, nil)
	e.WaitOpeningMails(g, ana, ben, 30*time.Second)
	var rp string
	for _, m := range e.Relay.All() {
		if slices.Contains(m.To, ben.Email) {
			rp = mailtest.ReturnPath(t, m)
		}
	}
	want := []mailin.BounceOutcome{mailin.BounceSoftCounted, mailin.BounceSoftCounted, mailin.BounceSoftLimit}
	for i, w := range want {
		raw := mailtest.Report(t, "mailbox-full.eml", rp)
		if i == 0 {
			// The first over SMTP; the rest straight to the handler.
			if err := e.SendBounce(rp, raw); err != nil {
				t.Fatal(err)
			}
			var count int
			if err := e.Pool.QueryRow(ctx, `SELECT email_soft_bounces FROM players WHERE id = $1`, ben.ID).Scan(&count); err != nil || count != 1 {
				t.Fatalf("after one soft bounce over SMTP the count is %d (%v)", count, err)
			}
			if s := e.Status(ben); s != play.EmailOK {
				t.Fatalf("one soft bounce made the status %q", s)
			}
			continue
		}
		got, err := e.In.ReceiveBounce(ctx, []string{rp}, []byte(raw))
		if err != nil || got != w {
			t.Fatalf("soft bounce %d: %q, %v; want %q", i+1, got, err, w)
		}
	}
	if s := e.Status(ben); s != play.EmailUndeliverable {
		t.Fatalf("after three soft bounces, status %q", s)
	}
	e.Relay.Wait(t, "unreachable to ana", func(m outMail) bool {
		return m.Kind == compose.KindUnreachable && slices.Contains(m.To, ana.Email)
	})
}

// TestComplaintMarksUndeliverable: an abuse report (ARF) is a hard
// bounce: the address is mailed no more.
func TestComplaintMarksUndeliverable(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, mailtest.Verifying)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	e.MarkVerified(ana, ben)
	g := e.NewPavilion(ana, ben, nil)
	e.WaitOpeningMails(g, ana, ben, 30*time.Second)
	var rp string
	for _, m := range e.Relay.All() {
		if slices.Contains(m.To, ana.Email) {
			rp = mailtest.ReturnPath(t, m)
		}
	}
	if err := e.SendBounce(rp, mailtest.Report(t, "arf-abuse.eml", rp)); err != nil {
		t.Fatal(err)
	}
	if s := e.Status(ana); s != play.EmailUndeliverable {
		t.Fatalf("after a complaint, status %q", s)
	}
	// The same report through a provider's inbound webhook (Receive),
	// with and without an envelope, is a report too, not a reply.
	for _, env := range []mailin.Envelope{{Rcpts: []string{rp}}, {}} {
		got, err := e.In.Receive(context.Background(), env, []byte(mailtest.Report(t, "arf-abuse.eml", rp)))
		if err != nil || got != mailin.OutcomeBounce {
			t.Errorf("a complaint through Receive (envelope %v): %q, %v", env.Rcpts, got, err)
		}
	}
	e.Relay.Wait(t, "unreachable to ben", func(m outMail) bool {
		return m.Kind == compose.KindUnreachable && slices.Contains(m.To, ben.Email)
	})
}

// TestBadBouncesChangeNothing: garbage to a return path is refused for
// good; a report with an unknown token and a mail that is no report are
// taken and dropped (nothing is ever sent back); no address changes.
func TestBadBouncesChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, mailtest.Verifying)
	ctx := context.Background()
	ana := e.Register("Ana")
	e.MarkVerified(ana)
	// A known token, so a change would show.
	unknown := bounce.Address("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", domain)

	err := e.SendBounce(unknown, "\x00\x01 not a mail at all")
	var te *textproto.Error
	if !errors.As(err, &te) || te.Code != 550 {
		t.Errorf("garbage to a return path: %v; want 550", err)
	}
	if err := e.SendBounce(unknown, mailtest.Report(t, "postfix-user-unknown.eml", unknown)); err != nil {
		t.Errorf("a report with an unknown token was refused: %v", err)
	}
	if got, err := e.In.ReceiveBounce(ctx, []string{unknown}, []byte(mailtest.Report(t, "postfix-user-unknown.eml", unknown))); err != nil || got != mailin.BounceNoToken {
		t.Errorf("unknown token: %q, %v", got, err)
	}
	if err := e.SendBounce(unknown, mailtest.Report(t, "vacation.eml", unknown)); err != nil {
		t.Errorf("an auto-reply to a return path was refused: %v", err)
	}
	// A return path of another domain is no mailbox of ours.
	if err := e.SendBounce("bounce+abc@elsewhere.test", mailtest.Report(t, "postfix-user-unknown.eml", "bounce+abc@elsewhere.test")); err == nil {
		t.Error("a return path of another domain was accepted")
	}
	if s := e.Status(ana); s != play.EmailOK {
		t.Errorf("bad bounces changed an address: %q", s)
	}
	var n int
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM undeliverable_notices`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d notices after bad bounces (%v)", n, err)
	}
}
