package web

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/account"
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

// session is a signed-in browser: its stored session (account) as the
// request's cookie finds it.
type session = account.WebSession

// ErrCSRF refuses a state-changing request without the session's token,
// or one from another site. It wraps play.ErrForbidden, so the API
// answers 403.
var ErrCSRF = fmt.Errorf("%w: the request did not come from an azuld page (missing or wrong CSRF token, or another site's Origin); reload the page and try again", play.ErrForbidden)

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

// sessionSecret is the request's session cookie, "" without a usable
// one.
func sessionSecret(r *http.Request) string {
	ck, err := r.Cookie(sessionCookie)
	if err != nil || len(ck.Value) > 128 {
		return ""
	}
	return ck.Value
}

// currentSession is the request's session, nil when there is none (no
// cookie, an unknown or an expired one).
func (w *Web) currentSession(ctx context.Context, r *http.Request) (*session, error) {
	secret := sessionSecret(r)
	if secret == "" || w.accounts == nil {
		return nil, nil
	}
	return w.accounts.FindSession(ctx, secret)
}

// startSession signs a player in: a new session and its cookie.
func (w *Web) startSession(c echo.Context, p play.Player) (*session, error) {
	secret, s, err := w.accounts.StartSession(c.Request().Context(), p, c.Request().UserAgent(), w.sessionTTL)
	if err != nil {
		return nil, err
	}
	w.setCookie(c, sessionCookie, secret, int(w.sessionTTL.Seconds()))
	return s, nil
}

// dropSession deletes a session (nil: none) on the server; a new one
// replaces it, or endSession clears the cookie.
func (w *Web) dropSession(ctx context.Context, s *session) error {
	if s == nil {
		return nil
	}
	return w.accounts.DropSession(ctx, s.Hash)
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
	secret := sessionSecret(r)
	if secret == "" {
		return nil
	}
	return account.SessionHash(secret)
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
	t := account.RandomToken()
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
