package notify_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/smtp"
	"net/textproto"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/mail/authcheck"
	"github.com/azuld/azuld/mail/bounce"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

func verifying(c *notify.Config) { c.VerifyAddresses = true }

// skipped waits for the delivery log to say why a mail to a seat of a
// game was not sent, and returns the reason.
func (e *env) skipped(gameID string, seat int, kind string) string {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var detail string
		err := e.pool.QueryRow(context.Background(), `
			SELECT detail FROM deliveries WHERE game_id = $1 AND seat = $2 AND kind = $3 AND outcome = 'skipped'
			ORDER BY id DESC LIMIT 1`, gameID, seat, "mail:"+kind).Scan(&detail)
		if err == nil {
			return detail
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.t.Fatalf("no skipped %s mail to seat %d of game %s in the delivery log", kind, seat, gameID)
	return ""
}

// status reads a player's address status as the API shows it.
func (e *env) status(p play.Player) string {
	e.t.Helper()
	got, err := e.svc.Player(context.Background(), p.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return got.EmailStatus
}

func (e *env) markVerified(ps ...play.Player) {
	e.t.Helper()
	for _, p := range ps {
		if err := notify.MarkVerified(context.Background(), e.pool, p.ID); err != nil {
			e.t.Fatal(err)
		}
	}
}

// mailsTo counts the mails of a kind the relay received for an address.
func (e *env) mailsTo(kind, address string) int {
	n := 0
	for _, m := range e.relay.all() {
		if m.kind == kind && slices.Contains(m.to, address) {
			n++
		}
	}
	return n
}

// report reads a bounce of mail/bounce's test data, addressed to
// returnPath instead of its own return path.
func report(t *testing.T, file, returnPath string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "mail", "bounce", "testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	old := map[string]string{
		"postfix-user-unknown.eml": "bounce+k7tq2mxa4rb3@azul.example",
		"mailbox-full.eml":         "bounce+m3zq7vwdp2aa@azul.example",
		"arf-abuse.eml":            "bounce+r4r4ab2cdd7q@azul.example",
		"vacation.eml":             "",
	}[file]
	s := string(raw)
	if old != "" {
		s = strings.ReplaceAll(s, old, returnPath)
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// sendBounce delivers a report to a return path through azuld's SMTP
// listener, from the null sender as reporting servers do.
func (e *env) sendBounce(to, raw string) error {
	return smtp.SendMail(e.inbound, nil, "", []string{to}, []byte(raw))
}

// returnPath is the envelope sender of a mail the relay received, which
// must be a return path of azuld's own domain.
func returnPath(t *testing.T, m outMail) string {
	t.Helper()
	if bounce.Token(m.from, domain) == "" || !strings.HasPrefix(m.from, bounce.LocalPrefix) {
		t.Fatalf("mail %s went out with MAIL FROM %q, not a return path bounce+<token>@%s", m.header.Get("Message-Id"), m.from, domain)
	}
	return m.from
}

// TestUnverifiedAddressGetsOnlyTheVerificationMail: with verification on,
// seating a player whose address is unverified mails them nothing (the
// delivery log says why), the verification mail still goes out, and once
// the link is followed (MarkVerified, which the web's link calls) the
// mails come.
func TestUnverifiedAddressGetsOnlyTheVerificationMail(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, verifying)
	ctx := context.Background()
	ana, ben := e.register("Ana"), e.register("Ben")
	if ana.EmailVerified || ana.EmailStatus != play.EmailUnverified {
		t.Fatalf("a new player's address: verified %v, status %q; want unverified", ana.EmailVerified, ana.EmailStatus)
	}
	g := e.newPavilion(ana, ben, nil)
	first := g.ToAct()[0]
	other := 1 - first
	if why := e.skipped(g.ID, first, compose.KindTurn); !strings.Contains(why, "not verified") {
		t.Errorf("the turn mail to an unverified address was skipped because %q", why)
	}
	if why := e.skipped(g.ID, other, compose.KindStarted); !strings.Contains(why, "not verified") {
		t.Errorf("the start mail to an unverified address was skipped because %q", why)
	}

	// The verification mail is the exception, with a return path.
	if err := e.n.QueueSignin(ctx, notify.SigninArgs{PlayerID: ana.ID, Verify: true, To: ana.Email, Name: ana.Name, Link: "http://azuld.test/signin/link/abc", Valid: 48 * time.Hour, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	v := e.relay.wait(t, "verification", func(m outMail) bool {
		return strings.HasPrefix(m.header.Get("Message-Id"), "<verify.") && slices.Contains(m.to, ana.Email)
	})
	returnPath(t, v)
	if !strings.Contains(string(v.raw), "confirm") {
		t.Errorf("the verification mail does not ask to confirm the address:\n%s", v.raw)
	}

	// The seat not to move first follows the link; after the first move
	// it must act, and is mailed.
	seated := map[int]play.Player{0: ana, 1: ben}
	e.markVerified(seated[other])
	if s := e.status(seated[other]); s != play.EmailOK {
		t.Fatalf("after the link, status %q", s)
	}
	res := e.moveFirst(g, ana, ben)
	after, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(after.ToAct(), other) {
		t.Fatalf("after the first move seats %v act; the test wants seat %d", after.ToAct(), other)
	}
	returnPath(t, e.turnMail(g.ID, other, res.Version))
	if n := len(e.relay.all()); n == 0 {
		t.Fatal("no mail at all after verification")
	}
	for _, m := range e.relay.all() {
		if slices.Contains(m.to, seated[first].Email) && m.kind != "" {
			t.Errorf("the unverified address got a %s mail", m.kind)
		}
	}
}

// TestVerificationOffMailsAtOnce: AZUL_VERIFY_ADDRESSES=false mails an
// unverified address as before.
func TestVerificationOffMailsAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, func(c *notify.Config) { c.VerifyAddresses = false })
	ana, ben := e.register("Ana"), e.register("Ben")
	if ana.EmailVerified {
		t.Fatal("a new player's address starts verified")
	}
	g := e.newPavilion(ana, ben, nil)
	e.waitOpeningMails(g, ana, ben, 30*time.Second)
}

// TestHardBounceStopsMailAndTellsTheOthers: a delivery status notification
// to a mail's return path, over SMTP, makes the address undeliverable;
// the other seat is told once (another bounce does not tell it again);
// the player's mails stop; verifying the address again clears it.
func TestHardBounceStopsMailAndTellsTheOthers(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, verifying)
	ctx := context.Background()
	ana, ben := e.register("Ana"), e.register("Ben")
	e.markVerified(ana, ben)
	g := e.newPavilion(ana, ben, nil)
	e.waitOpeningMails(g, ana, ben, 30*time.Second)
	var anaMail outMail
	for _, m := range e.relay.all() {
		if slices.Contains(m.to, ana.Email) {
			anaMail = m
		}
	}
	rp := returnPath(t, anaMail)

	if err := e.sendBounce(rp, report(t, "postfix-user-unknown.eml", rp)); err != nil {
		t.Fatalf("the listener refused a bounce: %v", err)
	}
	if s := e.status(ana); s != play.EmailUndeliverable {
		t.Fatalf("after a hard bounce, status %q", s)
	}
	if s := e.status(ben); s != play.EmailOK {
		t.Fatalf("the other player's status became %q", s)
	}
	told := e.relay.wait(t, "unreachable", func(m outMail) bool {
		return m.kind == compose.KindUnreachable && slices.Contains(m.to, ben.Email)
	})
	if !strings.Contains(told.text, "Ana may not be hearing") {
		t.Errorf("the notice does not name the player:\n%s", told.text)
	}
	// A second bounce of the same address tells nobody again.
	if err := e.sendBounce(rp, report(t, "postfix-user-unknown.eml", rp)); err != nil {
		t.Fatal(err)
	}
	var notices int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'azuld_mail' AND args->>'mail' = $1`, compose.KindUnreachable).Scan(&notices); err != nil {
		t.Fatal(err)
	}
	if notices != 1 {
		t.Errorf("%d notices of the undeliverable address enqueued; want 1", notices)
	}
	if n := e.mailsTo(compose.KindUnreachable, ana.Email); n != 0 {
		t.Errorf("the undeliverable player was sent %d notices", n)
	}

	// Mails to the undeliverable address stop: play until Ana must act.
	checked := false
	for i := 0; i < 6 && !checked; i++ {
		cur, err := e.svc.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		anaSeat := 0
		if slices.Contains(cur.ToAct(), anaSeat) && cur.Version > g.Version {
			if why := e.skipped(g.ID, anaSeat, compose.KindTurn); !strings.Contains(why, "undeliverable") {
				t.Errorf("a turn mail to an undeliverable address was skipped because %q", why)
			}
			checked = true
			continue
		}
		e.moveFirst(cur, ana, ben)
	}
	if !checked {
		t.Fatal("Ana never had to act again")
	}

	// Following a link clears it, and the notice may be given again.
	e.markVerified(ana)
	if s := e.status(ana); s != play.EmailOK {
		t.Fatalf("after verifying again, status %q", s)
	}
	var left int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM undeliverable_notices WHERE player_id = $1`, ana.ID).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d notices left after verifying again (%v)", left, err)
	}
}

