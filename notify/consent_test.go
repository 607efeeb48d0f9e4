package notify_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// TestUnverifiedAddressGetsOnlyTheVerificationMail: with verification on,
// seating a player whose address is unverified mails them nothing (the
// delivery log says why), the verification mail still goes out, and once
// the link is followed (MarkVerified, which the web's link calls) the
// mails come.
func TestUnverifiedAddressGetsOnlyTheVerificationMail(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, mailtest.Verifying)
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	if ana.EmailVerified || ana.EmailStatus != play.EmailUnverified {
		t.Fatalf("a new player's address: verified %v, status %q; want unverified", ana.EmailVerified, ana.EmailStatus)
	}
	g := e.NewPavilion(ana, ben, nil)
	first := g.ToAct()[0]
	other := 1 - first
	if why := e.Skipped(g.ID, first, compose.KindTurn); !strings.Contains(why, "not verified") {
		t.Errorf("the turn mail to an unverified address was skipped because %q", why)
	}
	if why := e.Skipped(g.ID, other, compose.KindStarted); !strings.Contains(why, "not verified") {
		t.Errorf("the start mail to an unverified address was skipped because %q", why)
	}

	// The verification mail is the exception, with a return path.
	if err := e.N.QueueSignin(ctx, notify.SigninArgs{PlayerID: ana.ID, Verify: true, To: ana.Email, Name: ana.Name, Link: "http://azuld.test/signin/link/abc", Valid: 48 * time.Hour, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	v := e.Relay.Wait(t, "verification", func(m outMail) bool {
		return strings.HasPrefix(m.Header.Get("Message-Id"), "<verify.") && slices.Contains(m.To, ana.Email)
	})
	mailtest.ReturnPath(t, v)
	if !strings.Contains(string(v.Raw), "confirm") {
		t.Errorf("the verification mail does not ask to confirm the address:\n%s", v.Raw)
	}

	// The seat not to move first follows the link; after the first move
	// it must act, and is mailed.
	seated := map[int]play.Player{0: ana, 1: ben}
	e.MarkVerified(seated[other])
	if s := e.Status(seated[other]); s != play.EmailOK {
		t.Fatalf("after the link, status %q", s)
	}
	res := e.MoveFirst(g, ana, ben)
	after, err := e.Svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(after.ToAct(), other) {
		t.Fatalf("after the first move seats %v act; the test wants seat %d", after.ToAct(), other)
	}
	mailtest.ReturnPath(t, e.TurnMail(g.ID, other, res.Version))
	if n := len(e.Relay.All()); n == 0 {
		t.Fatal("no mail at all after verification")
	}
	for _, m := range e.Relay.All() {
		if slices.Contains(m.To, seated[first].Email) && m.Kind != "" {
			t.Errorf("the unverified address got a %s mail", m.Kind)
		}
	}
}

// TestVerificationOffMailsAtOnce: AZUL_VERIFY_ADDRESSES=false mails an
// unverified address as before.
func TestVerificationOffMailsAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, func(c *notify.Config) { c.VerifyAddresses = false })
	ana, ben := e.Register("Ana"), e.Register("Ben")
	if ana.EmailVerified {
		t.Fatal("a new player's address starts verified")
	}
	g := e.NewPavilion(ana, ben, nil)
	e.WaitOpeningMails(g, ana, ben, 30*time.Second)
}

// TestLinkMailsToUnverifiedAddressesAreLimited: the verification mail and
// one more a day; a verified address is not limited.
func TestLinkMailsToUnverifiedAddressesAreLimited(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 0, mailtest.Verifying)
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	now := time.Now()
	for i := range notify.LinkMailsPerDay {
		if err := notify.AllowLinkMail(ctx, e.Pool, ana.ID, now, true); err != nil {
			t.Fatalf("link mail %d: %v", i+1, err)
		}
	}
	if err := notify.AllowLinkMail(ctx, e.Pool, ana.ID, now, true); !errors.Is(err, notify.ErrLinkMailLimit) {
		t.Fatalf("a third link mail in a day: %v", err)
	}
	if err := notify.AllowLinkMail(ctx, e.Pool, ana.ID, now.Add(25*time.Hour), true); err != nil {
		t.Fatalf("a link mail the next day: %v", err)
	}
	// Without verification an unverified address is not limited.
	for range 5 {
		if err := notify.AllowLinkMail(ctx, e.Pool, ben.ID, now, false); err != nil {
			t.Fatalf("an unverified address was limited without verification: %v", err)
		}
	}
	e.MarkVerified(ben)
	for range 5 {
		if err := notify.AllowLinkMail(ctx, e.Pool, ben.ID, now, true); err != nil {
			t.Fatalf("a verified address was limited: %v", err)
		}
	}
}
