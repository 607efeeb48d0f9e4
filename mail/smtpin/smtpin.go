// Package smtpin is azuld's built-in SMTP listener: the MX of the mail
// domain, where players' answers to play+<token>@<domain> arrive.
//
// It accepts mail only for play+<anything>@<domain>, the return paths
// bounce+<anything>@<domain> (when Config.Bounce is set) and postmaster@<domain>
// (RFC 5321 §4.5.1 requires postmaster), refuses every other domain (550:
// it is no open relay), enforces the message size (552) and the number of
// recipients, and needs no AUTH (senders are other MTAs). Each accepted
// message for play+ addresses is handed, byte for byte, to the Handler. A
// handler error that is a *Reject is a permanent refusal sent back as its
// 5xx code; any other error answers 451 so the sending MTA keeps the mail
// and tries again. Mail for postmaster alone is taken (250) and handed to
// Config.Postmaster, by default logged and dropped: azuld has no mailbox,
// and refusing it would break the promise RFC 5321 asks of every domain.
// STARTTLS is not offered.
package smtpin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// Envelope is the SMTP envelope of one message.
type Envelope struct {
	// From is the MAIL FROM address; "<>" for a bounce (null sender).
	From string
	// Rcpts are the accepted RCPT TO addresses, as given.
	Rcpts []string
	// RemoteAddr is the sending MTA.
	RemoteAddr net.Addr
}

// Handler receives each accepted message. raw is the message exactly as
// received (after the SMTP dot-unstuffing). The message is acknowledged
// with 250 only when Handler returns nil.
type Handler func(ctx context.Context, env Envelope, raw []byte) error

// Reject is a handler error that refuses the message for good (5xx): the
// sending MTA bounces it instead of retrying.
type Reject struct {
	// Code is the SMTP reply code, 500..599 (550 if out of range).
	Code int
	// Message is the text of the reply (one line). It may start with an
	// enhanced status code (RFC 3463, "5.1.1 No such mailbox"), which is
	// then the reply's; otherwise the reply carries 5.0.0.
	Message string
}

func (r *Reject) Error() string { return fmt.Sprintf("%d %s", r.Code, r.Message) }

// Config configures a Server.
type Config struct {
	// Addr is the listen address for ListenAndServe, e.g. ":25".
	Addr string
	// Domain is the mail domain (AZUL_MAIL_DOMAIN); also the greeting name.
	Domain string
	// MaxSize is the largest message in bytes (default 1 MiB).
	MaxSize int64
	// MaxRecipients per message (default 10): one more is answered 452.
	MaxRecipients int
	// MaxMessagesPerConn is how many messages one connection may offer
	// (MAIL FROM commands, default 10): after them every MAIL FROM is
	// answered 421 and the sending server reconnects later, so that one
	// connection cannot pour mail in faster than Admit counts it.
	MaxMessagesPerConn int
	// ReadTimeout and WriteTimeout bound each SMTP command (default 1
	// minute and 1 minute).
	ReadTimeout, WriteTimeout time.Duration
	// ShutdownGrace is how long Close waits for transactions in progress
	// before it cuts the connections (default 10 s).
	ShutdownGrace time.Duration
	// Logger receives one line per refused or failed message (default:
	// slog.Default()).
	Logger *slog.Logger
	// Handler receives the messages for play+ addresses. Required.
	Handler Handler
	// Bounce receives the messages for the return paths of azuld's own
	// mail, bounce+<token>@<domain> (delivery reports and complaints);
	// nil refuses those addresses like any unknown mailbox.
	Bounce Handler
	// Postmaster receives the messages addressed to postmaster@ alone;
	// an error defers them (451). Default: one log line, then dropped.
	Postmaster Handler
	// Admit, when set, is asked before a sender is taken (at MAIL FROM,
	// with rcpt "", for every message whatever its recipients) and before
	// each play+ or postmaster@ recipient (at RCPT TO): azuld's rate limits
	// per sending server, per sender and per recipient address. An error refuses that
	// command: a *Reject answers its code, which here may also be a
	// temporary 421, 450 or 451 (the sending MTA then tries again later);
	// any other error answers 451.
	Admit func(ctx context.Context, remote net.Addr, from, rcpt string) error
}

// Server is one SMTP listener.
type Server struct {
	cfg      Config
	srv      *smtp.Server
	log      *slog.Logger
	mu       sync.Mutex
	ln       net.Listener
	ctx      context.Context // the context of Serve, for handlers
	closing  chan struct{}   // closed when Close starts
	closed   chan struct{}   // closed when Close is done
	closeOne sync.Once
	closeErr error
}