// TestSoftBouncesCountToTheThreshold: a full mailbox counts; the third
// within the window makes the address undeliverable.
func TestSoftBouncesCountToTheThreshold(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, verifying)
	ctx := context.Background()
	ana, ben := e.register("Ana"), e.register("Ben")
	e.markVerified(ana, ben)
	g := e.newPavilion(ana, ben, nil)
	e.waitOpeningMails(g, ana, ben, 30*time.Second)
	var rp string
	for _, m := range e.relay.all() {
		if slices.Contains(m.to, ben.Email) {
			rp = returnPath(t, m)
		}
	}
	want := []mailin.BounceOutcome{mailin.BounceSoftCounted, mailin.BounceSoftCounted, mailin.BounceSoftLimit}
	for i, w := range want {
		raw := report(t, "mailbox-full.eml", rp)
		if i == 0 {
			// The first over SMTP; the rest straight to the handler.
			if err := e.sendBounce(rp, raw); err != nil {
				t.Fatal(err)
			}
			var count int
			if err := e.pool.QueryRow(ctx, `SELECT email_soft_bounces FROM players WHERE id = $1`, ben.ID).Scan(&count); err != nil || count != 1 {
				t.Fatalf("after one soft bounce over SMTP the count is %d (%v)", count, err)
			}
			if s := e.status(ben); s != play.EmailOK {
				t.Fatalf("one soft bounce made the status %q", s)
			}
			continue
		}
		got, err := e.in.ReceiveBounce(ctx, []string{rp}, []byte(raw))
		if err != nil || got != w {
			t.Fatalf("soft bounce %d: %q, %v; want %q", i+1, got, err, w)
		}
	}
	if s := e.status(ben); s != play.EmailUndeliverable {
		t.Fatalf("after three soft bounces, status %q", s)
	}
	e.relay.wait(t, "unreachable to ana", func(m outMail) bool {
		return m.kind == compose.KindUnreachable && slices.Contains(m.to, ana.Email)
	})
}

