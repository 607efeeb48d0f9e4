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
		`INSERT INTO players (name, email, token_hash) VALUES ($1, $2, $3) RETURNING id::text, created_at`,
		name, email, hash).Scan(&p.ID, &p.CreatedAt)
	if err != nil {
		return Player{}, "", fmt.Errorf("insert player: %w", err)
	}
	return p, token, nil
}

// Authenticate finds the player a bearer token belongs to.
func (s *Service) Authenticate(ctx context.Context, token string) (Player, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) > 128 {
		return Player{}, ErrUnauthenticated
	}
	var p Player
	err := s.pool.QueryRow(ctx,
		`SELECT id::text, name, email, created_at FROM players WHERE token_hash = $1`,
		hashToken(token)).Scan(&p.ID, &p.Name, &p.Email, &p.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Player{}, ErrUnauthenticated
	}
	if err != nil {
		return Player{}, fmt.Errorf("look up token: %w", err)
	}
	return p, nil
}

// Player returns a player by id.
func (s *Service) Player(ctx context.Context, id string) (Player, error) {
	if !validUUID(id) {
		return Player{}, fmt.Errorf("%w: player %q", ErrNotFound, id)
	}
	var p Player
	err := s.pool.QueryRow(ctx,
		`SELECT id::text, name, email, created_at FROM players WHERE id = $1`, id).
		Scan(&p.ID, &p.Name, &p.Email, &p.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Player{}, fmt.Errorf("%w: player %s", ErrNotFound, id)
	}
	if err != nil {
		return Player{}, fmt.Errorf("look up player: %w", err)
	}
	return p, nil
}
