package smtpin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/smtp"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"
)

const domain = "azul.example.org"

// delivery is one message that reached the handler.
type delivery struct {
	env Envelope
	raw []byte
}

// start serves a Server on a loopback port; handle (optional) decides the
// handler's answer.
func start(t *testing.T, cfg Config, handle func(Envelope, []byte) error) (string, *Server, chan delivery, chan error) {
	t.Helper()
	got := make(chan delivery, 16)
	cfg.Domain = domain
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Handler = func(ctx context.Context, env Envelope, raw []byte) error {
		if ctx == nil {
			return errors.New("nil context")
		}
		got <- delivery{env, raw}
		if handle != nil {
			return handle(env, raw)
		}
		return nil
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return l.Addr().String(), srv, got, served
}

func dial(t *testing.T, addr string) *smtp.Client {
	t.Helper()
	c, err := smtp.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Hello("mx.sender.example"); err != nil {
		t.Fatal(err)
	}
	return c
}

// send runs one transaction and returns the reply code of the first
// refused step (0 when the message was accepted).
func send(c *smtp.Client, from string, rcpts []string, body string) (int, error) {
	if err := c.Mail(from); err != nil {
		return code(err), err
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r); err != nil {
			return code(err), err
		}
	}
	w, err := c.Data()
	if err != nil {
		return code(err), err
	}
	if _, err := io.WriteString(w, body); err != nil {
		return 0, err
	}
	if err := w.Close(); err != nil {
		return code(err), err
	}
	return 0, nil
}

func code(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return -1
}

const message = "From: Ann <ann@example.net>\r\nTo: play+abc@azul.example.org\r\nSubject: Re: your turn\r\n\r\nF2 red 3\r\n.starts with a dot\r\n\r\n> On ... wrote:\r\n"

func TestAcceptsByteExact(t *testing.T) {
	addr, _, got, _ := start(t, Config{}, nil)
	c := dial(t, addr)
	rcpts := []string{"play+abc@azul.example.org", "PLAY+Def@AZUL.EXAMPLE.ORG", "postmaster@azul.example.org"}
	if code, err := send(c, "ann@example.net", rcpts, message); err != nil {
		t.Fatalf("send: %d %v", code, err)
	}
	d := <-got
	if string(d.raw) != message {
		t.Errorf("handler got %q, want %q", d.raw, message)
	}
	// postmaster is not a game's address: the handler gets the others.
	if d.env.From != "ann@example.net" || strings.Join(d.env.Rcpts, ",") != strings.Join(rcpts[:2], ",") {
		t.Errorf("envelope %+v", d.env)
	}
	if host, _, _ := net.SplitHostPort(d.env.RemoteAddr.String()); host != "127.0.0.1" {
		t.Errorf("RemoteAddr %v", d.env.RemoteAddr)
	}
	// A second message on the same connection; a bounce (null sender).
	if code, err := send(c, "", rcpts[:1], "Subject: bounce\r\n\r\nx\r\n"); err != nil {
		t.Fatalf("second send: %d %v", code, err)
	}
	if d := <-got; d.env.From != "<>" || len(d.env.Rcpts) != 1 {
		t.Errorf("second envelope %+v", d.env)
	}
	if err := c.Quit(); err != nil {
		t.Errorf("QUIT: %v", err)
	}
}

func TestRefusesRelayAndUnknownMailboxes(t *testing.T) {
	addr, _, got, _ := start(t, Config{}, nil)
	c := dial(t, addr)
	if err := c.Mail("spammer@example.com"); err != nil {
		t.Fatal(err)
	}
	for _, rcpt := range []string{"victim@example.com", "play+abc@azul.example.org.evil.example", "azuld@azul.example.org", "play+@azul.example.org", "play@azul.example.org"} {
		if err := c.Rcpt(rcpt); code(err) != 550 {
			t.Errorf("RCPT %s: %v, want 550", rcpt, err)
		}
	}
	if err := c.Rcpt("noat"); code(err) < 500 {
		t.Errorf("RCPT noat: %v, want 5xx", err)
	}
	// With no accepted recipient there is no DATA.
	if _, err := c.Data(); err == nil || code(err) < 500 {
		t.Errorf("DATA without recipients: %v", err)
	}
	select {
	case d := <-got:
		t.Fatalf("handler called for %+v", d.env)
	default:
	}
}

