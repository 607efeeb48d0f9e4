package notify_test

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/mail"
	"net/smtp"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mail/reply"
	"github.com/azuld/azuld/mail/smtpin"
	"github.com/azuld/azuld/mailin"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

var pg *pgtest.Harness

func TestMain(m *testing.M) {
	// The test binary doubles as a separate worker or follower process
	// that a test kills (TestWorkerProcessKilledMidDelivery,
	// TestFollowerProcessKilled).
	if url := os.Getenv(crashWorkerDBEnv); url != "" {
		os.Exit(runWorkerProcess(url, os.Getenv(crashWorkerRelayEnv)))
	}
	if url := os.Getenv(followerDBEnv); url != "" {
		os.Exit(runFollowerProcess(url))
	}
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

const domain = "mail.test"

// relay is the remote SMTP server azuld delivers to (a provider's relay),
// a real go-smtp server on loopback that keeps what it receives.
type relay struct {
	addr string
	mu   sync.Mutex
	msgs []outMail
	// hold, when set, makes DATA wait until it is closed (a delivery in
	// flight); holding is signalled when a DATA waits.
	hold    chan struct{}
	holding chan struct{}
	// failures is how many deliveries to refuse with 451 first.
	failures int
	// user and pass, when set, are required with AUTH PLAIN.
	user, pass string
}

// outMail is a mail the relay received, read back.
type outMail struct {
	// from is the envelope sender (MAIL FROM): the return path.
	from    string
	to      []string
	raw     []byte
	header  mail.Header
	kind    string // from the Message-ID
	game    string
	version int64
	seat    int
	text    string
}

func startRelay(t testing.TB) *relay {
	t.Helper()
	r := &relay{}
	srv := gosmtp.NewServer(gosmtp.BackendFunc(func(*gosmtp.Conn) (gosmtp.Session, error) { return &relaySession{r: r}, nil }))
	srv.Domain = "relay.test"
	srv.AllowInsecureAuth = true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return r
}

type relaySession struct {
	r      *relay
	to     []string
	from   string
	authed bool
}

func (s *relaySession) AuthMechanisms() []string {
	if s.r.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *relaySession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != s.r.user || pass != s.r.pass {
			return &gosmtp.SMTPError{Code: 535, EnhancedCode: gosmtp.EnhancedCode{5, 7, 8}, Message: "bad credentials"}
		}
		s.authed = true
		return nil
	}), nil
}

func (s *relaySession) Reset()        { s.to = nil }
func (s *relaySession) Logout() error { return nil }
func (s *relaySession) Mail(from string, _ *gosmtp.MailOptions) error {
	if s.r.user != "" && !s.authed {
		return &gosmtp.SMTPError{Code: 530, EnhancedCode: gosmtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
	}
	s.from = from
	return nil
}
func (s *relaySession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}
func (s *relaySession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.r.mu.Lock()
	hold, holding := s.r.hold, s.r.holding
	if s.r.failures > 0 {
		s.r.failures--
		s.r.mu.Unlock()
		return &gosmtp.SMTPError{Code: 451, EnhancedCode: gosmtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	}
	s.r.mu.Unlock()
	if hold != nil {
		holding <- struct{}{}
		<-hold
		// The sender hung up while we held it: the mail was not taken.
		return errors.New("connection gone")
	}
	m := outMail{from: s.from, to: s.to, raw: raw}
	if msg, err := mail.ReadMessage(bytes.NewReader(raw)); err == nil {
		m.header = msg.Header
	}
	id := m.header.Get("Message-Id")
	if game, v, seat, ok := compose.ParseMessageID(id, domain); ok {
		m.game, m.version, m.seat = game, v, seat
		local, _, _ := strings.Cut(strings.Trim(id, "<>"), "@")
		parts := strings.Split(local, ".")
		m.kind = parts[len(parts)-1]
	}
	if pm, err := reply.Parse(raw, domain, "", nil); err == nil {
		m.text = pm.Text
	}
	s.r.mu.Lock()
	s.r.msgs = append(s.r.msgs, m)
	s.r.mu.Unlock()
	return nil
}

// holdDeliveries makes every DATA wait until release; holding signals
// each delivery it holds.
func (r *relay) holdDeliveries() {
	r.mu.Lock()
	r.hold, r.holding = make(chan struct{}), make(chan struct{}, 8)
	r.mu.Unlock()
}

// waitHolding waits until the relay holds a delivery.
func (r *relay) waitHolding(t testing.TB) {
	t.Helper()
	select {
	case <-r.holding:
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery started")
	}
}

// release lets the held deliveries end (untaken) and takes the next ones.
func (r *relay) release() {
	r.mu.Lock()
	close(r.hold)
	r.hold = nil
	r.mu.Unlock()
}

// onceEach fails the test for a mail (by Message-ID) the relay received
// more than once.
func (r *relay) onceEach(t testing.TB) {
	t.Helper()
	seen := map[string]int{}
	for _, m := range r.all() {
		seen[m.header.Get("Message-Id")]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("mail %s delivered %d times", id, n)
		}
	}
}

// all returns a copy of the mails received so far.
func (r *relay) all() []outMail {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]outMail(nil), r.msgs...)
}

