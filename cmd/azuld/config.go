package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/azuld/azuld/api"
	"github.com/azuld/azuld/internal/pgfetch"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// config is azuld's configuration. Every field has a flag and an AZUL_*
// environment variable; a flag wins over the variable, which wins over the
// default.
type config struct {
	DatabaseURL string
	// MigrateDatabaseURL connects as the schema's owner, for migrations
	// and projections rebuild; empty: DatabaseURL.
	MigrateDatabaseURL string
	DataDir            string
	PGBin              string
	PGPort             int
	PGOSUser           string
	// Fetching PostgreSQL's binaries when none are installed.
	PGDownload        bool
	PGDownloadURL     string
	PGDownloadVersion string
	PGCacheDir        string
	HTTPAddr          string
	LogLevel          string
	BodyLimit         int64
	TrustedProxies    string
	DBMaxConns        int
	ShutdownTimeout   time.Duration
	Bots              bool

	// Play by mail and webhooks.
	SMTPURL       string
	MailFrom      string
	MailDomain    string
	BaseURL       string
	SMTPListen    string
	InboundSecret string
	Notify        bool
	NotifyWorkers int
	// WebhookAllowPrivate lets webhooks reach internal addresses.
	WebhookAllowPrivate bool
	// StreamsPerClient and StreamsTotal cap the live streams one process
	// keeps open, per client address and in all.
	StreamsPerClient, StreamsTotal int
	// AwayDelay holds a turn mail back until its player has been away
	// from the game's page this long (0: turn mails go at once).
	AwayDelay time.Duration
	// VerifyAddresses mails an address nothing but its verification link
	// until its owner follows it.
	VerifyAddresses bool
	// DKIMKey is the PEM file of the DKIM signing key (empty: unsigned);
	// DKIMSelector names its DNS record.
	DKIMKey      string
	DKIMSelector string
	// MailAuth checks SPF, DKIM and DMARC of incoming replies.
	MailAuth bool

	// RateLimits is "on" or "off" (AZUL_RATE_LIMITS); Limits holds each
	// limit's value by name (AZUL_LIMIT_*, see limits.Specs).
	RateLimits onOff
	Limits     map[string]string

	// GameCacheBytes bounds the memory of the games kept folded for moves
	// (play.Config.CacheBytes; negative: no cache).
	GameCacheBytes int64

	// PprofAddr is the loopback address of Go's profiles; empty: none.
	PprofAddr string
	// MetricsAddr is the operator's address serving /metrics; empty:
	// none. MetricsToken lets the public port serve it to that bearer
	// token; empty: the public port does not serve it.
	MetricsAddr, MetricsToken string
}

// onOff is a switch written on or off (true and false also do).
type onOff struct{ on bool }

func (o *onOff) String() string {
	if o == nil || o.on {
		return "on"
	}
	return "off"
}

func (o *onOff) Set(v string) error {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "1", "yes":
		o.on = true
	case "off", "false", "0", "no":
		o.on = false
	default:
		return fmt.Errorf("%q is neither on nor off", v)
	}
	return nil
}

// limitValue is one limit's setting, checked when set.
type limitValue struct {
	name string
	into map[string]string
}

func (l limitValue) String() string {
	if l.into == nil {
		return ""
	}
	return l.into[l.name]
}

func (l limitValue) Set(v string) error {
	if _, _, err := limits.ParseRule(l.name, v); err != nil {
		return err
	}
	l.into[l.name] = strings.TrimSpace(v)
	return nil
}

// limitPolicy is the configured rule of every limit.
func (c *config) limitPolicy() (limits.Policy, error) {
	return limits.ParsePolicy(func(name string) string { return c.Limits[name] })
}

// option describes one configuration setting for flags, environment and
// the printout at start.
type option struct {
	flag, env, usage string
	// secret values are masked when printed: the password of a URL, or
	// the whole value when plain.
	secret, plain bool
	// source is where the value came from: "flag", "env" or "default".
	source string
}

// settings is a parsed FlagSet with the origin of every value.
type settings struct {
	fs      *flag.FlagSet
	options []*option
}