// TestPostmaster: mail for postmaster@ is taken (RFC 5321 §4.5.1), at
// RCPT and at DATA, and goes to Config.Postmaster, not to the handler of
// game replies.
func TestPostmaster(t *testing.T) {
	pm := make(chan Envelope, 2)
	addr, _, got, _ := start(t, Config{Postmaster: func(_ context.Context, env Envelope, _ []byte) error {
		pm <- env
		return nil
	}}, func(Envelope, []byte) error { return &Reject{Code: 550, Message: "5.1.1 No such mailbox"} })
	c := dial(t, addr)
	if code, err := send(c, "abuse-desk@example.com", []string{"PostMaster@azul.example.org"}, "Subject: a question\r\n\r\nhello\r\n"); err != nil {
		t.Fatalf("mail to postmaster: %d %v, want 250", code, err)
	}
	if env := <-pm; env.From != "abuse-desk@example.com" || len(env.Rcpts) != 1 || env.Rcpts[0] != "PostMaster@azul.example.org" {
		t.Errorf("postmaster envelope %+v", env)
	}
	select {
	case d := <-got:
		t.Fatalf("the game handler got the postmaster's mail: %+v", d.env)
	default:
	}
	// Without a Postmaster handler the mail is logged and taken.
	addr, _, _, _ = start(t, Config{}, nil)
	if code, err := send(dial(t, addr), "a@example.com", []string{"postmaster@azul.example.org"}, "Subject: x\r\n\r\nx\r\n"); err != nil {
		t.Fatalf("mail to postmaster, default handler: %d %v", code, err)
	}
}

// TestRefusalCodeOnce: an enhanced status code in a Reject's message is
// the reply's, written once.
func TestRefusalCodeOnce(t *testing.T) {
	for _, tt := range []struct{ msg, want string }{
		{"5.1.1 No such mailbox", "5.1.1 No such mailbox"},
		{"No game waits for this address", "5.0.0 No game waits for this address"},
		{"5.6.0 The message could not be read", "5.6.0 The message could not be read"},
		{"4.1.1 not permanent", "5.0.0 4.1.1 not permanent"},
	} {
		addr, _, got, _ := start(t, Config{}, func(Envelope, []byte) error { return &Reject{Code: 550, Message: tt.msg} })
		_, err := send(dial(t, addr), "a@example.net", []string{"play+abc@azul.example.org"}, message)
		<-got
		var te *textproto.Error
		if !errors.As(err, &te) || te.Code != 550 || te.Msg != tt.want {
			t.Errorf("Reject %q: reply %v, want 550 %s", tt.msg, err, tt.want)
		}
	}
}

func TestLimits(t *testing.T) {
	addr, _, got, _ := start(t, Config{MaxSize: 1024, MaxRecipients: 2}, nil)
	c := dial(t, addr)
	big := "Subject: big\r\n\r\n" + strings.Repeat("0123456789abcdef\r\n", 200)
	if code, err := send(c, "a@example.net", []string{"play+abc@azul.example.org"}, big); code != 552 {
		t.Errorf("oversized message: %d %v, want 552", code, err)
	}
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
	rcpts := []string{"play+a@azul.example.org", "play+b@azul.example.org", "play+c@azul.example.org"}
	if code, err := send(c, "a@example.net", rcpts, message); code != 452 {
		t.Errorf("third recipient: %d %v, want 452", code, err)
	}
	select {
	case d := <-got:
		t.Fatalf("handler called for %+v", d.env)
	default:
	}
}

