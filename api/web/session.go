package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// Cookie names.
const (
	// sessionCookie holds the session id (only its hash is stored).
	sessionCookie = "azuld_session"
	// anonCSRFCookie holds the double-submit token of the forms a visitor
	// fills in before signing in (register, sign in), so no other site
	// can sign a visitor in to an account of its choosing.
	anonCSRFCookie = "azuld_csrf"
	// csrfField is the form field, csrfHeader the fetch header, of the
	// token.
	csrfField  = "csrf"
	csrfHeader = "X-CSRF-Token"
)

// session is a signed-in browser.
type session struct {
	Player play.Player
	// Language and TimeZone are the player's choices (players row): the
	// pages are written in them.
	Language, TimeZone string
	// CSRF is the synchronizer token forms and fetches send back.
	CSRF   string
	idHash []byte
}

// ErrCSRF refuses a state-changing request without the session's token,
// or one from another site. It wraps play.ErrForbidden, so the API
// answers 403.
var ErrCSRF = fmt.Errorf("%w: the request did not come from an azuld page (missing or wrong CSRF token, or another site's Origin); reload the page and try again", play.ErrForbidden)

// randomToken is 256 random bits in lower-case base32 (no padding: it
// sits in URLs and cookies as is).
func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

func hashSecret(s string) []byte {
	sum := sha256.Sum256([]byte(s))
	return sum[:]
}

// sameSecret compares two tokens in constant time; an empty one never
// matches.
func sameSecret(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// OverTLS reports whether the request came over TLS: directly, or through
// a trusted proxy (AZUL_TRUSTED_PROXIES) whose X-Forwarded-Proto says
// https. Anyone can send that header, so from any other peer it is
// ignored. Only then are cookies marked Secure (a local http://localhost
// server must still work) and HSTS sent.
func OverTLS(r *http.Request, trusted []netip.Prefix) bool {
	if r.TLS != nil {
		return true
	}
	if len(trusted) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	peer = peer.Unmap()
	for _, p := range trusted {
		if p.Contains(peer) {
			// The proxy next to us has the last word.
			protos := strings.Split(r.Header.Get("X-Forwarded-Proto"), ",")
			return strings.EqualFold(strings.TrimSpace(protos[len(protos)-1]), "https")
		}
	}
	return false
}

// secure is OverTLS with the configured proxies.
func (w *Web) secure(r *http.Request) bool { return OverTLS(r, w.trusted) }

// setCookie writes one of the web client's cookies.
func (w *Web) setCookie(c echo.Context, name, value string, maxAge int) {
	c.SetCookie(&http.Cookie{
		Name: name, Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: w.secure(c.Request()), SameSite: http.SameSiteLaxMode,
	})
}

// currentSession is the request's session, nil when there is none (no
// cookie, an unknown or an expired one).
func (w *Web) currentSession(ctx context.Context, r *http.Request) (*session, error) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" || len(ck.Value) > 128 || w.pool == nil {
		return nil, nil
	}
	s := &session{idHash: hashSecret(ck.Value)}
	var seen time.Time
	now := w.now()
	err = w.pool.QueryRow(ctx, `
		SELECT s.csrf_token, s.last_seen_at, p.language, p.time_zone, `+play.PlayerColumns+`
		FROM web_sessions s JOIN players p ON p.id = s.player_id
		WHERE s.id_hash = $1 AND s.expires_at > $2`, s.idHash, now).
		Scan(append([]any{&s.CSRF, &seen, &s.Language, &s.TimeZone}, s.Player.ScanTargets()...)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("look up web session: %w", err)
	}
	s.Player.FillStatus()
	// The account page lists when each session was last seen; coarsely,
	// so that a page view is not also a write.
	if now.Sub(seen) > account.SeenEvery {
		if _, err := w.pool.Exec(ctx, `UPDATE web_sessions SET last_seen_at = $2 WHERE id_hash = $1`, s.idHash, now); err != nil {
			return nil, fmt.Errorf("note web session seen: %w", err)
		}
	}
	return s, nil
}