// defaultDataDir is where the embedded cluster keeps its data when
// AZUL_DATA_DIR is not set: $XDG_DATA_HOME/azuld, else ~/.local/share/azuld
// on Unix, the user config dir (~/Library/Application Support) on macOS and
// %LocalAppData% on Windows. Root gets /var/lib/azuld: PostgreSQL then runs
// as another account, which could not enter root's home.
func defaultDataDir(getenv func(string) string, euid int) string {
	if euid == 0 {
		return "/var/lib/azuld"
	}
	if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "azuld")
	}
	switch runtime.GOOS {
	case "darwin":
		if dir, err := os.UserConfigDir(); err == nil {
			return filepath.Join(dir, "azuld")
		}
	case "windows":
		if dir, err := os.UserCacheDir(); err == nil {
			return filepath.Join(dir, "azuld")
		}
	}
	home := getenv("HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	if home == "" {
		return filepath.Join(os.TempDir(), "azuld")
	}
	return filepath.Join(home, ".local", "share", "azuld")
}

// defaultCacheDir is where downloaded PostgreSQL binaries are kept: the
// user's cache folder ($XDG_CACHE_HOME or ~/.cache, ~/Library/Caches on
// macOS, %LocalAppData% on Windows), under azuld/postgres. Root gets
// /var/cache/azuld/postgres: PostgreSQL then runs as another account,
// which could not enter root's home to run them.
func defaultCacheDir(getenv func(string) string, euid int) string {
	if euid == 0 {
		return "/var/cache/azuld/postgres"
	}
	if x := getenv("XDG_CACHE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "azuld", "postgres")
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		if dir, err := os.UserCacheDir(); err == nil {
			return filepath.Join(dir, "azuld", "postgres")
		}
	}
	home := getenv("HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	if home == "" {
		return filepath.Join(os.TempDir(), "azuld-cache", "postgres")
	}
	return filepath.Join(home, ".cache", "azuld", "postgres")
}

// Which settings a subcommand takes.
const (
	withDatabase = 1 << iota // database URL or embedded cluster
	withHTTP                 // HTTP server, bots, shutdown
	withAddr                 // the HTTP address alone (health)
)

