package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/api"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgcluster"
	"github.com/azuld/azuld/internal/pgfetch"
	"github.com/azuld/azuld/migrations"
)

// process runs one azuld command. Its fields are the process's environment,
// so tests can run commands in-process.
type process struct {
	getenv         func(string) string
	stdout, stderr io.Writer
	// listening, when set, is told the HTTP server's address once it
	// accepts connections (tests use it with AZUL_HTTP_ADDR=127.0.0.1:0).
	listening func(addr string)
}

// commandHelp is the one-paragraph description of each subcommand.
var commandHelp = map[string]string{
	"serve": "Run the HTTP server. With no database URL, a private PostgreSQL cluster is started\n" +
		"under the data dir (and stopped on exit), from the installed PostgreSQL or, where there is\n" +
		"none, from binaries downloaded once into the cache dir; the database is migrated at start.",
	"migrate": "Apply the database migrations as the schema's owner (AZUL_MIGRATE_DATABASE_URL, else\n" +
		"AZUL_DATABASE_URL), then exit.",
	"projections rebuild": "Rebuild the read models (games list, turn inboxes) from the events, then exit.",
	"version":             "Print the version.",
	"reports": "List the players' reports of table-talk messages (POST /v1/games/{id}/messages/{v}/report),\n" +
		"newest first (at most 1000): when, the game and the message's version, the reporter's and\n" +
		"the author's ids, the reason and the message. Changes nothing.",
	"health": "Ask the server listening on the HTTP address for /readyz: exit status 0 when it is\n" +
		"ready, 1 when not or when it does not answer (a container health check with no shell).",
	"verify": "Re-derive every draw and event of a game from its revealed (or public) seed and its\n" +
		"recorded commands, and report PASS or the first mismatch (exit status 1). The argument is\n" +
		"a game id (read from the configured database) or a file from GET /v1/games/{id}/export\n" +
		"(no database needed). Before a secret-seeded game ends, only the commitment is shown.\n" +
		"With --all, every game of the configured database is checked, one at a time: each failure\n" +
		"is printed, then a summary line; the exit status is 1 if any game failed.",
}

// commandArgs are the positional arguments of a subcommand, for --help.
var commandArgs = map[string]string{"verify": " <game id | exported file | --all>"}

const usage = `azuld: the Azul play-by-mail server.

Usage:
  azuld [serve] [flags]          run the server (default)
  azuld migrate [flags]          apply the database migrations
  azuld projections rebuild      rebuild the read models from the events
  azuld verify <game | file>     check a game's draws against its seed
  azuld verify --all             check every game of the database
  azuld reports                  list the players' reports of table-talk messages
  azuld health                   exit 0 when the server at the HTTP address is ready
  azuld dkim keygen --out <file> write a DKIM signing key and print its DNS record
  azuld version                  print the version

Run "azuld <command> --help" for a command's flags. Every flag can also be
set by an AZUL_* environment variable (a flag wins).
`

// run dispatches a command line and returns the exit code.
func (a *process) run(ctx context.Context, args []string) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "serve":
		err = a.serve(ctx, args)
	case "migrate":
		err = a.migrate(ctx, args)
	case "projections":
		if len(args) == 0 || args[0] != "rebuild" {
			if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
				fmt.Fprint(a.stdout, "Usage: azuld projections rebuild [flags]\n")
				return 0
			}
			fmt.Fprint(a.stderr, "azuld projections: the only subcommand is \"rebuild\"\n")
			return 2
		}
		err = a.rebuildProjections(ctx, args[1:])
	case "verify":
		err = a.verify(ctx, args)
	case "reports":
		err = a.reports(ctx, args)
	case "health":
		err = a.health(ctx, args)
	case "dkim":
		err = a.dkimKeygen(args)
	case "version":
		fmt.Fprintln(a.stdout, "azuld", version())
		return 0
	case "help", "-h", "--help":
		fmt.Fprint(a.stdout, usage)
		return 0
	default:
		fmt.Fprintf(a.stderr, "azuld: unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	switch {
	case err == nil:
		return 0
	case isHelp(err):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errVerifyFailed):
		return 1
	case errors.Is(err, errNotReady):
		fmt.Fprintf(a.stderr, "azuld health: %v\n", err)
		return 1
	}
	fmt.Fprintf(a.stderr, "azuld %s: %v\n", cmd, err)
	return 1
}

// errUsage marks command-line mistakes (exit code 2); flag has printed
// the message already.
var errUsage = errors.New("usage error")