// startSession signs a player in: a new session row and its cookie.
func (w *Web) startSession(c echo.Context, p play.Player) (*session, error) {
	id := randomToken()
	s := &session{Player: p, CSRF: randomToken(), idHash: hashSecret(id)}
	now := w.now()
	_, err := w.pool.Exec(c.Request().Context(), `
		INSERT INTO web_sessions (id_hash, player_id, csrf_token, created_at, last_seen_at, expires_at, device)
		VALUES ($1, $2, $3, $4, $4, $5, $6)`,
		s.idHash, p.ID, s.CSRF, now, now.Add(w.sessionTTL), account.Device(c.Request().UserAgent()))
	if err != nil {
		return nil, fmt.Errorf("start web session: %w", err)
	}
	w.setCookie(c, sessionCookie, id, int(w.sessionTTL.Seconds()))
	return s, nil
}

// dropSession deletes a session (nil: none) on the server; a new one
// replaces it, or endSession clears the cookie.
func (w *Web) dropSession(ctx context.Context, s *session) error {
	if s == nil {
		return nil
	}
	if _, err := w.pool.Exec(ctx, `DELETE FROM web_sessions WHERE id_hash = $1`, s.idHash); err != nil {
		return fmt.Errorf("end web session: %w", err)
	}
	return nil
}

// endSession signs the browser out: the session and its cookie.
func (w *Web) endSession(c echo.Context, s *session) error {
	if err := w.dropSession(c.Request().Context(), s); err != nil {
		return err
	}
	w.setCookie(c, sessionCookie, "", -1)
	return nil
}

