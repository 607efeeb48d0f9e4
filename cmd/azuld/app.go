package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/api"
	"github.com/azuld/azuld/internal/pgcluster"
	"github.com/azuld/azuld/migrations"
)

// app runs one azuld command. Its fields are the process's environment,
// so tests can run commands in-process.
type app struct {
	getenv         func(string) string
	stdout, stderr io.Writer
	// listening, when set, is told the HTTP server's address once it
	// accepts connections (tests use it with AZUL_HTTP_ADDR=127.0.0.1:0).
	listening func(addr string)
}

// commandHelp is the one-paragraph description of each subcommand.
var commandHelp = map[string]string{
	"serve": "Run the HTTP server. With no database URL, a private PostgreSQL cluster is started\n" +
		"under the data dir (and stopped on exit); the database is migrated at start.",
	"migrate":             "Apply the database migrations, then exit.",
	"projections rebuild": "Rebuild the read models (games list, turn inboxes) from the events, then exit.",
	"version":             "Print the version.",
	"verify": "Re-derive every draw and event of a game from its revealed (or public) seed and its\n" +
		"recorded commands, and report PASS or the first mismatch (exit status 1). The argument is\n" +
		"a game id (read from the configured database) or a file from GET /v1/games/{id}/export\n" +
		"(no database needed). Before a secret-seeded game ends, only the commitment is shown.",
}

// commandArgs are the positional arguments of a subcommand, for --help.
var commandArgs = map[string]string{"verify": " <game id | exported file>"}

const usage = `azuld: the Azul play-by-mail server.

Usage:
  azuld [serve] [flags]          run the server (default)
  azuld migrate [flags]          apply the database migrations
  azuld projections rebuild      rebuild the read models from the events
  azuld verify <game | file>     check a game's draws against its seed
  azuld version                  print the version

Run "azuld <command> --help" for a command's flags. Every flag can also be
set by an AZUL_* environment variable (a flag wins).
`

// run dispatches a command line and returns the exit code.
func (a *app) run(ctx context.Context, args []string) int {
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
	}
	fmt.Fprintf(a.stderr, "azuld %s: %v\n", cmd, err)
	return 1
}

// errUsage marks command-line mistakes (exit code 2); flag has printed
// the message already.
var errUsage = errors.New("usage error")

// parseSettings declares and parses a subcommand's flags.
func (a *app) parseSettings(name string, what int, args []string) (*config, *settings, error) {
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
func (a *app) newLogger(level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("log level %q: use debug, info, warn or error", level)
	}
	h := slog.NewJSONHandler(a.stderr, &slog.HandlerOptions{Level: lv})
	return slog.New(api.WithRequestIDs(h)), nil
}

// database is a connection URL plus what must happen when done with it.
type database struct {
	url     string
	cluster *pgcluster.Cluster
}

// clusterDir is the private cluster's folder inside the data dir.
func clusterDir(dataDir string) string { return filepath.Join(dataDir, "postgres") }

// openDatabase returns the configured database, or starts the private
// cluster under the data dir.
func openDatabase(ctx context.Context, cfg *config, log *slog.Logger) (*database, error) {
	if cfg.DatabaseURL != "" {
		return &database{url: cfg.DatabaseURL}, nil
	}
	log.Info("starting the private PostgreSQL cluster", "data_dir", clusterDir(cfg.DataDir))
	cluster, err := pgcluster.Start(ctx, pgcluster.Options{
		DataDir:  clusterDir(cfg.DataDir),
		Port:     cfg.PGPort,
		BinDir:   cfg.PGBin,
		Database: "azuld",
		Logger:   log,
		OSUser:   cfg.PGOSUser,
	})
	if err != nil {
		if errors.Is(err, pgcluster.ErrNoBinaries) {
			return nil, fmt.Errorf("no database configured and %w", err)
		}
		return nil, fmt.Errorf("start the private PostgreSQL cluster in %s: %w", clusterDir(cfg.DataDir), err)
	}
	return &database{url: cluster.URL("azuld"), cluster: cluster}, nil
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

// connect migrates the database and opens the pool.
func connect(ctx context.Context, db *database, cfg *config) (*pgxpool.Pool, error) {
	if err := migrations.Up(ctx, db.url); err != nil {
		return nil, fmt.Errorf("migrate the database: %w", err)
	}
	pcfg, err := pgxpool.ParseConfig(db.url)
	if err != nil {
		return nil, fmt.Errorf("database URL: %w", err)
	}
	if cfg.DBMaxConns > 0 {
		pcfg.MaxConns = int32(cfg.DBMaxConns)
	}
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

// migrate applies the migrations.
func (a *app) migrate(ctx context.Context, args []string) error {
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
	if err := migrations.Up(ctx, db.url); err != nil {
		return fmt.Errorf("migrate the database: %w", err)
	}
	log.Info("database migrated")
	return nil
}

// rebuildProjections drops and rebuilds the read models.
func (a *app) rebuildProjections(ctx context.Context, args []string) error {
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
	pool, err := connect(ctx, db, cfg)
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
