package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/limits"
)

// envOf returns a getenv over a fixed map.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestSettingsPrecedenceFlagEnvDefault(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{
		"AZUL_HTTP_ADDR":        "0.0.0.0:9000",
		"AZUL_LOG_LEVEL":        "debug",
		"AZUL_SHUTDOWN_TIMEOUT": "3s",
		"AZUL_BOTS":             "false",
		"HOME":                  "/home/ana",
	})
	var cfg config
	var out bytes.Buffer
	s := newSettings("serve", withDatabase|withHTTP, &cfg, env, &out)
	if err := s.parse([]string{"--log-level", "warn"}, env); err != nil {
		t.Fatal(err)
	}
	if cfg.LogLevel != "warn" {
		t.Errorf("a flag must win over the environment: log level %q", cfg.LogLevel)
	}
	if cfg.HTTPAddr != "0.0.0.0:9000" || cfg.ShutdownTimeout != 3*time.Second || cfg.Bots {
		t.Errorf("environment not applied: %+v", cfg)
	}
	if cfg.BodyLimit != 64<<10 || cfg.DBMaxConns != 16 || cfg.DatabaseURL != "" {
		t.Errorf("defaults not kept: %+v", cfg)
	}
	if want := defaultDataDir(env, os.Geteuid()); cfg.DataDir != want {
		t.Errorf("default data dir %q, want %q", cfg.DataDir, want)
	}
	sources := map[string]string{}
	for _, o := range s.options {
		sources[o.env] = o.source
	}
	if sources["AZUL_LOG_LEVEL"] != "flag" || sources["AZUL_HTTP_ADDR"] != "env" || sources["AZUL_BODY_LIMIT"] != "default" {
		t.Errorf("sources %v", sources)
	}
}

func TestSettingsRejectBadEnvironmentValue(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"AZUL_BODY_LIMIT": "lots"})
	var cfg config
	s := newSettings("serve", withDatabase|withHTTP, &cfg, env, &bytes.Buffer{})
	err := s.parse(nil, env)
	if err == nil || !strings.Contains(err.Error(), "AZUL_BODY_LIMIT") {
		t.Fatalf("want an error naming the variable, got %v", err)
	}
}

func TestSettingsRejectStrayArguments(t *testing.T) {
	t.Parallel()
	var cfg config
	s := newSettings("migrate", withDatabase, &cfg, envOf(nil), &bytes.Buffer{})
	if err := s.parse([]string{"now"}, envOf(nil)); err == nil {
		t.Fatal("a stray argument must be refused")
	}
}

func TestDefaultDataDir(t *testing.T) {
	t.Parallel()
	if got := defaultDataDir(envOf(map[string]string{"XDG_DATA_HOME": "/data", "HOME": "/root"}), 0); got != "/var/lib/azuld" {
		t.Fatalf("root's default data dir %q, want /var/lib/azuld (out of /root, which the server's account cannot enter)", got)
	}
	if runtime.GOOS != "linux" {
		return
	}
	got := defaultDataDir(envOf(map[string]string{"XDG_DATA_HOME": "/data", "HOME": "/home/ana"}), 1000)
	if got != "/data/azuld" {
		t.Fatalf("got %q", got)
	}
	// A relative XDG_DATA_HOME is invalid by the XDG spec and ignored.
	got = defaultDataDir(envOf(map[string]string{"XDG_DATA_HOME": "data", "HOME": "/home/ana"}), 1000)
	if got != "/home/ana/.local/share/azuld" {
		t.Fatalf("got %q", got)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Parallel()
	if got := defaultCacheDir(envOf(map[string]string{"XDG_CACHE_HOME": "/c", "HOME": "/root"}), 0); got != "/var/cache/azuld/postgres" {
		t.Fatalf("root's default cache dir %q, want /var/cache/azuld/postgres (out of /root, which the server's account cannot enter)", got)
	}
	if runtime.GOOS != "linux" {
		return
	}
	for env, want := range map[[2]string]string{
		{"/c", "/home/ana"}: "/c/azuld/postgres",
		{"c", "/home/ana"}:  "/home/ana/.cache/azuld/postgres", // relative XDG_CACHE_HOME: ignored, as the spec says
		{"", "/home/ana"}:   "/home/ana/.cache/azuld/postgres",
	} {
		if got := defaultCacheDir(envOf(map[string]string{"XDG_CACHE_HOME": env[0], "HOME": env[1]}), 1000); got != want {
			t.Errorf("XDG_CACHE_HOME=%q HOME=%q: cache dir %q, want %q", env[0], env[1], got, want)
		}
	}
}

func TestDownloadSettings(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{
		"AZUL_PG_DOWNLOAD":         "false",
		"AZUL_PG_DOWNLOAD_URL":     "https://ana:hunter2@mirror.example.org/maven2",
		"AZUL_PG_DOWNLOAD_VERSION": "17.5.0",
		"AZUL_PG_CACHE_DIR":        "/srv/pg-cache",
	})
	var cfg config
	s := newSettings("serve", withDatabase|withHTTP, &cfg, env, &bytes.Buffer{})
	if err := s.parse(nil, env); err != nil {
		t.Fatal(err)
	}
	if cfg.PGDownload || cfg.PGDownloadURL != "https://ana:hunter2@mirror.example.org/maven2" ||
		cfg.PGDownloadVersion != "17.5.0" || cfg.PGCacheDir != "/srv/pg-cache" {
		t.Fatalf("download settings not read from the environment: %+v", cfg)
	}
	printed := fmt.Sprint(s.printable()...)
	if strings.Contains(printed, "hunter2") {
		t.Fatalf("the mirror's password is printed: %s", printed)
	}

	var defaults config
	s = newSettings("serve", withDatabase|withHTTP, &defaults, envOf(nil), &bytes.Buffer{})
	if err := s.parse(nil, envOf(nil)); err != nil {
		t.Fatal(err)
	}
	if !defaults.PGDownload || defaults.PGDownloadURL != "https://repo1.maven.org/maven2" || defaults.PGDownloadVersion == "" {
		t.Fatalf("defaults: download %v from %q, version %q", defaults.PGDownload, defaults.PGDownloadURL, defaults.PGDownloadVersion)
	}
}