// New checks cfg and builds a server; it does not listen yet.
func New(cfg Config) (*Server, error) {
	if cfg.Handler == nil {
		return nil, errors.New("smtpin: Config.Handler is required")
	}
	cfg.Domain = strings.ToLower(strings.TrimSpace(cfg.Domain))
	if cfg.Domain == "" || strings.ContainsAny(cfg.Domain, " @<>") {
		return nil, fmt.Errorf("smtpin: bad mail domain %q", cfg.Domain)
	}
	if cfg.MaxSize <= 0 {
		cfg.MaxSize = 1 << 20
	}
	if cfg.MaxRecipients <= 0 {
		cfg.MaxRecipients = 10
	}
	if cfg.MaxMessagesPerConn <= 0 {
		cfg.MaxMessagesPerConn = 10
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = time.Minute
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = time.Minute
	}
	if cfg.ShutdownGrace <= 0 {
		cfg.ShutdownGrace = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Postmaster == nil {
		log := cfg.Logger.With("component", "smtpin")
		cfg.Postmaster = func(ctx context.Context, env Envelope, raw []byte) error {
			log.InfoContext(ctx, "mail to postmaster dropped", "from", env.From, "rcpts", env.Rcpts, "bytes", len(raw), "remote", env.RemoteAddr)
			return nil
		}
	}
	s := &Server{cfg: cfg, log: cfg.Logger.With("component", "smtpin"), closing: make(chan struct{}), closed: make(chan struct{}), ctx: context.Background()}
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &session{s: s, remote: c.Conn().RemoteAddr()}, nil
	}))
	srv.Addr = cfg.Addr
	srv.Domain = cfg.Domain
	srv.MaxMessageBytes = cfg.MaxSize
	srv.MaxRecipients = cfg.MaxRecipients
	srv.ReadTimeout = cfg.ReadTimeout
	srv.WriteTimeout = cfg.WriteTimeout
	srv.ErrorLog = slogAdapter{s.log}
	s.srv = srv
	return s, nil
}

// Serve accepts connections on l until ctx ends or Close is called; then
// it closes gracefully (see Close) and returns nil. Other errors of the
// listener are returned.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	s.mu.Lock()
	s.ln = l
	// Handlers outlive a cancelled Serve context by design: Close lets the
	// transactions in progress finish.
	s.ctx = context.WithoutCancel(ctx)
	s.mu.Unlock()
	if s.isClosing() {
		l.Close()
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- s.srv.Serve(l) }()
	select {
	case err := <-done:
		if errors.Is(err, smtp.ErrServerClosed) || s.isClosing() {
			<-s.closed
			return nil
		}
		return fmt.Errorf("smtpin: serve: %w", err)
	case <-ctx.Done():
		_ = s.Close()
	case <-s.closing:
	}
	// Close may have run before go-smtp registered l; closing it here
	// ends the accept loop in every case.
	l.Close()
	<-done
	<-s.closed
	return nil
}

// ListenAndServe listens on Config.Addr and serves (see Serve).
func (s *Server) ListenAndServe(ctx context.Context) error {
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("smtpin: listen %s: %w", s.cfg.Addr, err)
	}
	return s.Serve(ctx, l)
}

// Addr is the address served; nil until Serve has been called.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return nil
	}
	return s.ln.Addr()
}

// Close stops accepting connections and new transactions, lets the
// messages in progress finish (their handler runs to the end and the
// client gets its answer) for up to Config.ShutdownGrace, then closes every
// connection. It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOne.Do(func() {
		defer close(s.closed)
		close(s.closing)
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
		defer cancel()
		err := s.srv.Shutdown(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = s.srv.Close()
			if errors.Is(err, smtp.ErrServerClosed) {
				err = nil
			}
		}
		if err != nil && !errors.Is(err, smtp.ErrServerClosed) && !errors.Is(err, net.ErrClosed) {
			s.closeErr = fmt.Errorf("smtpin: close: %w", err)
		}
	})
	return s.closeErr
}

func (s *Server) isClosing() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

func (s *Server) handlerContext() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctx
}

// session is one SMTP connection's transaction state.
type session struct {
	s      *Server
	remote net.Addr
	from   string
	rcpts  []string
	// postmaster holds the postmaster@ recipients, apart from rcpts;
	// bounces the bounce+ ones.
	postmaster []string
	bounces    []string
	// messages counts the MAIL FROM commands of the connection.
	messages int
}

var _ smtp.Session = (*session)(nil)

func (ss *session) Reset() {
	ss.from = ""
	ss.rcpts = nil
	ss.postmaster = nil
	ss.bounces = nil
}