// wait polls until a mail matches or the time is up.
func (r *relay) wait(t testing.TB, what string, match func(outMail) bool) outMail {
	t.Helper()
	return r.waitWithin(t, 30*time.Second, what, match)
}

// waitWithin is wait with a time limit of its own.
func (r *relay) waitWithin(t testing.TB, limit time.Duration, what string, match func(outMail) bool) outMail {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		for _, m := range r.all() {
			if match(m) {
				return m
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	var kinds []string
	for _, m := range r.all() {
		kinds = append(kinds, fmt.Sprintf("%s v%d seat %d to %v", m.kind, m.version, m.seat, m.to))
	}
	t.Fatalf("no %s mail arrived; the relay has: %v", what, kinds)
	return outMail{}
}

// env is one test's database, command path, notifier, relay and listener.
type env struct {
	t    testing.TB
	url  string
	pool *pgxpool.Pool
	svc  *play.Service
	n    *notify.Notifier
	// in takes the mail that comes in (the SMTP listener's).
	in    *mailin.Receiver
	relay *relay
	// inbound is the address of azuld's SMTP listener.
	inbound string
	// tune changes the configuration of the env's notifiers.
	tune []func(*notify.Config)
	// tuneIn changes the configuration of the env's inbound mail.
	tuneIn []func(*mailin.Config)
}

func newEnv(t testing.TB) *env { t.Helper(); return newEnvWith(t, 2) }

// newEnvWith is newEnv with a number of workers for the notifier the
// command path enqueues through (0: it only enqueues).
func newEnvWith(t testing.TB, workers int) *env {
	t.Helper()
	e := newEnvAt(t, pg.NewDatabase(t), workers)
	e.follow(e.n, notify.FollowOptions{})
	return e
}

// newEnvAt is newEnvWith on a database of the caller's, whose follower of
// the log the caller starts (follow).
func newEnvAt(t testing.TB, url string, workers int) *env {
	t.Helper()
	return newEnvAtWith(t, url, workers)
}

// newEnvWithConfig is newEnvWith whose notifier's configuration tune
// changes (verification of addresses, say).
func newEnvWithConfig(t testing.TB, workers int, tune func(*notify.Config)) *env {
	t.Helper()
	e := newEnvAtWith(t, pg.NewDatabase(t), workers, tune)
	e.follow(e.n, notify.FollowOptions{})
	return e
}

// newEnvWithInbound is newEnvWith whose inbound mail's configuration
// tune changes (the checks of SPF and DKIM, the limits of table talk).
func newEnvWithInbound(t testing.TB, workers int, tune func(*mailin.Config)) *env {
	t.Helper()
	e := newEnvOn(t, pg.NewDatabase(t), workers, nil, []func(*mailin.Config){tune})
	e.follow(e.n, notify.FollowOptions{})
	return e
}

// newEnvAtWith is newEnvAt with changes to the notifier's configuration.
func newEnvAtWith(t testing.TB, url string, workers int, tune ...func(*notify.Config)) *env {
	t.Helper()
	return newEnvOn(t, url, workers, tune, nil)
}

// newEnvOn is newEnvAt with changes to the notifier's and the inbound
// mail's configuration.
func newEnvOn(t testing.TB, url string, workers int, tune []func(*notify.Config), tuneIn []func(*mailin.Config)) *env {
	t.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e := &env{t: t, url: url, pool: pool, relay: startRelay(t), tune: tune, tuneIn: tuneIn}
	e.n = e.newNotifier(workers)
	// As in azuld: a move is one round trip, the rest follows from the
	// log; with workers, they move the bots.
	e.svc = play.New(play.Config{Pool: pool, Store: events.NewStore(pool), Rules: rulesets.All(), BotJobs: workers > 0})
	e.n.Attach(e.svc)
	e.start(e.n)
	icfg := mailin.Config{Pool: pool, Service: e.svc, Outbox: e.n}
	for _, f := range tuneIn {
		f(&icfg)
	}
	if e.in, err = mailin.New(icfg); err != nil {
		t.Fatal(err)
	}
	in, err := smtpin.New(smtpin.Config{Domain: domain, Handler: mailin.SMTPHandler(e.in), Bounce: mailin.BounceHandler(e.in)})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.inbound = l.Addr().String()
	go func() { _ = in.Serve(ctx, l) }()
	t.Cleanup(func() { _ = in.Close() })
	return e
}

// newNotifier builds a notifier on the test's database that delivers to
// the relay, tuned to poll and retry fast.
func (e *env) newNotifier(workers int) *notify.Notifier {
	e.t.Helper()
	n, err := newTestNotifier(e.pool, e.relay.addr, workers, e.tune...)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// newTestNotifier is a notifier tuned to poll and retry fast that
// delivers to the relay at relayAddr.
func newTestNotifier(pool *pgxpool.Pool, relayAddr string, workers int, tune ...func(*notify.Config)) (*notify.Notifier, error) {
	mailer, err := notify.NewSMTPMailer("smtp://" + relayAddr + "?tls=none")
	if err != nil {
		return nil, err
	}
	cfg := notify.Config{
		Pool:   pool,
		Sender: compose.Sender{Domain: domain, From: mail.Address{Name: "azuld", Address: "azuld@" + domain}, BaseURL: "http://azuld.test"},
		Mailer: mailer, Workers: workers,
		FetchPollInterval: 10 * time.Millisecond, RetryPolicy: notify.FixedRetry(20 * time.Millisecond),
		// An attempt that runs out of time after the relay took the
		// mail but before its answer came is sent again (SMTP delivers
		// at least once): on a busy machine a second is too short.
		// A job still marked running this long after it started is
		// taken for one whose process died and is run again: far longer
		// than an attempt may take plus the time a busy machine needs to
		// record that it ended, or a slow delivery would go out twice.
		RescueStuckJobsAfter: 15 * time.Second, MailTimeout: 5 * time.Second, WebhookTimeout: time.Second,
		// The bot authors' endpoints of the tests are on loopback.
		WebhookAllowPrivate: true,
	}
	for _, f := range tune {
		f(&cfg)
	}
	return notify.New(cfg)
}

func (e *env) start(n *notify.Notifier) {
	e.t.Helper()
	n.Attach(e.svc)
	if err := n.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = n.Shutdown(ctx)
	})
}

// follow runs n's follower of the log, woken by a listener and tuned to
// poll and retry fast (unless opts says otherwise), until the returned
// function or the test's end stops it.
func (e *env) follow(n *notify.Notifier, opts notify.FollowOptions) (stop func()) {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	listener := events.NewListener(e.url, nil)
	wake, stopWake := listener.SubscribeAll()
	opts.Wake = wake
	opts.PollInterval = cmp.Or(opts.PollInterval, 20*time.Millisecond)
	opts.RetryAfter = cmp.Or(opts.RetryAfter, 50*time.Millisecond)
	done := make(chan struct{}, 2)
	go func() { _ = listener.Run(ctx); done <- struct{}{} }()
	go func() {
		if err := n.Follow(ctx, opts); err != nil {
			e.t.Errorf("follow: %v", err)
		}
		done <- struct{}{}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			stopWake()
			<-done
			<-done
		})
	}
	e.t.Cleanup(stop)
	return stop
}

