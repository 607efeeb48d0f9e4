package account_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/play"
)

var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

// verifications records the Verifier's calls.
type verifications struct {
	mu    sync.Mutex
	calls []string
	fail  error
}

func (v *verifications) SendVerification(_ context.Context, playerID string) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls = append(v.calls, playerID)
	return v.fail
}

type env struct {
	pool     *pgxpool.Pool
	svc      *play.Service
	acc      *account.Service
	verified *verifications
	changed  atomic.Int64
	// skew is added to the service's clock (sessions, links).
	skew atomic.Int64
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{pool: pg.NewPool(t), verified: &verifications{}}
	e.svc = play.New(play.Config{Pool: e.pool, Store: events.NewStore(e.pool), Rules: rulesets.All()})
	var err error
	e.acc, err = account.New(account.Config{Pool: e.pool, Verifier: e.verified, Changed: func(context.Context) { e.changed.Add(1) },
		Now: func() time.Time { return time.Now().Add(time.Duration(e.skew.Load())) }})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) register(t *testing.T, name string) (play.Player, string) {
	t.Helper()
	p, token, err := e.svc.RegisterPlayer(context.Background(), name, strings.ToLower(name)+"@example.org", play.Preferences{})
	if err != nil {
		t.Fatal(err)
	}
	return p, token
}

