package account

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/play"
)

// SeenEvery is how stale a web session's last_seen_at may get: a page
// view writes it only when it is older.
const SeenEvery = 5 * time.Minute

// RandomToken is 256 random bits in lower-case base32 (no padding: it
// sits in URLs and cookies as is): a web session's secret and CSRF
// token, a sign-in link's token.
func RandomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// SessionHash is the stored form of a web session's secret (the
// browser's cookie): the secret itself is never stored.
func SessionHash(secret string) []byte { return play.HashToken(secret) }

// WebSession is a signed-in browser as the web client holds it while it
// answers a request.
type WebSession struct {
	Player play.Player
	// Language and TimeZone are the player's choices (players row): the
	// pages are written in them. FindSession fills them, StartSession
	// does not.
	Language, TimeZone string
	// CSRF is the synchronizer token forms and fetches send back.
	CSRF string
	// Hash is SessionHash of the session's secret.
	Hash []byte
}

// StartSession signs a player in on a browser: a new session that lasts
// ttl. secret is what the browser keeps (its cookie), shown only now.
// The browser is stored as Device of its User-Agent.
func (s *Service) StartSession(ctx context.Context, p play.Player, userAgent string, ttl time.Duration) (secret string, ws *WebSession, err error) {
	secret = RandomToken()
	ws = &WebSession{Player: p, CSRF: RandomToken(), Hash: SessionHash(secret)}
	now := s.now()
	_, err = s.pool.Exec(ctx, `
		INSERT INTO web_sessions (id_hash, player_id, csrf_token, created_at, last_seen_at, expires_at, device)
		VALUES ($1, $2, $3, $4, $4, $5, $6)`,
		ws.Hash, p.ID, ws.CSRF, now, now.Add(ttl), Device(userAgent))
	if err != nil {
		return "", nil, fmt.Errorf("start web session: %w", err)
	}
	return secret, ws, nil
}

// FindSession is the live session of a browser's secret, nil when there
// is none (an unknown or an expired one). It notes the session seen, at
// most every SeenEvery.
func (s *Service) FindSession(ctx context.Context, secret string) (*WebSession, error) {
	if secret == "" {
		return nil, nil
	}
	ws := &WebSession{Hash: SessionHash(secret)}
	var seen time.Time
	now := s.now()
	err := s.pool.QueryRow(ctx, `
		SELECT s.csrf_token, s.last_seen_at, p.language, p.time_zone, `+play.PlayerColumns+`
		FROM web_sessions s JOIN players p ON p.id = s.player_id
		WHERE s.id_hash = $1 AND s.expires_at > $2`, ws.Hash, now).
		Scan(append([]any{&ws.CSRF, &seen, &ws.Language, &ws.TimeZone}, ws.Player.ScanTargets()...)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up web session: %w", err)
	}
	ws.Player.FillStatus()
	// The account page lists when each session was last seen; coarsely,
	// so that a page view is not also a write.
	if now.Sub(seen) > SeenEvery {
		if _, err := s.pool.Exec(ctx, `UPDATE web_sessions SET last_seen_at = $2 WHERE id_hash = $1`, ws.Hash, now); err != nil {
			return nil, fmt.Errorf("note web session seen: %w", err)
		}
	}
	return ws, nil
}

// DropSession deletes the session whose secret hashes to hash; there
// need be none.
func (s *Service) DropSession(ctx context.Context, hash []byte) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM web_sessions WHERE id_hash = $1`, hash); err != nil {
		return fmt.Errorf("end web session: %w", err)
	}
	return nil
}

// Session is a signed-in browser as its owner sees it.
type Session struct {
	ID         string    `json:"id"`
	Device     string    `json:"device"`
	CreatedAt  time.Time `json:"created_at"`
	LastSeenAt time.Time `json:"last_seen_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	// Current marks the session the request came with.
	Current bool `json:"current"`
}

// Sessions lists a player's unexpired sessions, the most recently seen
// first. currentHash is the SHA-256 of the request's session cookie (nil:
// the request came with a token).
func (s *Service) Sessions(ctx context.Context, playerID string, currentHash []byte) ([]Session, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT public_id::text, device, created_at, last_seen_at, expires_at, id_hash FROM web_sessions
		WHERE player_id = $1 AND expires_at > $2 ORDER BY last_seen_at DESC, created_at DESC`, playerID, s.now())
	if err != nil {
		return nil, fmt.Errorf("list web sessions: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Session, error) {
		var ss Session
		var hash []byte
		err := r.Scan(&ss.ID, &ss.Device, &ss.CreatedAt, &ss.LastSeenAt, &ss.ExpiresAt, &hash)
		ss.Current = currentHash != nil && bytes.Equal(hash, currentHash)
		if ss.Device == "" {
			ss.Device = "unknown browser"
		}
		return ss, err
	})
	if err != nil {
		return nil, fmt.Errorf("list web sessions: %w", err)
	}
	return out, nil
}

// EndSession signs one of the player's browsers out (the current one
// too, if asked).
func (s *Service) EndSession(ctx context.Context, playerID, sessionID string) error {
	if err := validID("session", sessionID); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `DELETE FROM web_sessions WHERE public_id = $1 AND player_id = $2`, sessionID, playerID)
	if err != nil {
		return fmt.Errorf("end web session: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return play.Invalid(play.ErrNotFound, "no_session", "you have no session "+sessionID, "ID", sessionID)
	}
	return nil
}

// EndOtherSessions signs every browser of the player out but the one
// whose cookie hashes to keepHash, and says how many it ended.
func (s *Service) EndOtherSessions(ctx context.Context, playerID string, keepHash []byte) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM web_sessions WHERE player_id = $1 AND id_hash <> $2`, playerID, keepHash)
	if err != nil {
		return 0, fmt.Errorf("end web sessions: %w", err)
	}
	return tag.RowsAffected(), nil
}

// Device describes a browser from its User-Agent in a few words ("Firefox
// on Linux"): enough to recognise one's sessions, too little to
// fingerprint anyone. The raw header is never stored.
func Device(userAgent string) string {
	ua := userAgent
	if ua == "" {
		return ""
	}
	browser := "unknown browser"
	for _, b := range []struct{ token, name string }{
		// Order matters: Edge and Opera also say Chrome, Chrome also
		// says Safari.
		{"Edg/", "Edge"}, {"OPR/", "Opera"}, {"Firefox/", "Firefox"}, {"Chromium/", "Chromium"},
		{"Chrome/", "Chrome"}, {"Safari/", "Safari"}, {"curl/", "curl"}, {"Go-http-client/", "Go client"},
	} {
		if strings.Contains(ua, b.token) {
			browser = b.name
			break
		}
	}
	for _, o := range []struct{ token, name string }{
		{"Android", "Android"}, {"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"CrOS", "ChromeOS"},
		{"Windows", "Windows"}, {"Mac OS X", "macOS"}, {"Macintosh", "macOS"}, {"Linux", "Linux"},
		{"FreeBSD", "FreeBSD"}, {"OpenBSD", "OpenBSD"},
	} {
		if strings.Contains(ua, o.token) {
			return browser + " on " + o.name
		}
	}
	return browser
}