// caughtUp waits until the follower of the log has handled every event
// committed so far: the turn inbox, the results and the jobs are written.
func (e *env) caughtUp(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := events.NewConsumer(e.pool, notify.OutboxConsumer).WaitCaughtUp(ctx, 5*time.Millisecond); err != nil {
		t.Fatal(err)
	}
}

func (e *env) register(name string) play.Player {
	e.t.Helper()
	p, _, err := e.svc.RegisterPlayer(context.Background(), name, strings.ToLower(name)+"@example.org", play.Preferences{})
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

// eventCount is the length of a game's log.
func (e *env) eventCount(gameID string) int64 {
	e.t.Helper()
	g, err := e.svc.Game(context.Background(), gameID)
	if err != nil {
		e.t.Fatal(err)
	}
	return g.Version
}

// replyTo is the Reply-To address of a mail.
func replyTo(t testing.TB, m outMail) string {
	t.Helper()
	a, err := mail.ParseAddress(m.header.Get("Reply-To"))
	if err != nil || !strings.HasPrefix(a.Address, "play+") || !strings.HasSuffix(a.Address, "@"+domain) {
		t.Fatalf("Reply-To %q: %v", m.header.Get("Reply-To"), err)
	}
	return a.Address
}

// sendReply answers a mail through azuld's SMTP listener with a real SMTP
// client: body is the text above the quote.
func (e *env) sendReply(from, to, inReplyTo, messageID, body string) error {
	if messageID == "" {
		messageID = fmt.Sprintf("<%d.%d@example.org>", time.Now().UnixNano(), len(body))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: Re: your turn\r\nDate: %s\r\nMessage-ID: %s\r\n", from, to, time.Now().Format(time.RFC1123Z), messageID)
	if inReplyTo != "" {
		fmt.Fprintf(&b, "In-Reply-To: %s\r\nReferences: %s\r\n", inReplyTo, inReplyTo)
	}
	b.WriteString("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
	b.WriteString(strings.ReplaceAll(body, "\n", "\r\n"))
	b.WriteString("\r\n\r\nOn Mon, 23 Nov 2026 at 10:00, azuld <azuld@mail.test> wrote:\r\n> It is your turn.\r\n> 1. something\r\n")
	envelopeFrom := from
	if a, err := mail.ParseAddress(from); err == nil {
		envelopeFrom = a.Address
	}
	return smtp.SendMail(e.inbound, nil, envelopeFrom, []string{to}, []byte(b.String()))
}

// sendRaw sends a raw message through the SMTP listener.
func sendRaw(addr, from, to, raw string) error {
	return smtp.SendMail(addr, nil, from, []string{to}, []byte(raw))
}

// createAccepted is CreateGame followed by every invited player's
// acceptance (a join): the game as a test of a running game needs it.
func createAccepted(ctx context.Context, svc *play.Service, creator play.Player, req play.CreateGame, key string) (*play.Game, error) {
	g, err := svc.CreateGame(ctx, creator, req, key)
	if err != nil {
		return nil, err
	}
	for _, id := range g.Awaiting() {
		if g, err = svc.Join(ctx, g.ID, play.Player{ID: id}, nil); err != nil {
			return nil, err
		}
	}
	return g, nil
}