func TestMaskURL(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, secret string }{
		{"postgres://azul:s3cret@db:5432/azul?sslmode=disable", "s3cret"},
		{"postgres://azul:p@ss@db/azul", "p@ss"},
		{"postgres://azul@db/azul?password=hunter2&sslmode=require", "hunter2"},
		{"host=db user=azul password=hunter2 dbname=azul", "hunter2"},
		{"host=db password='two words' dbname=azul", "two words"},
		{"postgres://azul:s3cret@db:badport/azul", "s3cret"},
	}
	for _, c := range cases {
		got := maskURL(c.in)
		if strings.Contains(got, c.secret) {
			t.Errorf("maskURL(%q) = %q still shows the password", c.in, got)
		}
		if !strings.Contains(got, "xxxxx") {
			t.Errorf("maskURL(%q) = %q does not show where the password was", c.in, got)
		}
	}
	plain := "postgres://azul@db/azul?sslmode=disable"
	if got := maskURL(plain); got != plain {
		t.Errorf("a URL without a password must stay as it is: %q", got)
	}
}

func TestPrintableMasksTheDatabaseURL(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"AZUL_DATABASE_URL": "postgres://azul:s3cret@db/azul"})
	var cfg config
	s := newSettings("serve", withDatabase|withHTTP, &cfg, env, &bytes.Buffer{})
	if err := s.parse(nil, env); err != nil {
		t.Fatal(err)
	}
	if cfg.DatabaseURL != "postgres://azul:s3cret@db/azul" {
		t.Fatalf("the real URL must be kept for connecting: %q", cfg.DatabaseURL)
	}
	printed := strings.Join(func() []string {
		var out []string
		for _, a := range s.printable() {
			out = append(out, a.(string))
		}
		return out
	}(), " ")
	if strings.Contains(printed, "s3cret") || !strings.Contains(printed, "AZUL_DATABASE_URL") {
		t.Fatalf("printed configuration %q", printed)
	}
}

func TestHelpListsEveryVariable(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	a := &process{getenv: envOf(nil), stdout: &out, stderr: &errOut}
	if code := a.run(t.Context(), []string{"serve", "--help"}); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	for _, v := range []string{"AZUL_DATABASE_URL", "AZUL_DATA_DIR", "AZUL_HTTP_ADDR", "AZUL_LOG_LEVEL", "AZUL_PG_BIN", "--http-addr"} {
		if !strings.Contains(out.String(), v) {
			t.Errorf("serve --help does not mention %s:\n%s", v, out.String())
		}
	}
}

func TestUnknownCommandAndFlag(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	a := &process{getenv: envOf(nil), stdout: &out, stderr: &errOut}
	if code := a.run(t.Context(), []string{"frobnicate"}); code != 2 {
		t.Errorf("unknown command: exit code %d", code)
	}
	if code := a.run(t.Context(), []string{"serve", "--no-such-flag"}); code != 2 {
		t.Errorf("unknown flag: exit code %d", code)
	}
	if code := a.run(t.Context(), []string{"serve", "--log-level", "loud", "--database-url", "postgres://x@127.0.0.1:1/x"}); code != 1 {
		t.Errorf("bad log level: exit code %d", code)
	}
	out.Reset()
	if code := a.run(t.Context(), []string{"version"}); code != 0 || !strings.HasPrefix(out.String(), "azuld ") {
		t.Errorf("version: exit code %d, output %q", code, out.String())
	}
}

