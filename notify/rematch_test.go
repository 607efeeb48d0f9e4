package notify_test

import (
	"context"
	"strings"
	"testing"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
)

// TestRematchInvitationOnlyToVerifiedAddresses: with addresses verified
// before mail, a rematch invitation to a player whose address is not
// verified is not sent (the delivery log says why).
func TestRematchInvitationOnlyToVerifiedAddresses(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, mailtest.Verifying)
	ctx := context.Background()
	ana, ben := e.Register("Ana"), e.Register("Ben")
	e.MarkVerified(ana)
	old := e.EndByResignation(e.NewPavilion(ana, ben, nil))
	rematch, _, err := e.Svc.Rematch(ctx, old.ID, ana, "api")
	if err != nil {
		t.Fatal(err)
	}
	seat := rematch.ReservedFor(ben.ID)[0]
	if why := e.Skipped(rematch.ID, seat, compose.KindRematch); !strings.Contains(why, "verified") {
		t.Fatalf("the invitation to an unverified address was skipped as %q", why)
	}
	if n := e.MailsTo(compose.KindRematch, ben.Email); n != 0 {
		t.Fatalf("%d invitations reached the unverified address", n)
	}
}
