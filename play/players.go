package play

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// tokenPrefix marks azuld tokens so they are recognisable in logs and
// secret scanners.
const tokenPrefix = "azt_"

// newToken returns a random 256-bit bearer token and its SHA-256 hash (the
// only form stored).
func newToken() (token string, hash []byte, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, fmt.Errorf("read random token: %w", err)
	}
	token = tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return token, hashToken(token), nil
}

// hashToken is how tokens are stored and looked up. A lookup by the hash of
// a high-entropy token leaks nothing through timing: an attacker cannot
// choose hash prefixes.
func hashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// validPlayer checks a registration.
func validPlayer(name, email string) (string, string, error) {
	name = strings.TrimSpace(name)
	email = strings.TrimSpace(email)
	if name == "" || utf8.RuneCountInString(name) > 64 || !utf8.ValidString(name) || strings.ContainsAny(name, "\r\n\x00") {
		return "", "", fmt.Errorf("%w: name must be 1 to 64 characters on one line", ErrInvalid)
	}
	if email != "" {
		addr, err := mail.ParseAddress(email)
		if err != nil || addr.Address != email || len(email) > 254 {
			return "", "", fmt.Errorf("%w: email must be a plain address like ana@example.org", ErrInvalid)
		}
	}
	return name, email, nil
}

// RegisterPlayer creates a player and returns its bearer token, shown once.
func (s *Service) RegisterPlayer(ctx context.Context, name, email string) (Player, string, error) {
	name, email, err := validPlayer(name, email)
	if err != nil {
		return Player{}, "", err
	}
	token, hash, err := newToken()
	if err != nil {
		return Player{}, "", err
	}
	p := Player{Name: name, Email: email}
	err = s.pool.QueryRow(ctx,
		`INSERT INTO players AS p (name, email, token_hash) VALUES ($1, $2, $3) RETURNING `+PlayerColumns,
		name, email, hash).Scan(p.ScanTargets()...)
	if err != nil {
		return Player{}, "", fmt.Errorf("insert player: %w", err)
	}
	p.fillStatus()
	return p, token, nil
}

// Authenticate finds the player a bearer token belongs to.
func (s *Service) Authenticate(ctx context.Context, token string) (Player, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) > 128 {
		return Player{}, ErrUnauthenticated
	}
	var p Player
	err := s.pool.QueryRow(ctx,
		`SELECT `+PlayerColumns+` FROM players p WHERE token_hash = $1`,
		hashToken(token)).Scan(p.ScanTargets()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return Player{}, ErrUnauthenticated
	}
	if err != nil {
		return Player{}, fmt.Errorf("look up token: %w", err)
	}
	p.fillStatus()
	return p, nil
}

// Player returns a player by id.
func (s *Service) Player(ctx context.Context, id string) (Player, error) {
	if !validUUID(id) {
		return Player{}, fmt.Errorf("%w: player %q", ErrNotFound, id)
	}
	var p Player
	err := s.pool.QueryRow(ctx,
		`SELECT `+PlayerColumns+` FROM players p WHERE id = $1`, id).
		Scan(p.ScanTargets()...)
	if errors.Is(err, pgx.ErrNoRows) {
		return Player{}, fmt.Errorf("%w: player %s", ErrNotFound, id)
	}
	if err != nil {
		return Player{}, fmt.Errorf("look up player: %w", err)
	}
	p.fillStatus()
	return p, nil
}

// PlayerColumns are the columns of players that ScanTargets reads, in
// its order; the table is aliased p.
const PlayerColumns = "p.id::text, p.name, p.email, p.created_at, p.email_verified, p.email_undeliverable_at IS NOT NULL"

// ScanTargets are the destinations of PlayerColumns; call FillStatus
// after the scan.
func (p *Player) ScanTargets() []any {
	p.undeliverable = false
	return []any{&p.ID, &p.Name, &p.Email, &p.CreatedAt, &p.EmailVerified, &p.undeliverable}
}

// FillStatus derives EmailStatus after a scan of PlayerColumns.
func (p *Player) FillStatus() { p.fillStatus() }

func (p *Player) fillStatus() {
	switch {
	case p.Email == "":
		p.EmailStatus = EmailNone
	case p.undeliverable:
		p.EmailStatus = EmailUndeliverable
	case !p.EmailVerified:
		p.EmailStatus = EmailUnverified
	default:
		p.EmailStatus = EmailOK
	}
}