// newSettings declares the flags of a subcommand into cfg.
func newSettings(name string, what int, cfg *config, getenv func(string) string, out io.Writer) *settings {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	s := &settings{fs: fs}
	add := func(flagName, env, usage string, secret bool) {
		s.options = append(s.options, &option{flag: flagName, env: env, usage: usage, secret: secret, source: "default"})
	}
	addPlainSecret := func(flagName, env string) {
		s.options = append(s.options, &option{flag: flagName, env: env, secret: true, plain: true, source: "default"})
	}
	if what&withDatabase != 0 {
		fs.StringVar(&cfg.DatabaseURL, "database-url", "", "PostgreSQL URL the server connects with, as a member of azuld_app; with neither database URL set, a private cluster runs under the data dir")
		add("database-url", "AZUL_DATABASE_URL", "", true)
		fs.StringVar(&cfg.MigrateDatabaseURL, "migrate-database-url", "", "PostgreSQL URL of the schema's owner, for migrations (at start and by azuld migrate) and projections rebuild; empty: the database URL")
		add("migrate-database-url", "AZUL_MIGRATE_DATABASE_URL", "", true)
		fs.StringVar(&cfg.DataDir, "data-dir", defaultDataDir(getenv, os.Geteuid()), "folder of the private PostgreSQL cluster (when no database URL is set)")
		add("data-dir", "AZUL_DATA_DIR", "", false)
		fs.StringVar(&cfg.PGBin, "pg-bin", "", "folder holding initdb, pg_ctl and postgres; empty searches PATH, pg_config and /usr/lib/postgresql/*/bin")
		add("pg-bin", "AZUL_PG_BIN", "", false)
		fs.IntVar(&cfg.PGPort, "pg-port", 0, "TCP port of the private cluster on 127.0.0.1; 0 picks a free port")
		add("pg-port", "AZUL_PG_PORT", "", false)
		fs.StringVar(&cfg.PGOSUser, "pg-os-user", "", "account the private cluster runs as when azuld runs as root (default postgres)")
		add("pg-os-user", "AZUL_PG_OS_USER", "", false)
		fs.BoolVar(&cfg.PGDownload, "pg-download", true, "when no PostgreSQL is installed, download its server binaries once into the cache dir")
		add("pg-download", "AZUL_PG_DOWNLOAD", "", false)
		fs.StringVar(&cfg.PGDownloadURL, "pg-download-url", pgfetch.DefaultRepositoryURL, "Maven repository serving zonky's embedded-postgres-binaries archives")
		add("pg-download-url", "AZUL_PG_DOWNLOAD_URL", "", true)
		fs.StringVar(&cfg.PGDownloadVersion, "pg-download-version", pgfetch.DefaultVersion, "PostgreSQL version downloaded (an embedded-postgres-binaries version)")
		add("pg-download-version", "AZUL_PG_DOWNLOAD_VERSION", "", false)
		fs.StringVar(&cfg.PGCacheDir, "pg-cache-dir", defaultCacheDir(getenv, os.Geteuid()), "folder keeping the downloaded PostgreSQL binaries")
		add("pg-cache-dir", "AZUL_PG_CACHE_DIR", "", false)
		fs.IntVar(&cfg.DBMaxConns, "db-max-conns", 16, "size of the database connection pool")
		add("db-max-conns", "AZUL_DB_MAX_CONNS", "", false)
	}
	if what&(withHTTP|withAddr) != 0 {
		fs.StringVar(&cfg.HTTPAddr, "http-addr", "127.0.0.1:8080", "address the HTTP server listens on")
		add("http-addr", "AZUL_HTTP_ADDR", "", false)
	}
	if what&withHTTP != 0 {
		fs.Int64Var(&cfg.BodyLimit, "body-limit", 64<<10, "largest accepted request body, in bytes")
		add("body-limit", "AZUL_BODY_LIMIT", "", false)
		fs.StringVar(&cfg.TrustedProxies, "trusted-proxies", "", "proxies (CIDRs or addresses, comma-separated) whose X-Forwarded-For names the client; empty: the peer is the client")
		add("trusted-proxies", "AZUL_TRUSTED_PROXIES", "", false)
		fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", 15*time.Second, "how long a shutdown waits for requests in flight")
		add("shutdown-timeout", "AZUL_SHUTDOWN_TIMEOUT", "", false)
		fs.Int64Var(&cfg.GameCacheBytes, "game-cache-bytes", play.DefaultCacheBytes, "memory the games kept folded for moves may take, by their estimated size, in bytes; negative: no cache (docs/SCALING.md \"Memory\")")
		add("game-cache-bytes", "AZUL_GAME_CACHE_BYTES", "", false)
		fs.StringVar(&cfg.MetricsAddr, "metrics-addr", "", "address of a listener of the operator's serving /metrics without a token, e.g. 127.0.0.1:9090 (or :9090 on a network only the scraper reaches); empty: none")
		add("metrics-addr", "AZUL_METRICS_ADDR", "", false)
		fs.StringVar(&cfg.MetricsToken, "metrics-token", "", "bearer token that reads /metrics on the public HTTP port; empty: the public port does not serve /metrics")
		addPlainSecret("metrics-token", "AZUL_METRICS_TOKEN")
		fs.StringVar(&cfg.PprofAddr, "pprof-addr", "", "loopback address serving Go's profiles at /debug/pprof/, e.g. 127.0.0.1:6060; empty: none")
		add("pprof-addr", "AZUL_PPROF_ADDR", "", false)
		fs.BoolVar(&cfg.Bots, "bots", true, "move bot seats left waiting (after a restart, or a job lost); with notifications on, job workers move every bot, without them random, greedy and level 1–3 bots answer in the request path")
		add("bots", "AZUL_BOTS", "", false)
		fs.StringVar(&cfg.SMTPURL, "smtp-url", "", "relay for outgoing mail: smtp://user:pass@host:587 (STARTTLS), smtps://user:pass@host:465, smtp://host:25?tls=none; empty writes mails to the log and prints the links of sign-in mails on stderr")
		add("smtp-url", "AZUL_SMTP_URL", "", true)
		fs.StringVar(&cfg.MailDomain, "mail-domain", "localhost", "mail domain: replies go to play+<token>@ this domain, whose MX must reach azuld's SMTP listener or a provider's inbound webhook")
		add("mail-domain", "AZUL_MAIL_DOMAIN", "", false)
		fs.StringVar(&cfg.MailFrom, "mail-from", "", "sender of the mails, e.g. \"azuld <azuld@example.org>\"; empty: azuld@<mail domain>")
		add("mail-from", "AZUL_MAIL_FROM", "", false)
		fs.StringVar(&cfg.BaseURL, "base-url", "", "public URL of this server, for the links in mails and webhooks; empty: http://<http addr>")
		add("base-url", "AZUL_BASE_URL", "", false)
		fs.StringVar(&cfg.SMTPListen, "smtp-listen", "", "address of the built-in SMTP listener for replies, e.g. 127.0.0.1:2525 or :25; empty: no listener")
		add("smtp-listen", "AZUL_SMTP_LISTEN", "", false)
		fs.StringVar(&cfg.InboundSecret, "inbound-secret", "", "shared secret of POST /v1/inbound/email (bearer token or basic-auth password); empty disables the endpoint")
		addPlainSecret("inbound-secret", "AZUL_INBOUND_SECRET")
		fs.BoolVar(&cfg.Notify, "notify", true, "deliver notifications (mails, webhooks, time control) from this process; off, it only enqueues them for other replicas")
		add("notify", "AZUL_NOTIFY", "", false)
		fs.IntVar(&cfg.NotifyWorkers, "notify-workers", 4, "deliveries run at once by this process")
		add("notify-workers", "AZUL_NOTIFY_WORKERS", "", false)
		fs.BoolVar(&cfg.VerifyAddresses, "verify-addresses", true, "mail a new player's address nothing but a verification link until its owner follows it (false: a closed club whose members are known)")
		add("verify-addresses", "AZUL_VERIFY_ADDRESSES", "", false)
		fs.StringVar(&cfg.DKIMKey, "dkim-key", "", "PEM file of the DKIM key that signs outgoing mail (azuld dkim keygen writes one); empty: mails are not signed")
		add("dkim-key", "AZUL_DKIM_KEY", "", false)
		fs.StringVar(&cfg.DKIMSelector, "dkim-selector", "azuld", "DKIM selector: the key's TXT record is published at <selector>._domainkey.<mail domain>")
		add("dkim-selector", "AZUL_DKIM_SELECTOR", "", false)
		fs.BoolVar(&cfg.MailAuth, "mail-auth", true, "check SPF, DKIM and DMARC of the replies the SMTP listener takes, and record the result in the move's audit log (never refused on it)")
		add("mail-auth", "AZUL_MAIL_AUTH", "", false)
		fs.BoolVar(&cfg.WebhookAllowPrivate, "webhook-allow-private", false, "let webhooks reach loopback, private and link-local addresses (bots on the same host or network)")
		add("webhook-allow-private", "AZUL_WEBHOOK_ALLOW_PRIVATE", "", false)
		fs.IntVar(&cfg.StreamsPerClient, "streams-per-client", api.DefaultStreamsPerClient, "live streams (game pages open) one client address may keep open on this process; over it: 429; negative: no cap")
		add("streams-per-client", "AZUL_STREAMS_PER_CLIENT", "", false)
		fs.IntVar(&cfg.StreamsTotal, "streams-max", api.DefaultStreamsTotal, "live streams this process keeps open in all; over it: 503; negative: no cap")
		add("streams-max", "AZUL_STREAMS_MAX", "", false)
		fs.DurationVar(&cfg.AwayDelay, "away-delay", notify.DefaultAwayDelay, "a turn mail waits until its player has been away from the game's page (stream closed, no move there) this long; 0: turn mails go at once")
		add("away-delay", "AZUL_AWAY_DELAY", "", false)
		cfg.RateLimits = onOff{on: true}
		fs.Var(&cfg.RateLimits, "rate-limits", "rate limits (docs/limits.md): on, or off for a closed server, load tests and benchmarks")
		add("rate-limits", "AZUL_RATE_LIMITS", "", false)
		cfg.Limits = map[string]string{}
		for _, spec := range limits.Specs {
			cfg.Limits[spec.Name] = spec.Default
			flagName := "limit-" + strings.ReplaceAll(spec.Name, "_", "-")
			fs.Var(limitValue{name: spec.Name, into: cfg.Limits}, flagName, "limit of "+spec.Counts+": a count per period (5/h, 120/min, 50/d, 30/10m) or off")
			add(flagName, limits.EnvName(spec.Name), "", false)
		}
	}
	fs.StringVar(&cfg.LogLevel, "log-level", "info", "log level: debug, info, warn or error")
	add("log-level", "AZUL_LOG_LEVEL", "", false)

	fs.Usage = func() {
		out := fs.Output()
		fmt.Fprintf(out, "Usage: azuld %s%s [flags]\n\n%s\n\nFlags (each also read from the environment variable shown):\n", name, commandArgs[name], commandHelp[name])
		for _, o := range s.options {
			f := fs.Lookup(o.flag)
			def := f.DefValue
			if def == "" {
				def = `""`
			}
			fmt.Fprintf(out, "  --%s  (%s, default %s)\n      %s\n", o.flag, o.env, def, f.Usage)
		}
	}
	return s
}