// TestComplaintMarksUndeliverable: an abuse report (ARF) is a hard
// bounce: the address is mailed no more.
func TestComplaintMarksUndeliverable(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, verifying)
	ana, ben := e.register("Ana"), e.register("Ben")
	e.markVerified(ana, ben)
	g := e.newPavilion(ana, ben, nil)
	e.waitOpeningMails(g, ana, ben, 30*time.Second)
	var rp string
	for _, m := range e.relay.all() {
		if slices.Contains(m.to, ana.Email) {
			rp = returnPath(t, m)
		}
	}
	if err := e.sendBounce(rp, report(t, "arf-abuse.eml", rp)); err != nil {
		t.Fatal(err)
	}
	if s := e.status(ana); s != play.EmailUndeliverable {
		t.Fatalf("after a complaint, status %q", s)
	}
	// The same report through a provider's inbound webhook (Receive),
	// with and without an envelope, is a report too, not a reply.
	for _, env := range []mailin.Envelope{{Rcpts: []string{rp}}, {}} {
		got, err := e.in.Receive(context.Background(), env, []byte(report(t, "arf-abuse.eml", rp)))
		if err != nil || got != mailin.OutcomeBounce {
			t.Errorf("a complaint through Receive (envelope %v): %q, %v", env.Rcpts, got, err)
		}
	}
	e.relay.wait(t, "unreachable to ben", func(m outMail) bool {
		return m.kind == compose.KindUnreachable && slices.Contains(m.to, ben.Email)
	})
}