func (e *env) generation(t *testing.T) int64 {
	t.Helper()
	g, err := e.acc.Generation(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func ptr(s string) *string { return &s }

func TestUpdateChecksEverythingFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana, _ := e.register(t, "Ana")
	before, err := e.acc.Profile(ctx, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	gen := e.generation(t)
	for _, u := range []account.Update{
		{},
		{Name: ptr("Ana B"), TimeZone: ptr("Nowhere/Special")},
		{Name: ptr("Ana B"), Language: ptr("EN")},
		{Email: ptr("ana.b@example.org"), Name: ptr("")},
		{TimeZone: ptr("Local")},
		{TimeZone: ptr("Europe/Amsterdam "), Name: ptr("Ana B")},
	} {
		_, err := e.acc.Update(ctx, ana.ID, u)
		if !errors.Is(err, play.ErrInvalid) {
			t.Errorf("update %+v: %v, want invalid", u, err)
		}
	}
	if after, _ := e.acc.Profile(ctx, ana.ID); after != before {
		t.Fatalf("refused updates changed the profile: %+v", after)
	}
	if e.generation(t) != gen || e.changed.Load() != 0 || len(e.verified.calls) != 0 {
		t.Fatal("a refused update moved the generation or told someone")
	}

	// The same values: nothing written, nobody told.
	if _, err := e.acc.Update(ctx, ana.ID, account.Update{Name: ptr("Ana"), Email: ptr("ana@example.org")}); err != nil {
		t.Fatal(err)
	}
	if e.generation(t) != gen || len(e.verified.calls) != 0 {
		t.Fatal("an update to the same values moved the generation or sent a verification")
	}

	got, err := e.acc.Update(ctx, ana.ID, account.Update{Language: ptr("it"), TimeZone: ptr("America/Argentina/Buenos_Aires")})
	if err != nil || got.Language != "it" || got.TimeZone != "America/Argentina/Buenos_Aires" {
		t.Fatalf("update: %+v, %v", got, err)
	}
	if e.generation(t) != gen+1 || e.changed.Load() != 1 {
		t.Fatal("a profile change did not move the generation once")
	}
	if len(e.verified.calls) != 0 {
		t.Fatal("a verification was sent without a new address")
	}
	// A new address: the verifier hears of it, once; the same address in
	// other case is not new.
	if _, err := e.acc.Update(ctx, ana.ID, account.Update{Email: ptr("ana.b@example.org")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.acc.Update(ctx, ana.ID, account.Update{Email: ptr("Ana.B@example.org")}); err != nil {
		t.Fatal(err)
	}
	if len(e.verified.calls) != 1 || e.verified.calls[0] != ana.ID {
		t.Fatalf("verifications: %v", e.verified.calls)
	}
	// No address: nothing to verify.
	if _, err := e.acc.Update(ctx, ana.ID, account.Update{Email: ptr("")}); err != nil {
		t.Fatal(err)
	}
	if len(e.verified.calls) != 1 {
		t.Fatalf("verifications: %v", e.verified.calls)
	}
	// A failing verifier is reported: the caller must not believe the
	// mail went.
	e.verified.fail = errors.New("queue down")
	if _, err := e.acc.Update(ctx, ana.ID, account.Update{Email: ptr("ana.c@example.org")}); err == nil || !strings.Contains(err.Error(), "verification mail could not be sent") {
		t.Fatalf("a failing verifier: %v", err)
	}
}

func TestTokenLimitHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, _ := e.register(t, "Ana")
	var ok atomic.Int64
	var wg sync.WaitGroup
	for range account.MaxTokens + 10 {
		wg.Go(func() {
			_, err := e.acc.CreateToken(context.Background(), ana.ID, "bot")
			switch {
			case err == nil:
				ok.Add(1)
			case !errors.Is(err, play.ErrInvalid):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != account.MaxTokens-1 {
		t.Fatalf("%d tokens created beside registration's, want %d", ok.Load(), account.MaxTokens-1)
	}
}

func TestRevocationAndLastUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	ana, token := e.register(t, "Ana")
	bo, _ := e.register(t, "Bo")
	list, err := e.acc.Tokens(ctx, ana.ID)
	if err != nil || len(list) != 1 || list[0].Name != play.RegistrationToken || list[0].LastUsedAt != nil {
		t.Fatalf("tokens after registration: %+v, %v", list, err)
	}

	// Using the token notes it, coarsely: a second use within
	// UsedEvery writes nothing.
	if _, err := e.svc.Authenticate(ctx, token); err != nil {
		t.Fatal(err)
	}
	list, _ = e.acc.Tokens(ctx, ana.ID)
	if list[0].LastUsedAt == nil {
		t.Fatal("a used token has no last use")
	}
	first := *list[0].LastUsedAt
	if _, err := e.svc.Authenticate(ctx, token); err != nil {
		t.Fatal(err)
	}
	list, _ = e.acc.Tokens(ctx, ana.ID)
	if !list[0].LastUsedAt.Equal(first) {
		t.Fatal("a second use within minutes was written")
	}
	if _, err := e.pool.Exec(ctx, `UPDATE api_tokens SET last_used_at = now() - interval '6 minutes'`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Authenticate(ctx, token); err != nil {
		t.Fatal(err)
	}
	list, _ = e.acc.Tokens(ctx, ana.ID)
	if !list[0].LastUsedAt.After(first) {
		t.Fatal("a use after UsedEvery was not written")
	}

	gen := e.generation(t)
	if err := e.acc.RevokeToken(ctx, bo.ID, list[0].ID); !errors.Is(err, play.ErrNotFound) {
		t.Fatalf("Bo revoked Ana's token: %v", err)
	}
	if e.generation(t) != gen {
		t.Fatal("a refused revocation moved the generation")
	}
	if err := e.acc.RevokeToken(ctx, ana.ID, list[0].ID); err != nil {
		t.Fatal(err)
	}
	if e.generation(t) != gen+1 || e.changed.Load() != 1 {
		t.Fatal("a revocation did not move the generation")
	}
	if _, err := e.svc.Authenticate(ctx, token); !errors.Is(err, play.ErrUnauthenticated) {
		t.Fatalf("a revoked token authenticates: %v", err)
	}
	if list, _ := e.acc.Tokens(ctx, ana.ID); len(list) != 0 {
		t.Fatalf("a revoked token is listed: %+v", list)
	}
}

func TestValidTimeZone(t *testing.T) {
	t.Parallel()
	for _, z := range []string{"UTC", "Europe/Amsterdam", "America/Argentina/Buenos_Aires", "Asia/Kolkata", "Etc/GMT+5"} {
		if err := account.ValidTimeZone(z); err != nil {
			t.Errorf("%s: %v", z, err)
		}
	}
	for _, z := range []string{"", "Local", "Mars/Olympus", "utc ", "../../../etc/passwd", "/usr/share/zoneinfo/UTC", strings.Repeat("A", 65)} {
		if err := account.ValidTimeZone(z); !errors.Is(err, play.ErrInvalid) {
			t.Errorf("%q accepted: %v", z, err)
		}
	}
}

func TestDevice(t *testing.T) {
	t.Parallel()
	for ua, want := range map[string]string{
		"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0":                                                                  "Firefox on Linux",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0":           "Edge on Windows",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1": "Safari on iOS",
		"Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36":                            "Chrome on Android",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15":                      "Safari on macOS",
		"curl/8.5.0":               "curl",
		"":                         "",
		strings.Repeat("x", 10000): "unknown browser",
	} {
		if got := account.Device(ua); got != want {
			t.Errorf("Device(%.40q) = %q, want %q", ua, got, want)
		}
	}
}