func TestHandlerErrors(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want int
	}{
		{&Reject{Code: 550, Message: "No game waits for this address"}, 550},
		{fmt.Errorf("inbound: %w", &Reject{Code: 554, Message: "Refused\r\nwith a line break"}), 554},
		{&Reject{Code: 250, Message: "not a refusal code"}, 550},
		{errors.New("database unavailable"), 451},
		{context.DeadlineExceeded, 451},
	} {
		t.Run(fmt.Sprint(tt.err), func(t *testing.T) {
			addr, _, got, _ := start(t, Config{}, func(Envelope, []byte) error { return tt.err })
			c := dial(t, addr)
			code, err := send(c, "a@example.net", []string{"play+abc@azul.example.org"}, message)
			if code != tt.want {
				t.Errorf("reply %d (%v), want %d", code, err, tt.want)
			}
			<-got
			// The connection stays usable.
			if err := c.Noop(); err != nil {
				t.Errorf("NOOP after the refusal: %v", err)
			}
		})
	}
}

// TestCloseLetsTransactionsFinish closes the server while a handler is
// still working: the client gets its 250, new connections are refused,
// and Serve returns.
func TestCloseLetsTransactionsFinish(t *testing.T) {
	release := make(chan struct{})
	addr, srv, got, served := start(t, Config{}, func(Envelope, []byte) error {
		<-release
		return nil
	})
	c := dial(t, addr)
	idle := dial(t, addr) // connected before Close, between transactions
	if srv.Addr().String() != addr {
		t.Errorf("Addr() = %v, want %s", srv.Addr(), addr)
	}
	result := make(chan error, 1)
	go func() {
		_, err := send(c, "a@example.net", []string{"play+abc@azul.example.org"}, message)
		result <- err
	}()
	<-got // the handler is running
	closed := make(chan error, 1)
	go func() { closed <- srv.Close() }()
	// Close waits for the transaction: new clients meet a closed port.
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("listener still open after Close")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-closed:
		t.Fatalf("Close returned (%v) before the transaction finished", err)
	default:
	}
	// A new transaction is turned away with a temporary error.
	if err := idle.Mail("b@example.net"); code(err) != 421 {
		t.Errorf("MAIL while closing: %v, want 421", err)
	}
	idle.Quit()
	close(release)
	if err := <-result; err != nil {
		t.Errorf("transaction in progress at Close: %v", err)
	}
	c.Quit()
	if err := <-closed; err != nil {
		t.Errorf("Close: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	served <- nil // for the cleanup
}

func TestServeEndsWithContext(t *testing.T) {
	srv, err := New(Config{Domain: domain, Handler: func(context.Context, Envelope, []byte) error { return nil },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), ShutdownGrace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	var serveErr error
	go func() { defer wg.Done(); serveErr = srv.Serve(ctx, l) }()
	c, err := smtp.Dial(l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Noop(); err != nil {
		t.Fatal(err)
	}
	cancel()
	wg.Wait()
	if serveErr != nil {
		t.Errorf("Serve: %v", serveErr)
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestNewChecksConfig(t *testing.T) {
	h := func(context.Context, Envelope, []byte) error { return nil }
	for _, cfg := range []Config{{Domain: domain}, {Handler: h}, {Domain: "a b", Handler: h}, {Domain: "x@y", Handler: h}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestListenAndServe(t *testing.T) {
	got := make(chan Envelope, 1)
	srv, err := New(Config{Addr: "127.0.0.1:0", Domain: domain, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Handler: func(_ context.Context, env Envelope, _ []byte) error { got <- env; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe(ctx) }()
	for srv.Addr() == nil {
		select {
		case err := <-served:
			t.Fatalf("ListenAndServe: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	c := dial(t, srv.Addr().String())
	if code, err := send(c, "a@example.net", []string{"play+abc@azul.example.org"}, message); err != nil {
		t.Fatalf("send: %d %v", code, err)
	}
	if env := <-got; env.Rcpts[0] != "play+abc@azul.example.org" {
		t.Errorf("envelope %+v", env)
	}
	c.Quit()
	cancel()
	if err := <-served; err != nil {
		t.Errorf("ListenAndServe after cancel: %v", err)
	}
	// A taken address is an error, not a hang.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	busy, err := New(Config{Addr: l.Addr().String(), Domain: domain, Handler: func(context.Context, Envelope, []byte) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if err := busy.ListenAndServe(context.Background()); err == nil {
		t.Error("ListenAndServe on a taken address returned nil")
	}
}

// Config.Admit is asked about the sender at MAIL and each play+ recipient
// at RCPT; a temporary refusal answers its 4xx code and enhanced code, and
// the message is never handed on.
func TestAdmit(t *testing.T) {
	type ask struct{ from, rcpt string }
	var mu sync.Mutex
	var asked []ask
	cfg := Config{Admit: func(ctx context.Context, remote net.Addr, from, rcpt string) error {
		mu.Lock()
		asked = append(asked, ask{from, rcpt})
		mu.Unlock()
		if ctx == nil || remote == nil {
			return errors.New("no context or remote address")
		}
		switch {
		case from == "flood@example.net" && rcpt == "":
			return &Reject{Code: 450, Message: "4.7.1 Too many mails from this sender: try again in 12 minutes."}
		case strings.HasPrefix(rcpt, "play+busy"):
			return &Reject{Code: 451, Message: "Too many mails to this seat address"}
		case strings.HasPrefix(rcpt, "play+broken"):
			return errors.New("limiter down")
		case strings.HasPrefix(rcpt, "play+odd"):
			return &Reject{Code: 299, Message: "nonsense code"}
		}
		return nil
	}}
	addr, _, got, _ := start(t, cfg, nil)
	c := dial(t, addr)

	err := c.Mail("flood@example.net")
	var te *textproto.Error
	if !errors.As(err, &te) || te.Code != 450 || !strings.HasPrefix(te.Msg, "4.7.1 Too many mails from this sender") || strings.Count(te.Msg, "4.7.1") != 1 {
		t.Fatalf("MAIL from a limited sender: %v", err)
	}
	if err := c.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := c.Mail("ann@example.net"); err != nil {
		t.Fatal(err)
	}
	for rcpt, want := range map[string]string{
		"play+busy@" + domain:   "451 4.0.0 Too many mails to this seat address",
		"play+broken@" + domain: "451 4.3.0",
		"play+odd@" + domain:    "451 4.0.0 nonsense code",
	} {
		err := c.Rcpt(rcpt)
		if !errors.As(err, &te) || !strings.HasPrefix(fmt.Sprintf("%d %s", te.Code, te.Msg), want) {
			t.Errorf("RCPT %s: %v, want %q", rcpt, err, want)
		}
	}
	if _, err := c.Data(); err == nil {
		t.Fatal("DATA with every recipient refused was accepted")
	}
	select {
	case d := <-got:
		t.Fatalf("a refused message reached the handler: %+v", d.env)
	default:
	}
	// An admitted one goes through, asked about once per step.
	mu.Lock()
	asked = nil
	mu.Unlock()
	c2 := dial(t, addr)
	if n, err := send(c2, "ann@example.net", []string{"play+abc@" + domain}, message); n != 0 || err != nil {
		t.Fatalf("admitted message: %d %v", n, err)
	}
	<-got
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 || asked[0] != (ask{"ann@example.net", ""}) || asked[1] != (ask{"ann@example.net", "play+abc@" + domain}) {
		t.Errorf("Admit asked %v", asked)
	}
}

// TestReturnPaths: with a Bounce handler, the return paths bounce+…@ are
// taken (from the null sender, as reports come) and go to it, not to the
// handler of game replies; its refusal is the reply's. Without one they
// are unknown mailboxes.
func TestReturnPaths(t *testing.T) {
	bounces := make(chan Envelope, 2)
	addr, _, got, _ := start(t, Config{Bounce: func(_ context.Context, env Envelope, raw []byte) error {
		bounces <- env
		if strings.Contains(string(raw), "garbage") {
			return &Reject{Code: 550, Message: "5.6.0 The message could not be read"}
		}
		return nil
	}}, nil)
	if code, err := send(dial(t, addr), "", []string{"Bounce+Tok3n@azul.example.org"}, "Subject: Undelivered\r\n\r\nreport\r\n"); err != nil {
		t.Fatalf("a report to a return path: %d %v, want 250", code, err)
	}
	if env := <-bounces; env.From != "<>" || len(env.Rcpts) != 1 || env.Rcpts[0] != "Bounce+Tok3n@azul.example.org" {
		t.Errorf("bounce envelope %+v", env)
	}
	if code, _ := send(dial(t, addr), "", []string{"bounce+x@azul.example.org"}, "garbage\r\n"); code != 550 {
		t.Errorf("the bounce handler's refusal: %d, want 550", code)
	}
	<-bounces
	select {
	case d := <-got:
		t.Fatalf("the game handler got a report: %+v", d.env)
	default:
	}
	c := dial(t, addr)
	if err := c.Mail(""); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("bounce+@azul.example.org"); code(err) != 550 {
		t.Errorf("an empty return path: %v, want 550", err)
	}

	addr, _, _, _ = start(t, Config{}, nil)
	c = dial(t, addr)
	if err := c.Mail(""); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("bounce+tok@azul.example.org"); code(err) != 550 {
		t.Errorf("a return path without a Bounce handler: %v, want 550", err)
	}
}

// TestMessagesPerConnection: one connection offers at most
// MaxMessagesPerConn messages; the next MAIL FROM, and any after it, is a
// temporary 421 4.7.0, and nothing more reaches a handler. A new
// connection starts afresh.
func TestMessagesPerConnection(t *testing.T) {
	addr, _, got, _ := start(t, Config{MaxMessagesPerConn: 3}, nil)
	c := dial(t, addr)
	for i := range 3 {
		if n, err := send(c, fmt.Sprintf("s%d@example.net", i), []string{"play+abc@" + domain}, message); n != 0 || err != nil {
			t.Fatalf("message %d: %d %v", i+1, n, err)
		}
		<-got
	}
	for _, rcpt := range []string{"play+abc@" + domain, "postmaster@" + domain} {
		err := c.Mail("more@example.net")
		var te *textproto.Error
		if !errors.As(err, &te) || te.Code != 421 || !strings.HasPrefix(te.Msg, "4.7.0") {
			t.Fatalf("a 4th message (to %s) on one connection: %v, want 421 4.7.0", rcpt, err)
		}
	}
	select {
	case d := <-got:
		t.Fatalf("a message past the cap reached the handler: %+v", d.env)
	default:
	}
	if n, err := send(dial(t, addr), "more@example.net", []string{"play+abc@" + domain}, message); n != 0 || err != nil {
		t.Fatalf("a new connection: %d %v", n, err)
	}
	<-got
}

// TestAdmitAsksAboutPostmaster: postmaster@ is asked about as a
// recipient, like a seat address: a role address is no way around the
// limits.
func TestAdmitAsksAboutPostmaster(t *testing.T) {
	cfg := Config{Admit: func(_ context.Context, _ net.Addr, _, rcpt string) error {
		if strings.HasPrefix(rcpt, "postmaster@") {
			return &Reject{Code: 450, Message: "4.7.1 Too many mails to this address"}
		}
		return nil
	}}
	addr, _, _, _ := start(t, cfg, nil)
	if n, err := send(dial(t, addr), "a@example.net", []string{"postmaster@" + domain}, message); n != 450 {
		t.Fatalf("a limited postmaster: %d %v, want 450", n, err)
	}
}
