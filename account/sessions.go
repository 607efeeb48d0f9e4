package account

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/play"
)

// SeenEvery is how stale a web session's last_seen_at may get: a page
// view writes it only when it is older.
const SeenEvery = 5 * time.Minute

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
