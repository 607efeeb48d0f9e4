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
	"time"
	"unicode/utf8"

	"github.com/azuld/azuld/i18n"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// tokenPrefix marks azuld tokens so they are recognisable in logs and
// secret scanners.
const tokenPrefix = "azt_"

// NewToken returns a random 256-bit bearer token and its SHA-256 hash (the
// only form stored, in api_tokens). The account package makes the tokens
// a player adds later the same way.
func NewToken() (token string, hash []byte, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", nil, fmt.Errorf("read random token: %w", err)
	}
	token = tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashToken(token), nil
}

// HashToken is how tokens are stored and looked up. A lookup by the hash of
// a high-entropy token leaks nothing through timing: an attacker cannot
// choose hash prefixes.
func HashToken(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// ValidPlayer checks a registration's name and address, and a profile's
// change of either (the account package): it returns them trimmed.
func ValidPlayer(name, email string) (string, string, error) {
	name = strings.TrimSpace(name)
	email = strings.TrimSpace(email)
	if name == "" || utf8.RuneCountInString(name) > 64 || !utf8.ValidString(name) || strings.ContainsAny(name, "\r\n\x00") {
		return "", "", Invalid(ErrInvalid, "name", "name must be 1 to 64 characters on one line")
	}
	if linkInName(name) {
		return "", "", Invalid(ErrInvalid, "name_link", "name must hold no web or mail address")
	}
	if email != "" {
		addr, err := mail.ParseAddress(email)
		if err != nil || addr.Address != email || len(email) > 254 {
			return "", "", Invalid(ErrInvalid, "email", "email must be a plain address like ana@example.org")
		}
	}
	return name, email, nil
}

// InputError is bad input with a stable Code, so that every surface can
// say what is wrong in its reader's language (the catalogue message
// api.input.<Code>, its placeholders filled from Args). Its Error is
// English, for logs. It wraps Kind (ErrInvalid, ErrNotFound,
// ErrBadPreferences…), which decides how a surface answers.
type InputError struct {
	Kind error
	// Code names the mistake: "name", "email", "language", "time_zone"…
	Code string
	// Args are the message's named values, as pairs: "Given", "fr".
	Args []any
	// English is the text of Error.
	English string
}

func (e *InputError) Error() string { return e.Kind.Error() + ": " + e.English }

func (e *InputError) Unwrap() error { return e.Kind }

// Invalid builds an InputError of a kind; args are name/value pairs of
// the message.
func Invalid(kind error, code, english string, args ...any) *InputError {
	return &InputError{Kind: kind, Code: code, Args: args, English: english}
}

// RegistrationToken names the token registration returns, in the
// player's list of tokens.
const RegistrationToken = "registration"

// UsedEvery is how stale a token's last_used_at may get: a lookup writes
// it only when it is older, so a busy client costs no write per request.
const UsedEvery = 5 * time.Minute

// Preferences are a new player's language and time zone, chosen at
// registration (from the browser's Accept-Language and zone, or the
// request); empty fields take the defaults, en and UTC.
type Preferences struct {
	Language string
	TimeZone string
}

// ErrBadPreferences wraps an unknown language or time zone. It wraps
// ErrInvalid: a surface answers it as any bad input.
var ErrBadPreferences = fmt.Errorf("%w: bad language or time zone", ErrInvalid)

func (p Preferences) valid() (Preferences, error) {
	if p.Language == "" {
		p.Language = i18n.Default
	}
	if p.TimeZone == "" {
		p.TimeZone = "UTC"
	}
	if err := ValidLanguage(p.Language); err != nil {
		return p, err
	}
	if err := ValidTimeZone(p.TimeZone); err != nil {
		return p, err
	}
	return p, nil
}

// ValidLanguage checks a language a player chooses: one of
// i18n.Languages. The error's code is "language", with the value given.
func ValidLanguage(lang string) error {
	if !i18n.Supported(lang) {
		return Invalid(ErrBadPreferences, "language",
			fmt.Sprintf("language %.20q is not one of %s", lang, strings.Join(i18n.Languages, ", ")), "Given", clip(lang, 20))
	}
	return nil
}

// ValidTimeZone checks a time zone a player chooses: an IANA name such
// as Europe/Amsterdam or UTC ("Local" and "" are not names a player
// means). The error's code is "time_zone", with the value given.
func ValidTimeZone(zone string) error {
	if len(zone) > 64 || strings.ContainsAny(zone, " \r\n\x00") {
		return Invalid(ErrBadPreferences, "time_zone_form", "time_zone must be an IANA time zone name like Europe/Amsterdam or UTC")
	}
	if _, err := i18n.LoadZone(zone); err != nil {
		return Invalid(ErrBadPreferences, "time_zone",
			fmt.Sprintf("time_zone %q is not a known IANA time zone (like Europe/Amsterdam or UTC)", zone), "Given", zone)
	}
	return nil
}

// clip shortens a value quoted back in an error.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// RegisterPlayer creates a player and returns its bearer token, shown once.
func (s *Service) RegisterPlayer(ctx context.Context, name, email string, pref Preferences) (Player, string, error) {
	name, email, err := ValidPlayer(name, email)
	if err != nil {
		return Player{}, "", err
	}
	if err := s.CheckAddress(email); err != nil {
		return Player{}, "", err
	}
	if pref, err = pref.valid(); err != nil {
		return Player{}, "", err
	}
	token, hash, err := NewToken()
	if err != nil {
		return Player{}, "", err
	}
	p := Player{Name: name, Email: email}
	// One statement: the player never exists without its first token.
	err = s.pool.QueryRow(ctx, `
		WITH p AS (INSERT INTO players (name, email, language, time_zone) VALUES ($1, $2, $5, $6) RETURNING *),
		     t AS (INSERT INTO api_tokens (player_id, name, hash, created_at) SELECT id, $3, $4, created_at FROM p)
		SELECT `+PlayerColumns+` FROM p`,
		name, email, RegistrationToken, hash, pref.Language, pref.TimeZone).Scan(p.ScanTargets()...)
	if IsAddressTaken(err) {
		return Player{}, "", ErrAddressTaken()
	}
	if err != nil {
		return Player{}, "", fmt.Errorf("insert player: %w", err)
	}
	p.fillStatus()
	return p, token, nil
}

// Authenticate finds the player a live (unrevoked) bearer token belongs
// to, and notes the token's use when its last_used_at is older than
// UsedEvery.
func (s *Service) Authenticate(ctx context.Context, token string) (Player, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) > 128 {
		return Player{}, ErrUnauthenticated
	}
	var p Player
	err := s.pool.QueryRow(ctx, `
		WITH t AS (SELECT id, player_id, last_used_at FROM api_tokens WHERE hash = $1 AND revoked_at IS NULL),
		     used AS (UPDATE api_tokens a SET last_used_at = now() FROM t
		              WHERE a.id = t.id AND (t.last_used_at IS NULL OR t.last_used_at < now() - $2::interval))
		SELECT `+PlayerColumns+` FROM t JOIN players p ON p.id = t.player_id`,
		HashToken(token), UsedEvery).Scan(p.ScanTargets()...)
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
	p.EmailStatus = EmailStatusOf(p.Email, p.EmailVerified, p.undeliverable)
}

// EmailStatusOf is the standing of a player's address (Player.EmailStatus)
// from what the players table holds: the address, whether its owner
// followed a link mailed to it, and whether it was found undeliverable.
func EmailStatusOf(email string, verified, undeliverable bool) string {
	switch {
	case email == "":
		return EmailNone
	case undeliverable:
		return EmailUndeliverable
	case !verified:
		return EmailUnverified
	default:
		return EmailOK
	}
}

// addressIndex is the unique index on players' addresses, compared
// case-insensitively (one account per address).
const addressIndex = "players_email_unique"

// IsAddressTaken tells whether err is a write that gave a player an
// address another account holds.
func IsAddressTaken(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" /* unique_violation */ && pgErr.ConstraintName == addressIndex
}

// ErrAddressTaken is the refusal of an address another account holds
// (code email_taken): its owner signs in with a link mailed to it.
func ErrAddressTaken() error {
	return Invalid(ErrInvalid, "email_taken", "email belongs to an account here already: sign in with a link mailed to it")
}