// sameOrigin is the defence in depth behind the CSRF token: a browser
// tells where a request comes from, and a request another site made is
// refused whatever it carries.
func sameOrigin(r *http.Request) bool {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// safeMethod: requests that change nothing need no CSRF token.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// Authenticate is the session half of the API's authentication: the
// player of the request's session cookie, found=false without a valid
// session. A state-changing request must carry the session's CSRF token in
// the X-CSRF-Token header and come from this site; otherwise ErrCSRF.
func (w *Web) Authenticate(r *http.Request) (p play.Player, found bool, err error) {
	s, err := w.currentSession(r.Context(), r)
	if err != nil || s == nil {
		return play.Player{}, false, err
	}
	if !safeMethod(r.Method) && (!sameOrigin(r) || !sameSecret(r.Header.Get(csrfHeader), s.CSRF)) {
		return play.Player{}, true, ErrCSRF
	}
	return s.Player, true, nil
}

// SessionHash is the stored form of the request's session cookie (nil
// without one): the account listing marks the session it came with.
func SessionHash(r *http.Request) []byte {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || ck.Value == "" || len(ck.Value) > 128 {
		return nil
	}
	return hashSecret(ck.Value)
}

// HasSession reports whether the request carries a session cookie at
// all (valid or not): the API then authenticates through Authenticate.
func HasSession(r *http.Request) bool {
	ck, err := r.Cookie(sessionCookie)
	return err == nil && ck.Value != ""
}

// anonCSRF is the visitor's pre-sign-in form token, set as a cookie when
// missing.
func (w *Web) anonCSRF(c echo.Context) string {
	if ck, err := c.Request().Cookie(anonCSRFCookie); err == nil && len(ck.Value) >= 32 && len(ck.Value) <= 128 {
		return ck.Value
	}
	t := randomToken()
	w.setCookie(c, anonCSRFCookie, t, 0)
	return t
}

// formSession is the session (nil when signed out) of a posted form whose
// CSRF token checks out. ok is false when the refusal has been answered;
// err is then what the handler returns.
func (w *Web) formSession(c echo.Context) (s *session, ok bool, err error) {
	if s, err = w.session(c); err != nil {
		return nil, false, w.fail(c, nil, err)
	}
	if err := checkForm(c, s); err != nil {
		return nil, false, w.fail(c, s, err)
	}
	return s, true, nil
}

// checkForm verifies a posted form's token: the session's when signed in,
// else the visitor's cookie. It also refuses cross-site posts.
func checkForm(c echo.Context, s *session) error {
	r := c.Request()
	if !sameOrigin(r) {
		return ErrCSRF
	}
	sent := c.FormValue(csrfField)
	if s != nil {
		if !sameSecret(sent, s.CSRF) {
			return ErrCSRF
		}
		return nil
	}
	ck, err := r.Cookie(anonCSRFCookie)
	if err != nil || !sameSecret(sent, ck.Value) {
		return ErrCSRF
	}
	return nil
}

// maxOpenLinks bounds the unused, unexpired links of a player: asking
// again and again must not flood a mailbox.
const maxOpenLinks = 3

// errTooManyLinks: the player has maxOpenLinks links waiting already.
var errTooManyLinks = errors.New("sign-in links already on their way")

// newSigninLink stores a one-time link for a player and returns its token.
// It also deletes what has expired: asking for a link is rare enough to
// carry the clean-up.
func (w *Web) newSigninLink(ctx context.Context, playerID string) (string, error) {
	return w.newLink(ctx, playerID, w.linkTTL)
}

// newLink is newSigninLink with a lifetime of its own (a verification
// link lives longer).
func (w *Web) newLink(ctx context.Context, playerID string, ttl time.Duration) (string, error) {
	now := w.now()
	if _, err := w.pool.Exec(ctx, `DELETE FROM signin_links WHERE expires_at < $1`, now.Add(-24*time.Hour)); err != nil {
		return "", fmt.Errorf("delete old sign-in links: %w", err)
	}
	if _, err := w.pool.Exec(ctx, `DELETE FROM web_sessions WHERE expires_at < $1`, now); err != nil {
		return "", fmt.Errorf("delete old web sessions: %w", err)
	}
	var open int
	err := w.pool.QueryRow(ctx, `SELECT count(*) FROM signin_links WHERE player_id = $1 AND used_at IS NULL AND expires_at > $2`,
		playerID, now).Scan(&open)
	if err != nil {
		return "", fmt.Errorf("count sign-in links: %w", err)
	}
	if open >= maxOpenLinks {
		return "", errTooManyLinks
	}
	token := randomToken()
	_, err = w.pool.Exec(ctx, `INSERT INTO signin_links (token_hash, player_id, expires_at) VALUES ($1, $2, $3)`,
		hashSecret(token), playerID, now.Add(ttl))
	if err != nil {
		return "", fmt.Errorf("store sign-in link: %w", err)
	}
	return token, nil
}

// errLinkUsed: the link is unknown, used or expired. One message for all
// three, so a guesser learns nothing.
var errLinkUsed = errors.New("this sign-in link is used up, expired or unknown: ask for a new one")

// useSigninLink spends a link: it works once, before it expires. The
// UPDATE is the check, so two uses at the same moment cannot both win.
// confirmed reports that following it confirmed the player's address
// (it was not confirmed before).
func (w *Web) useSigninLink(ctx context.Context, token string) (p play.Player, confirmed bool, err error) {
	if token == "" || len(token) > 128 {
		return play.Player{}, false, errLinkUsed
	}
	now := w.now()
	var playerID string
	err = w.pool.QueryRow(ctx, `
		UPDATE signin_links SET used_at = $2
		WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
		RETURNING player_id::text`, hashSecret(token), now).Scan(&playerID)
	if errors.Is(err, pgx.ErrNoRows) {
		return play.Player{}, false, errLinkUsed
	}
	if err != nil {
		return play.Player{}, false, fmt.Errorf("use sign-in link: %w", err)
	}
	before, err := w.svc.Player(ctx, playerID)
	if err != nil {
		return play.Player{}, false, fmt.Errorf("sign-in link's player: %w", err)
	}
	// The link was mailed to the player's address and followed: the
	// address is the player's, and it reads mail.
	if err := notify.MarkVerified(ctx, w.pool, playerID); err != nil {
		return play.Player{}, false, err
	}
	p, err = w.svc.Player(ctx, playerID)
	if err != nil {
		return play.Player{}, false, fmt.Errorf("sign-in link's player: %w", err)
	}
	return p, before.EmailStatus != play.EmailOK && p.EmailStatus == play.EmailOK, nil
}
