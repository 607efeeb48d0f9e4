package account_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/play"
)

const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

// A web session is found by its secret only, holds the player's choices
// and a CSRF token, ends when dropped or expired, and is stored with
// neither its secret nor the raw User-Agent.
func TestWebSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana, _ := e.register(t, "Ana")
	lang, zone := "it", "Europe/Rome"
	if _, err := e.acc.Update(ctx, ana.ID, account.Update{Language: &lang, TimeZone: &zone}); err != nil {
		t.Fatal(err)
	}

	secret, started, err := e.acc.StartSession(ctx, ana, firefox, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(secret) != 52 || started.CSRF == "" || started.CSRF == secret || started.Player.ID != ana.ID ||
		string(started.Hash) != string(account.SessionHash(secret)) {
		t.Fatalf("started: %q, %+v", secret, started)
	}
	if n := count(t, e, `SELECT count(*) FROM web_sessions WHERE id_hash = $1 AND device = 'Firefox on Linux'`, account.SessionHash(secret)); n != 1 {
		t.Fatalf("%d sessions stored by the secret's hash with the device's name", n)
	}
	if n := count(t, e, `SELECT count(*) FROM web_sessions WHERE id_hash = $1 OR csrf_token = $2 OR device LIKE 'Mozilla%'`, []byte(secret), secret); n != 0 {
		t.Fatal("a session stored its secret or the raw User-Agent")
	}

	found, err := e.acc.FindSession(ctx, secret)
	if err != nil || found == nil {
		t.Fatalf("find: %+v, %v", found, err)
	}
	if found.Player.ID != ana.ID || found.Player.Name != "Ana" || found.Player.EmailStatus != play.EmailUnverified ||
		found.Language != "it" || found.TimeZone != "Europe/Rome" || found.CSRF != started.CSRF ||
		string(found.Hash) != string(started.Hash) {
		t.Fatalf("found %+v, started %+v", found, started)
	}
	for _, other := range []string{"", strings.Repeat("a", 52), strings.ToUpper(secret)} {
		if s, err := e.acc.FindSession(ctx, other); s != nil || err != nil {
			t.Fatalf("secret %q found %+v, %v", other, s, err)
		}
	}
	list, err := e.acc.Sessions(ctx, ana.ID, found.Hash)
	if err != nil || len(list) != 1 || !list[0].Current || list[0].Device != "Firefox on Linux" {
		t.Fatalf("listed: %+v, %v", list, err)
	}

	// Seen: written only once SeenEvery has passed.
	seen := func() time.Duration {
		return time.Duration(count(t, e, `SELECT extract(epoch FROM last_seen_at - created_at)::int FROM web_sessions`)) * time.Second
	}
	e.skew.Store(int64(account.SeenEvery / 2))
	if _, err := e.acc.FindSession(ctx, secret); err != nil || seen() != 0 {
		t.Fatalf("a look-up within %v was written (%v, %v)", account.SeenEvery, seen(), err)
	}
	e.skew.Store(int64(account.SeenEvery * 2))
	if _, err := e.acc.FindSession(ctx, secret); err != nil || seen() < account.SeenEvery*2-time.Second {
		t.Fatalf("a look-up after %v was not written (%v, %v)", account.SeenEvery*2, seen(), err)
	}

	// Past its lifetime a session finds nothing.
	e.skew.Store(int64(time.Hour + time.Second))
	if s, err := e.acc.FindSession(ctx, secret); s != nil || err != nil {
		t.Fatalf("an expired session found %+v, %v", s, err)
	}
	e.skew.Store(0)

	// Dropped, it is gone; dropping what is gone is no error.
	for range 2 {
		if err := e.acc.DropSession(ctx, found.Hash); err != nil {
			t.Fatal(err)
		}
	}
	if s, err := e.acc.FindSession(ctx, secret); s != nil || err != nil {
		t.Fatalf("a dropped session found %+v, %v", s, err)
	}
}

// A sign-in link works once, before it expires; a player has at most
// MaxOpenLinks waiting; the first link followed confirms the address.
func TestSigninLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana, _ := e.register(t, "Ana")
	bo, _ := e.register(t, "Bo")

	var tokens []string
	for range account.MaxOpenLinks {
		token, err := e.acc.NewSigninLink(ctx, ana.ID, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		tokens = append(tokens, token)
	}
	if _, err := e.acc.NewSigninLink(ctx, ana.ID, time.Hour); !errors.Is(err, account.ErrTooManyLinks) {
		t.Fatalf("link %d: %v, want ErrTooManyLinks", account.MaxOpenLinks+1, err)
	}
	if n := count(t, e, `SELECT count(*) FROM signin_links WHERE token_hash = $1`, []byte(tokens[0])); n != 0 {
		t.Fatal("a link stored its token")
	}
	// Another player's links are counted apart.
	boToken, err := e.acc.NewSigninLink(ctx, bo.ID, time.Minute)
	if err != nil {
		t.Fatal(err)
	}

	id, confirmed, err := e.acc.UseSigninLink(ctx, tokens[0])
	if err != nil || id != ana.ID || !confirmed {
		t.Fatalf("first use: %s, %v, %v", id, confirmed, err)
	}
	if p, _ := e.acc.Profile(ctx, ana.ID); p.EmailStatus != play.EmailOK {
		t.Fatalf("a followed link left the address %s", p.EmailStatus)
	}
	for _, token := range []string{tokens[0], "", strings.Repeat("a", 52), strings.Repeat("a", 129)} {
		if _, _, err := e.acc.UseSigninLink(ctx, token); !errors.Is(err, account.ErrLinkUsed) {
			t.Fatalf("token %.20q: %v, want ErrLinkUsed", token, err)
		}
	}
	// A used link no longer counts; the address is confirmed already.
	if _, err := e.acc.NewSigninLink(ctx, ana.ID, time.Hour); err != nil {
		t.Fatal(err)
	}
	if id, confirmed, err := e.acc.UseSigninLink(ctx, tokens[1]); err != nil || id != ana.ID || confirmed {
		t.Fatalf("second link: %s, %v, %v", id, confirmed, err)
	}

	// Past its lifetime a link is refused like a used one.
	e.skew.Store(int64(time.Minute + time.Second))
	if _, _, err := e.acc.UseSigninLink(ctx, boToken); !errors.Is(err, account.ErrLinkUsed) {
		t.Fatalf("an expired link: %v, want ErrLinkUsed", err)
	}

	// Asking for a link deletes expired sessions, and links a day past
	// their end.
	if _, _, err := e.acc.StartSession(ctx, bo, "", time.Minute); err != nil {
		t.Fatal(err)
	}
	e.skew.Store(int64(26 * time.Hour))
	if _, err := e.acc.NewSigninLink(ctx, ana.ID, time.Hour); err != nil {
		t.Fatal(err)
	}
	if n := count(t, e, `SELECT count(*) FROM web_sessions`); n != 0 {
		t.Fatalf("%d expired sessions kept", n)
	}
	if n := count(t, e, `SELECT count(*) FROM signin_links`); n != 1 {
		t.Fatalf("%d links, want only the new one", n)
	}
}

func count(t *testing.T, e *env, query string, args ...any) int {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