// parseSettings declares and parses a subcommand's flags.
func (a *process) parseSettings(name string, what int, args []string) (*config, *settings, error) {
	cfg := &config{}
	s := newSettings(name, what, cfg, a.getenv, a.stderr)
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
		s.fs.SetOutput(a.stdout)
	}
	if err := s.parse(args, a.getenv); err != nil {
		if isHelp(err) {
			return nil, nil, err
		}
		fmt.Fprintf(a.stderr, "azuld %s: %v\n", name, err)
		return nil, nil, errUsage
	}
	return cfg, s, nil
}

// newLogger writes JSON lines to stderr, with request ids.
func (a *process) newLogger(level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: use debug, info, warn or error", level)
	}
	h := slog.NewJSONHandler(a.stderr, &slog.HandlerOptions{Level: lv})
	return slog.New(api.WithRequestIDs(h)), nil
}

// database is where azuld's data lives: the URL the server connects with,
// the schema owner's URL for migrations, and what must happen when done.
type database struct {
	// url connects as the server's role. For the private cluster it is
	// set by connect, once the role exists.
	url string
	// ownerURL connects as the schema's owner, who migrates.
	ownerURL string
	cluster  *pgcluster.Cluster
}

// serverRole is the login role the server uses in the private cluster. Its
// password is drawn anew at every start: nothing keeps it at rest.
const serverRole = "azuld_server"

// clusterDir is the private cluster's folder inside the data dir.
func clusterDir(dataDir string) string { return filepath.Join(dataDir, "postgres") }

// openDatabase returns the configured database, or starts the private
// cluster under the data dir. Without an owner's URL, the database URL
// migrates too (a single role that owns the schema: it can change events,
// which serve warns about).
func openDatabase(ctx context.Context, cfg *config, log *slog.Logger) (*database, error) {
	if cfg.DatabaseURL != "" || cfg.MigrateDatabaseURL != "" {
		// The owner's URL alone is enough to migrate; connect refuses
		// to serve without the server's own.
		owner := cfg.MigrateDatabaseURL
		if owner == "" {
			owner = cfg.DatabaseURL
		}
		return &database{url: cfg.DatabaseURL, ownerURL: owner}, nil
	}
	log.Info("starting the private PostgreSQL cluster", "data_dir", clusterDir(cfg.DataDir))
	opts := pgcluster.Options{
		DataDir:  clusterDir(cfg.DataDir),
		Port:     cfg.PGPort,
		BinDir:   cfg.PGBin,
		Database: "azuld",
		Logger:   log,
		OSUser:   cfg.PGOSUser,
	}
	if cfg.PGDownload {
		// The last resort of a machine without PostgreSQL: fetched once, then cached.
		opts.FetchBinaries = func(ctx context.Context) (string, error) {
			return pgfetch.Fetch(ctx, pgfetch.Options{
				RepositoryURL: cfg.PGDownloadURL,
				CacheDir:      cfg.PGCacheDir,
				Version:       cfg.PGDownloadVersion,
				Logger:        log,
			})
		}
	}
	cluster, err := pgcluster.Start(ctx, opts)
	if err != nil {
		if errors.Is(err, pgcluster.ErrNoBinaries) {
			return nil, fmt.Errorf("no database configured and %w", err)
		}
		return nil, fmt.Errorf("start the private PostgreSQL cluster in %s: %w", clusterDir(cfg.DataDir), err)
	}
	return &database{ownerURL: cluster.URL("azuld"), cluster: cluster}, nil
}

// close stops the private cluster, if one was started.
func (d *database) close(log *slog.Logger) {
	if d.cluster == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := d.cluster.Stop(ctx); err != nil {
		log.Error("stopping the private PostgreSQL cluster failed", "err", err.Error())
		return
	}
	log.Info("private PostgreSQL cluster stopped")
}

// migrate applies the migrations as the schema's owner. In the private
// cluster it then sets up the server's role, with a fresh password.
func (d *database) migrate(ctx context.Context) error {
	if err := migrations.Up(ctx, withConnectTimeout(d.ownerURL)); err != nil {
		if d.ownerURL == d.url {
			return fmt.Errorf("migrate the database (as the server's role: set AZUL_MIGRATE_DATABASE_URL to the schema owner's URL, or run azuld migrate with it first): %w", err)
		}
		return fmt.Errorf("migrate the database: %w", err)
	}
	if d.cluster == nil {
		return nil
	}
	password, err := newPassword()
	if err != nil {
		return err
	}
	d.url, err = migrations.EnsureServerRole(ctx, d.ownerURL, serverRole, password)
	return err
}