func (ss *session) Logout() error { return nil }

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.s.isClosing() {
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Shutting down, try again later"}
	}
	if from == "" {
		from = "<>"
	}
	if ss.messages >= ss.s.cfg.MaxMessagesPerConn {
		ss.s.log.Info("too many messages on one connection", "remote", ss.remote, "max", ss.s.cfg.MaxMessagesPerConn)
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 7, 0}, Message: "Too many messages on this connection, try again later"}
	}
	ss.messages++
	if err := ss.admit(from, ""); err != nil {
		return err
	}
	ss.from = from
	ss.rcpts = nil
	ss.postmaster = nil
	ss.bounces = nil
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	local, domain, ok := cutLast(to, "@")
	if !ok || !strings.EqualFold(domain, ss.s.cfg.Domain) {
		ss.s.log.Debug("relay refused", "from", ss.from, "rcpt", to, "remote", ss.remote)
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Relaying denied"}
	}
	l := strings.ToLower(local)
	switch {
	case l == "postmaster":
		// A role address is no way around the limits.
		if err := ss.admit(ss.from, to); err != nil {
			return err
		}
		ss.postmaster = append(ss.postmaster, to)
	case strings.HasPrefix(l, "play+") && len(l) > len("play+"):
		if err := ss.admit(ss.from, to); err != nil {
			return err
		}
		ss.rcpts = append(ss.rcpts, to)
	case strings.HasPrefix(l, "bounce+") && len(l) > len("bounce+") && ss.s.cfg.Bounce != nil:
		ss.bounces = append(ss.bounces, to)
	default:
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such mailbox"}
	}
	return nil
}

func (ss *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		// go-smtp answers 552 itself when the size limit is hit.
		return err
	}
	env := Envelope{From: ss.from, Rcpts: append([]string(nil), ss.rcpts...), RemoteAddr: ss.remote}
	var herr error
	if len(env.Rcpts) > 0 {
		herr = ss.s.cfg.Handler(ss.s.handlerContext(), env, raw)
	}
	if herr == nil && len(ss.bounces) > 0 {
		b := env
		b.Rcpts = append([]string(nil), ss.bounces...)
		herr = ss.s.cfg.Bounce(ss.s.handlerContext(), b, raw)
	}
	if herr == nil && len(ss.postmaster) > 0 {
		pm := env
		pm.Rcpts = append([]string(nil), ss.postmaster...)
		herr = ss.s.cfg.Postmaster(ss.s.handlerContext(), pm, raw)
	}
	if herr == nil {
		ss.s.log.Debug("message accepted", "from", env.From, "rcpts", env.Rcpts, "bytes", len(raw), "remote", env.RemoteAddr)
		return nil
	}
	var rej *Reject
	if errors.As(herr, &rej) {
		code := rej.Code
		if code < 500 || code > 599 {
			code = 550
		}
		enhanced, msg := enhancedCode(strings.Join(strings.Fields(rej.Message), " "), 5)
		if msg == "" {
			msg = "Message refused"
		}
		ss.s.log.Info("message refused", "from", env.From, "rcpts", env.Rcpts, "code", code, "reason", msg)
		return &smtp.SMTPError{Code: code, EnhancedCode: enhanced, Message: msg}
	}
	ss.s.log.Warn("message deferred", "from", env.From, "rcpts", env.Rcpts, "err", herr)
	return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary failure, try again later"}
}

// enhancedCode splits an enhanced status code of the class (5: "5.1.1",
// 4: "4.7.1") off the start of a reply text, so the reply carries it once;
// a text without one gets <class>.0.0 (other or undefined status).
func enhancedCode(text string, class int) (smtp.EnhancedCode, string) {
	code := smtp.EnhancedCode{class, 0, 0}
	head, rest, _ := strings.Cut(text, " ")
	parts := strings.Split(head, ".")
	if len(parts) != 3 || parts[0] != strconv.Itoa(class) {
		return code, text
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 999 || len(p) > 3 {
			return smtp.EnhancedCode{class, 0, 0}, text
		}
		code[i] = n
	}
	return code, rest
}

// admit asks Config.Admit about a sender or a recipient; its refusal is
// the SMTP reply.
func (ss *session) admit(from, rcpt string) error {
	if ss.s.cfg.Admit == nil {
		return nil
	}
	err := ss.s.cfg.Admit(ss.s.handlerContext(), ss.remote, from, rcpt)
	if err == nil {
		return nil
	}
	var rej *Reject
	if !errors.As(err, &rej) {
		ss.s.log.Warn("admission check failed", "from", from, "rcpt", rcpt, "err", err)
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary failure, try again later"}
	}
	code := rej.Code
	switch {
	case code == 421 || code == 450 || code == 451:
	case code >= 500 && code <= 599:
	default:
		code = 451
	}
	enhanced, msg := enhancedCode(strings.Join(strings.Fields(rej.Message), " "), code/100)
	if msg == "" {
		msg = "Not now, try again later"
	}
	ss.s.log.Info("sender or recipient refused", "from", from, "rcpt", rcpt, "code", code, "reason", msg)
	return &smtp.SMTPError{Code: code, EnhancedCode: enhanced, Message: msg}
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// slogAdapter gives go-smtp's connection errors to slog.
type slogAdapter struct{ l *slog.Logger }

func (a slogAdapter) Printf(format string, v ...any) { a.l.Debug(fmt.Sprintf(format, v...)) }
func (a slogAdapter) Println(v ...any)               { a.l.Debug(strings.TrimSpace(fmt.Sprintln(v...))) }