func TestMailSettingsPrintedWithoutSecrets(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{
		"AZUL_SMTP_URL":       "smtps://azuld:hunter2@smtp.example.org:465",
		"AZUL_INBOUND_SECRET": "s3cret-of-the-provider",
		"AZUL_MAIL_DOMAIN":    "azul.example.org",
		"AZUL_SMTP_LISTEN":    "127.0.0.1:2525",
		"AZUL_NOTIFY_WORKERS": "2",
	})
	var cfg config
	s := newSettings("serve", withDatabase|withHTTP, &cfg, env, &bytes.Buffer{})
	if err := s.parse(nil, env); err != nil {
		t.Fatal(err)
	}
	if cfg.MailDomain != "azul.example.org" || cfg.SMTPListen != "127.0.0.1:2525" || cfg.NotifyWorkers != 2 || !cfg.Notify {
		t.Fatalf("mail settings not applied: %+v", cfg)
	}
	printed := fmt.Sprint(s.printable()...)
	for _, secret := range []string{"hunter2", "s3cret"} {
		if strings.Contains(printed, secret) {
			t.Errorf("the printout shows %q: %s", secret, printed)
		}
	}
	if !strings.Contains(printed, "smtp.example.org") {
		t.Errorf("the relay's host should be shown: %s", printed)
	}
}

// A bad list of trusted proxies stops the start, before any database is
// touched, and says what is wrong.
func TestBadTrustedProxiesStopTheStart(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	env := envOf(map[string]string{"AZUL_TRUSTED_PROXIES": "10.0.0.0/8, proxy.example.org"})
	a := &process{getenv: env, stdout: &out, stderr: &errOut}
	if code := a.run(t.Context(), []string{"serve", "--database-url", "postgres://x@127.0.0.1:1/x"}); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if !strings.Contains(errOut.String(), `"proxy.example.org" is neither a CIDR`) {
		t.Errorf("stderr does not say what is wrong:\n%s", errOut.String())
	}
	if strings.Contains(errOut.String(), "127.0.0.1:1") {
		t.Errorf("the database was tried first:\n%s", errOut.String())
	}
}

// Every limit has its own setting, read strictly; AZUL_RATE_LIMITS turns
// them all off.
func TestRateLimitSettings(t *testing.T) {
	t.Parallel()
	var cfg config
	s := newSettings("serve", withDatabase|withHTTP, &cfg, envOf(nil), &bytes.Buffer{})
	if err := s.parse(nil, envOf(nil)); err != nil {
		t.Fatal(err)
	}
	p, err := cfg.limitPolicy()
	if err != nil || !cfg.RateLimits.on || len(p) != len(limits.Specs) {
		t.Fatalf("defaults: on=%v, %d rules, %v", cfg.RateLimits.on, len(p), err)
	}

	env := envOf(map[string]string{"AZUL_RATE_LIMITS": "off", "AZUL_LIMIT_REGISTRATIONS": "10/h", "AZUL_LIMIT_MOVES": "off"})
	cfg = config{}
	s = newSettings("serve", withDatabase|withHTTP, &cfg, env, &bytes.Buffer{})
	if err := s.parse([]string{"--limit-signin-links-to", "2/d"}, env); err != nil {
		t.Fatal(err)
	}
	p, err = cfg.limitPolicy()
	if err != nil || cfg.RateLimits.on {
		t.Fatalf("on=%v err=%v", cfg.RateLimits.on, err)
	}
	if r, _ := p.Rule(limits.Registrations); r.Limit != 10 || r.Period != time.Hour {
		t.Errorf("registrations %+v", r)
	}
	if r, _ := p.Rule(limits.SigninLinksTo); r.Limit != 2 || r.Period != 24*time.Hour {
		t.Errorf("the flag's sign-in links per address %+v", r)
	}
	if _, on := p.Rule(limits.Moves); on {
		t.Error("AZUL_LIMIT_MOVES=off still limits moves")
	}
	if r, _ := p.Rule(limits.Games); r.Limit != 60 || !r.Fast {
		t.Errorf("games kept its default? %+v", r)
	}
	printed := fmt.Sprint(s.printable()...)
	for _, want := range []string{"AZUL_RATE_LIMITS", "off (env)", "AZUL_LIMIT_REGISTRATIONS", "10/h (env)", "AZUL_LIMIT_INVITATIONS", "50/d (default)"} {
		if !strings.Contains(printed, want) {
			t.Errorf("the start-up printout lacks %q: %s", want, printed)
		}
	}

	for env, want := range map[string]string{
		"AZUL_RATE_LIMITS":         "neither on nor off",
		"AZUL_LIMIT_REGISTRATIONS": "not a rate",
		"AZUL_LIMIT_FAILED_TOKENS": "at least 1",
	} {
		bad := map[string]string{"AZUL_RATE_LIMITS": "maybe", "AZUL_LIMIT_REGISTRATIONS": "lots", "AZUL_LIMIT_FAILED_TOKENS": "0/h"}
		getenv := envOf(map[string]string{env: bad[env]})
		var cfg config
		err := newSettings("serve", withDatabase|withHTTP, &cfg, getenv, &bytes.Buffer{}).parse(nil, getenv)
		if err == nil || !strings.Contains(err.Error(), env) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%s: %v, want an error naming the variable and saying %q", env, bad[env], err, want)
		}
	}
}