// TestBadBouncesChangeNothing: garbage to a return path is refused for
// good; a report with an unknown token and a mail that is no report are
// taken and dropped (nothing is ever sent back); no address changes.
func TestBadBouncesChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 2, verifying)
	ctx := context.Background()
	ana := e.register("Ana")
	e.markVerified(ana)
	// A known token, so a change would show.
	unknown := bounce.Address("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", domain)

	err := e.sendBounce(unknown, "\x00\x01 not a mail at all")
	var te *textproto.Error
	if !errors.As(err, &te) || te.Code != 550 {
		t.Errorf("garbage to a return path: %v; want 550", err)
	}
	if err := e.sendBounce(unknown, report(t, "postfix-user-unknown.eml", unknown)); err != nil {
		t.Errorf("a report with an unknown token was refused: %v", err)
	}
	if got, err := e.in.ReceiveBounce(ctx, []string{unknown}, []byte(report(t, "postfix-user-unknown.eml", unknown))); err != nil || got != mailin.BounceNoToken {
		t.Errorf("unknown token: %q, %v", got, err)
	}
	if err := e.sendBounce(unknown, report(t, "vacation.eml", unknown)); err != nil {
		t.Errorf("an auto-reply to a return path was refused: %v", err)
	}
	// A return path of another domain is no mailbox of ours.
	if err := e.sendBounce("bounce+abc@elsewhere.test", report(t, "postfix-user-unknown.eml", "bounce+abc@elsewhere.test")); err == nil {
		t.Error("a return path of another domain was accepted")
	}
	if s := e.status(ana); s != play.EmailOK {
		t.Errorf("bad bounces changed an address: %q", s)
	}
	var n int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM undeliverable_notices`).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d notices after bad bounces (%v)", n, err)
	}
}

// TestLinkMailsToUnverifiedAddressesAreLimited: the verification mail and
// one more a day; a verified address is not limited.
func TestLinkMailsToUnverifiedAddressesAreLimited(t *testing.T) {
	t.Parallel()
	e := newEnvWithConfig(t, 0, verifying)
	ctx := context.Background()
	ana, ben := e.register("Ana"), e.register("Ben")
	now := time.Now()
	for i := range notify.LinkMailsPerDay {
		if err := notify.AllowLinkMail(ctx, e.pool, ana.ID, now, true); err != nil {
			t.Fatalf("link mail %d: %v", i+1, err)
		}
	}
	if err := notify.AllowLinkMail(ctx, e.pool, ana.ID, now, true); !errors.Is(err, notify.ErrLinkMailLimit) {
		t.Fatalf("a third link mail in a day: %v", err)
	}
	if err := notify.AllowLinkMail(ctx, e.pool, ana.ID, now.Add(25*time.Hour), true); err != nil {
		t.Fatalf("a link mail the next day: %v", err)
	}
	// Without verification an unverified address is not limited.
	for range 5 {
		if err := notify.AllowLinkMail(ctx, e.pool, ben.ID, now, false); err != nil {
			t.Fatalf("an unverified address was limited without verification: %v", err)
		}
	}
	e.markVerified(ben)
	for range 5 {
		if err := notify.AllowLinkMail(ctx, e.pool, ben.ID, now, true); err != nil {
			t.Fatalf("a verified address was limited: %v", err)
		}
	}
}

// dnsZone serves real SPF and DMARC records from memory to the checks of
// incoming mail.
type dnsZone map[string][]string

func (z dnsZone) LookupTXT(_ context.Context, name string) ([]string, error) {
	if v, ok := z[strings.TrimSuffix(name, ".")]; ok {
		return v, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (z dnsZone) LookupNetIP(_ context.Context, _, name string) ([]netip.Addr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

func (z dnsZone) LookupMX(_ context.Context, name string) ([]*net.MX, error) {
	return nil, &net.DNSError{Err: "no such host", Name: name, IsNotFound: true}
}

// TestMoveByMailRecordsMailAuth: the SMTP listener checks SPF, DKIM and
// DMARC of a reply and the move's meta (the audit log) keeps the verdicts
// and the From domain, no address.
func TestMoveByMailRecordsMailAuth(t *testing.T) {
	t.Parallel()
	zone := dnsZone{
		// The test's SMTP client connects from loopback.
		"example.org":        {"v=spf1 ip4:127.0.0.0/8 -all"},
		"_dmarc.example.org": {"v=DMARC1; p=quarantine"},
	}
	e := newEnvWithInbound(t, 2, func(c *mailin.Config) { c.MailAuth = authcheck.New(zone) })
	ana, ben := e.register("Ana"), e.register("Ben")
	g := e.newPavilion(ana, ben, nil)
	seat := g.ToAct()[0]
	p := map[int]play.Player{0: ana, 1: ben}[seat]
	m := e.turnMail(g.ID, seat, g.Version)
	if err := e.sendReply(p.Email, replyTo(t, m), m.header.Get("Message-Id"), "", "1"); err != nil {
		t.Fatal(err)
	}
	e.waitVersion(g.ID, g.Version)
	recs, err := e.svc.Events(context.Background(), g.ID, g.Version, 1)
	if err != nil || len(recs) == 0 {
		t.Fatalf("the move's events: %v", err)
	}
	want := "spf=pass dkim=none dmarc=pass (p=quarantine) from=example.org"
	if got := recs[0].Meta.MailAuth; got != want {
		t.Fatalf("the move's mail_auth is %q; want %q", got, want)
	}
	// A move by the API records none.
	g2, err := e.svc.Game(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	res := e.moveFirst(g2, ana, ben)
	if res.Events[0].Meta.MailAuth != "" {
		t.Errorf("a move by the API has mail_auth %q", res.Events[0].Meta.MailAuth)
	}
}