// withConnectTimeout adds connect_timeout to a connection string that
// does not set one (nor PGCONNECT_TIMEOUT): migrations connect through
// database/sql, without the pool's settings, and a dead host first in a
// multi-host URL must not hang the start. A URL is not parsed (net/url
// refuses a list of hosts); its query gets one more parameter.
func withConnectTimeout(conn string) string {
	if strings.Contains(conn, "connect_timeout") || os.Getenv("PGCONNECT_TIMEOUT") != "" {
		return conn
	}
	timeout := strconv.Itoa(int(events.DefaultConnectTimeout / time.Second))
	if !strings.HasPrefix(conn, "postgres://") && !strings.HasPrefix(conn, "postgresql://") {
		return conn + " connect_timeout=" + timeout
	}
	base, fragment, _ := strings.Cut(conn, "#")
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	out := base + sep + "connect_timeout=" + timeout
	if fragment != "" {
		out += "#" + fragment
	}
	return out
}

// newPassword is 128 random bits in hex.
func newPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("draw a password for the server's role: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// connect migrates the database and opens the pool as the server's role.
func connect(ctx context.Context, db *database, cfg *config) (*pgxpool.Pool, error) {
	if err := db.migrate(ctx); err != nil {
		return nil, err
	}
	if db.url == "" {
		return nil, errors.New("AZUL_DATABASE_URL is not set: the server connects as a role of its own, a member of " +
			migrations.AppRole + " (AZUL_MIGRATE_DATABASE_URL is the schema owner's, for migrations)")
	}
	return openPool(ctx, db.url, cfg)
}

// idleInTransactionTimeout ends the server's sessions idle in a
// transaction for longer than this (in milliseconds); a database URL may
// set another.
const idleInTransactionTimeout = "10000"

// openPool opens and checks a connection pool.
func openPool(ctx context.Context, url string, cfg *config) (*pgxpool.Pool, error) {
	pcfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	if cfg.DBMaxConns > 0 {
		pcfg.MaxConns = int32(cfg.DBMaxConns)
	}
	// A replica cut off from the database in the middle of a transaction
	// leaves its session open on the server (no packet says it is gone),
	// holding the transaction's locks: the next move of that game, from
	// any replica, would wait on them for as long as TCP takes to give up.
	// The server's transactions never wait on anything but the database,
	// so one idle for this long has lost its client.
	if _, set := pcfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"]; !set {
		pcfg.ConnConfig.RuntimeParams["idle_in_transaction_session_timeout"] = idleInTransactionTimeout
	}
	// Following the primary through a fail-over: a connect timeout per
	// host of a multi-host URL, keep-alives and TCP_USER_TIMEOUT, no
	// cancel requests (see events.ConfigureConn).
	events.ConfigurePool(pcfg, url)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("connect to the database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connect to the database: %w", err)
	}
	return pool, nil
}

// warnIfHistoryWritable logs a warning when the server's role could
// change or delete events: a compromised server could then rewrite games.
func warnIfHistoryWritable(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) {
	var role string
	var writable bool
	err := pool.QueryRow(ctx, `SELECT current_user,
		has_table_privilege('events', 'UPDATE') OR has_table_privilege('events', 'DELETE') OR has_table_privilege('events', 'TRUNCATE')
		OR pg_has_role((SELECT relowner FROM pg_class WHERE oid = 'events'::regclass), 'USAGE')`).Scan(&role, &writable)
	if err != nil {
		log.Warn("could not check the server's database rights", "err", err.Error())
		return
	}
	if writable {
		log.Warn("the server's database role may change or delete events; run the server as a member of "+migrations.AppRole+
			" and migrate with AZUL_MIGRATE_DATABASE_URL (see docs/configuration.md, \"Database roles\")", "role", role)
	}
}

// migrate applies the migrations.
func (a *process) migrate(ctx context.Context, args []string) error {
	cfg, s, err := a.parseSettings("migrate", withDatabase, args)
	if err != nil {
		return err
	}
	log, err := a.newLogger(cfg.LogLevel)
	if err != nil {
		return err
	}
	log.Info("configuration", s.printable()...)
	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.close(log)
	if err := db.migrate(ctx); err != nil {
		return err
	}
	log.Info("database migrated")
	return nil
}

// rebuildProjections drops and rebuilds the read models.
func (a *process) rebuildProjections(ctx context.Context, args []string) error {
	cfg, s, err := a.parseSettings("projections rebuild", withDatabase, args)
	if err != nil {
		return err
	}
	log, err := a.newLogger(cfg.LogLevel)
	if err != nil {
		return err
	}
	log.Info("configuration", s.printable()...)
	db, err := openDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.close(log)
	if err := db.migrate(ctx); err != nil {
		return err
	}
	// Rebuilding truncates the read models, which only the owner may.
	pool, err := openPool(ctx, db.ownerURL, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	svc := newService(pool, log)
	start := time.Now()
	if err := svc.RebuildProjections(ctx); err != nil {
		return fmt.Errorf("rebuild projections: %w", err)
	}
	log.Info("projections rebuilt", "duration", time.Since(start).String())
	return nil
}

// version is the module version and VCS revision the binary was built
// from.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " " + rev + modified
	}
	return v
}
