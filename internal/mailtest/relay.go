package mailtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mail/reply"
)

// Relay is the remote SMTP server azuld delivers to (a provider's relay),
// a real go-smtp server on loopback that keeps what it receives.
type Relay struct {
	// Addr is the relay's address (host:port) on loopback.
	Addr string

	mu   sync.Mutex
	msgs []Mail
	// hold, when set, makes DATA wait until it is closed (a delivery in
	// flight); holding is signalled when a DATA waits.
	hold    chan struct{}
	holding chan struct{}
	// failures is how many deliveries to refuse with 451 first.
	failures int
	// user and pass, when set, are required with AUTH PLAIN.
	user, pass string
}

// Mail is a mail the relay received, read back.
type Mail struct {
	// From is the envelope sender (MAIL FROM): the return path.
	From string
	// To are the envelope recipients (RCPT TO).
	To     []string
	Raw    []byte
	Header mail.Header
	// Kind, Game, Version and Seat are read from the Message-ID of a
	// game's mail (compose.ParseMessageID); empty for any other.
	Kind    string
	Game    string
	Version int64
	Seat    int
	// Text is the mail's text as a reply to it would read it.
	Text string
}

// StartRelay serves a relay on loopback until the test ends.
func StartRelay(t testing.TB) *Relay {
	t.Helper()
	r := &Relay{}
	srv := gosmtp.NewServer(gosmtp.BackendFunc(func(*gosmtp.Conn) (gosmtp.Session, error) { return &relaySession{r: r}, nil }))
	srv.Domain = "relay.test"
	srv.AllowInsecureAuth = true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.Addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return r
}

// RequireAuth makes the relay take mail only from a client that
// authenticated with AUTH PLAIN as user with pass.
func (r *Relay) RequireAuth(user, pass string) {
	r.mu.Lock()
	r.user, r.pass = user, pass
	r.mu.Unlock()
}

// FailNext makes the relay refuse the next n deliveries with 451 (try
// again later).
func (r *Relay) FailNext(n int) {
	r.mu.Lock()
	r.failures = n
	r.mu.Unlock()
}

func (r *Relay) credentials() (user, pass string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.user, r.pass
}

type relaySession struct {
	r      *Relay
	to     []string
	from   string
	authed bool
}

func (s *relaySession) AuthMechanisms() []string {
	if user, _ := s.r.credentials(); user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *relaySession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if u, p := s.r.credentials(); user != u || pass != p {
			return &gosmtp.SMTPError{Code: 535, EnhancedCode: gosmtp.EnhancedCode{5, 7, 8}, Message: "bad credentials"}
		}
		s.authed = true
		return nil
	}), nil
}

func (s *relaySession) Reset()        { s.to = nil }
func (s *relaySession) Logout() error { return nil }
func (s *relaySession) Mail(from string, _ *gosmtp.MailOptions) error {
	if user, _ := s.r.credentials(); user != "" && !s.authed {
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
	m := Mail{From: s.from, To: s.to, Raw: raw}
	if msg, err := mail.ReadMessage(bytes.NewReader(raw)); err == nil {
		m.Header = msg.Header
	}
	id := m.Header.Get("Message-Id")
	if game, v, seat, ok := compose.ParseMessageID(id, Domain); ok {
		m.Game, m.Version, m.Seat = game, v, seat
		local, _, _ := strings.Cut(strings.Trim(id, "<>"), "@")
		parts := strings.Split(local, ".")
		m.Kind = parts[len(parts)-1]
	}
	if pm, err := reply.Parse(raw, Domain, "", nil); err == nil {
		m.Text = pm.Text
	}
	s.r.mu.Lock()
	s.r.msgs = append(s.r.msgs, m)
	s.r.mu.Unlock()
	return nil
}

// HoldDeliveries makes every DATA wait until Release; WaitHolding
// returns once a delivery is held.
func (r *Relay) HoldDeliveries() {
	r.mu.Lock()
	r.hold, r.holding = make(chan struct{}), make(chan struct{}, 8)
	r.mu.Unlock()
}

// WaitHolding waits until the relay holds a delivery.
func (r *Relay) WaitHolding(t testing.TB) {
	t.Helper()
	select {
	case <-r.holding:
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery started")
	}
}

// Release lets the held deliveries end (untaken) and takes the next ones.
func (r *Relay) Release() {
	r.mu.Lock()
	close(r.hold)
	r.hold = nil
	r.mu.Unlock()
}

// OnceEach fails the test for a mail (by Message-ID) the relay received
// more than once.
func (r *Relay) OnceEach(t testing.TB) {
	t.Helper()
	seen := map[string]int{}
	for _, m := range r.All() {
		seen[m.Header.Get("Message-Id")]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("mail %s delivered %d times", id, n)
		}
	}
}

// All returns a copy of the mails received so far.
func (r *Relay) All() []Mail {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Mail(nil), r.msgs...)
}

// Wait waits for a mail that matches, for up to 30 seconds, and returns
// the first that does; otherwise the test fails, saying what the relay
// has.
func (r *Relay) Wait(t testing.TB, what string, match func(Mail) bool) Mail {
	t.Helper()
	return r.WaitWithin(t, 30*time.Second, what, match)
}

// WaitWithin is Wait with a time limit of its own.
func (r *Relay) WaitWithin(t testing.TB, limit time.Duration, what string, match func(Mail) bool) Mail {
	t.Helper()
	var found Mail
	eventually.True(t, limit, func() bool {
		for _, m := range r.All() {
			if match(m) {
				found = m
				return true
			}
		}
		return false
	}, "no %s mail arrived; the relay has: %v", what, received{r})
	return found
}

// received lists the relay's mails when it is printed (when a wait
// fails, not when it starts).
type received struct{ r *Relay }

func (rc received) String() string {
	var kinds []string
	for _, m := range rc.r.All() {
		kinds = append(kinds, fmt.Sprintf("%s v%d seat %d to %v", m.Kind, m.Version, m.Seat, m.To))
	}
	return fmt.Sprint(kinds)
}