// parse reads the flags, then fills every setting not given as a flag
// from its environment variable.
func (s *settings) parse(args []string, getenv func(string) string) error {
	if err := s.fs.Parse(args); err != nil {
		return err
	}
	if s.fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (see --help)", s.fs.Arg(0))
	}
	set := map[string]bool{}
	s.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, o := range s.options {
		if set[o.flag] {
			o.source = "flag"
			continue
		}
		v, ok := lookupEnv(getenv, o.env)
		if !ok {
			continue
		}
		if err := s.fs.Set(o.flag, v); err != nil {
			return fmt.Errorf("environment variable %s: %w", o.env, err)
		}
		o.source = "env"
	}
	return nil
}

// lookupEnv treats an empty variable as unset, as shells make it easy to
// export an empty value by mistake.
func lookupEnv(getenv func(string) string, name string) (string, bool) {
	v := getenv(name)
	return v, v != ""
}

// printable lists the settings for the start-up log, secrets masked.
func (s *settings) printable() []any {
	attrs := make([]any, 0, 2*len(s.options))
	for _, o := range s.options {
		v := s.fs.Lookup(o.flag).Value.String()
		switch {
		case o.secret && o.plain && v != "":
			v = "xxxxx"
		case o.secret:
			v = maskURL(v)
		}
		attrs = append(attrs, o.env, fmt.Sprintf("%s (%s)", v, o.source))
	}
	return attrs
}

// dsnPassword finds password=... in a key/value connection string.
var dsnPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]+)`)

// userinfoPassword finds user:password@ in a URL that net/url refuses.
var userinfoPassword = regexp.MustCompile(`(://[^:/@]*:)[^/]*(@)`)

// maskURL hides the password of a PostgreSQL connection string, in URL or
// key/value form, and in a URL's password query parameter.
func maskURL(dsn string) string {
	if dsn == "" {
		return dsn
	}
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		for k := range q {
			if strings.EqualFold(k, "password") {
				q.Set(k, "xxxxx")
			}
		}
		u.RawQuery = q.Encode()
		return u.String()
	}
	masked := userinfoPassword.ReplaceAllString(dsn, "${1}xxxxx${2}")
	return dsnPassword.ReplaceAllString(masked, "${1}xxxxx")
}

// errHelp is returned after --help was printed.
var errHelp = flag.ErrHelp

// isHelp reports whether err means the usage was asked for.
func isHelp(err error) bool { return errors.Is(err, errHelp) }
