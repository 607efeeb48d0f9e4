package api

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/api/web"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// RateLimits applies azuld's limits (limits.Specs) to HTTP requests on a
// shared limiter (limits.Checker, which fails open). A nil *RateLimits
// limits nothing.
type RateLimits struct {
	checker *limits.Checker

	// blocked remembers, on this replica, the client addresses the failed
	// token limit refused, until when: a token found in the auth cache
	// skips the database, and must be refused to them all the same.
	mu      sync.Mutex
	blocked map[string]time.Time
}

// maxBlocked bounds the addresses remembered; past it the list starts
// afresh (the shared limit still holds on every cache miss).
const maxBlocked = 100000

// NewRateLimits returns the limits of a policy (nil: every limit at its
// default) on a limiter; nil when the limiter is nil or off.
func NewRateLimits(l *limits.Limiter, p limits.Policy, log *slog.Logger) *RateLimits {
	c := limits.NewChecker(l, p, log)
	if c == nil {
		return nil
	}
	return &RateLimits{checker: c, blocked: map[string]time.Time{}}
}

// Allow counts one event of key under the named limit: nil when allowed
// (or the limit is off), else a *limits.Refusal.
func (r *RateLimits) Allow(ctx context.Context, name, key string) error {
	if r == nil {
		return nil
	}
	return r.checker.Allow(ctx, name, key)
}

// Peek is Allow without counting: whether one more event would be
// allowed.
func (r *RateLimits) Peek(ctx context.Context, name, key string) error {
	if r == nil {
		return nil
	}
	return r.checker.Peek(ctx, name, key)
}

// blockedLen is the number of addresses remembered as blocked.
func (r *RateLimits) blockedLen() int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.blocked)
}

// block remembers that a client address is refused by the failed token
// limit until the refusal's end.
func (r *RateLimits) block(addr string, ref *limits.Refusal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.blocked) >= maxBlocked {
		clear(r.blocked)
	}
	r.blocked[addr] = time.Now().Add(time.Duration(ref.RetryAfter) * time.Second)
}

// isBlocked is the refusal of an address block remembered, nil if none.
func (r *RateLimits) isBlocked(addr string) error {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	until, ok := r.blocked[addr]
	if ok && !time.Now().Before(until) {
		delete(r.blocked, addr)
		ok = false
	}
	r.mu.Unlock()
	if !ok {
		return nil
	}
	rule, _ := r.checker.Rule(limits.FailedTokens)
	rule.Name = limits.FailedTokens
	return limits.Refuse(rule, limits.Decision{RetryAfter: time.Until(until)})
}

// clientKey is the request's client address as limits key it.
func clientKey(c echo.Context) string { return limits.AddressKey(c.RealIP()) }

// verifyToken finds the player of a bearer token, within the failed token
// limit of the client's address: an address past it is refused before its
// token is looked at (so guessing on teaches nothing, and even a right
// token is refused), and only a wrong token is counted.
func (s *Server) verifyToken(c echo.Context, token string) (play.Player, error) {
	if err := s.limits.isBlocked(clientKey(c)); err != nil {
		return play.Player{}, err
	}
	if err := s.auth.sync(c.Request().Context(), s.authGeneration, false); err != nil {
		return play.Player{}, err
	}
	if p, ok := s.auth.get(token); ok {
		return p, nil
	}
	if err := s.checkTokenAttempt(c); err != nil {
		return play.Player{}, err
	}
	gen := s.auth.generation()
	p, err := s.svc.Authenticate(c.Request().Context(), token)
	if errors.Is(err, play.ErrUnauthenticated) {
		s.countFailedToken(c)
		return play.Player{}, err
	}
	if err != nil {
		return play.Player{}, err
	}
	s.auth.put(token, p, gen)
	return p, nil
}

// checkTokenAttempt refuses a secret's check (a bearer token, a stop
// link's token, the inbound mail secret) to an address past the failed
// token limit, before the secret is looked at.
func (s *Server) checkTokenAttempt(c echo.Context) error {
	addr := clientKey(c)
	if err := s.limits.isBlocked(addr); err != nil {
		return err
	}
	err := s.limits.Peek(c.Request().Context(), limits.FailedTokens, addr)
	s.rememberBlock(addr, err)
	return err
}

// countFailedToken counts a wrong secret against the client's address.
func (s *Server) countFailedToken(c echo.Context) {
	ctx, addr := c.Request().Context(), clientKey(c)
	err := s.limits.Allow(ctx, limits.FailedTokens, addr)
	if err == nil {
		// The address may have used its last attempt: then tokens in
		// this replica's cache must be refused to it from now on too.
		// Failures are rare, so the second look costs honest clients
		// nothing.
		err = s.limits.Peek(ctx, limits.FailedTokens, addr)
	}
	s.rememberBlock(addr, err)
}

func (s *Server) rememberBlock(addr string, err error) {
	var ref *limits.Refusal
	if errors.As(err, &ref) {
		s.limits.block(addr, ref)
	}
}

// limitAccount counts one event of an account under a limit.
func (s *Server) limitAccount(c echo.Context, name string, p play.Player) error {
	return s.limits.Allow(c.Request().Context(), name, p.ID)
}

// invitations are the seats of a new game given to other players.
func invitations(me play.Player, seats []play.SeatSpec) int {
	n := 0
	for _, seat := range seats {
		if seat.Player != "" && seat.Player != "me" && seat.Player != me.ID {
			n++
		}
	}
	return n
}

// limitNewGame counts a game created and its invitations. The games
// limit is looked at first (in memory), so a game refused for its
// invitations does not use up a game, nor the reverse.
func (s *Server) limitNewGame(c echo.Context, p play.Player, seats []play.SeatSpec) error {
	ctx := c.Request().Context()
	if err := s.limits.Peek(ctx, limits.Games, p.ID); err != nil {
		return err
	}
	for range invitations(p, seats) {
		if err := s.limitAccount(c, limits.Invitations, p); err != nil {
			return err
		}
	}
	return s.limitAccount(c, limits.Games, p)
}

// HSTS is the Strict-Transport-Security header of responses that came
// over TLS: a year, this host only (other hosts of the domain are not
// azuld's to decide).
const HSTS = "max-age=31536000"

// hsts tells browsers to come back over TLS only, on responses that came
// over TLS (directly or through a trusted proxy that says so): sent over
// plain HTTP it would mean nothing, and a stranger's X-Forwarded-Proto
// must not make a plain-HTTP server promise TLS.
func hsts(trusted []netip.Prefix) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if web.OverTLS(c.Request(), trusted) {
				c.Response().Header().Set("Strict-Transport-Security", HSTS)
			}
			return next(c)
		}
	}
}
