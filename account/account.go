// Package account is what a player manages about themselves beside the
// game log (docs/architecture.md §9): the profile (name, address, language, time
// zone), the named API tokens, the web sessions (started, found by the
// browser's secret, listed, ended) and the one-time sign-in links.
// The web client (api/web) keeps only their HTTP side: cookies, CSRF
// checks and forms.
// None of it is event-sourced: it lives in ordinary tables that the app
// role may update and erasure may clear.
//
// Authentication itself stays in play (Service.Authenticate reads
// api_tokens): play sits below account and never imports it. account
// raises the shared auth generation (see Generation) whenever a cached
// authentication must end on every replica.
package account

import (
	"context"
	"errors"
	"fmt"
	"time"
	// Time zones are validated with time.LoadLocation: the embedded
	// database makes the answer the same on a host without zoneinfo
	// (a scratch container) as on a developer's machine.
	_ "time/tzdata"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Verifier is told when a player's address changed, after the change is
// committed: it marks the new address unverified and mails a
// verification (sign-in) link to it. The server wires the mail path; nil
// sends nothing.
type Verifier interface {
	SendVerification(ctx context.Context, playerID string) error
}

// Config wires a Service.
type Config struct {
	Pool *pgxpool.Pool
	// Verifier is called when an address changes; nil: nobody is told.
	Verifier Verifier
	// Now is the clock of web sessions and sign-in links; nil: time.Now.
	Now func() time.Time
	// Changed is called after a change that raised the auth generation
	// is committed (a token revoked, a profile changed), so the process
	// can drop its cached authentications at once instead of at its next
	// poll; nil: nothing.
	Changed func(ctx context.Context)
}

// Service manages accounts.
type Service struct {
	pool     *pgxpool.Pool
	verifier Verifier
	now      func() time.Time
	changed  func(ctx context.Context)
}

// New builds the service.
func New(cfg Config) (*Service, error) {
	if cfg.Pool == nil {
		return nil, errors.New("account: Config.Pool is required")
	}
	s := &Service{pool: cfg.Pool, verifier: cfg.Verifier, now: cfg.Now, changed: cfg.Changed}
	if s.now == nil {
		s.now = time.Now
	}
	return s, nil
}

// Generation is the shared auth generation: it moves whenever a token is
// revoked or a profile changes, and a cache of authentications is good
// only while it stays put.
func (s *Service) Generation(ctx context.Context) (int64, error) {
	var g int64
	if err := s.pool.QueryRow(ctx, `SELECT generation FROM auth_generation`).Scan(&g); err != nil {
		return 0, fmt.Errorf("read the auth generation: %w", err)
	}
	return g, nil
}

// RaiseGeneration raises the auth generation in tx: the replicas see it
// move only once what caused it is committed, so none can re-cache the
// old answer after emptying its cache. Whatever else ends a player's
// authentication (an account's deletion) must call it in its
// transaction too.
func RaiseGeneration(ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `UPDATE auth_generation SET generation = generation + 1`); err != nil {
		return fmt.Errorf("raise the auth generation: %w", err)
	}
	return nil
}

// notifyChanged tells the process that the auth generation moved.
func (s *Service) notifyChanged(ctx context.Context) {
	if s.changed != nil {
		s.changed(ctx)
	}
}

// inTx runs f in a transaction.
func (s *Service) inTx(ctx context.Context, f func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, f)
}
