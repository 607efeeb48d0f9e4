// Package pgtest gives tests PostgreSQL databases of their own.
//
// A Harness is one PostgreSQL server for a test binary; NewDatabase gives
// each test a fresh database on it, dropped when the test ends, so tests
// that use Postgres can run in parallel. The server comes from, in order:
//
//  1. AZUL_TEST_DATABASE_URL: an admin URL of a server where the role may
//     CREATE DATABASE (a CI service container, a developer's server). When it
//     is set but unusable, Start fails: a configured server is not replaced
//     by another one behind the operator's back.
//  2. testcontainers-go, when a Docker engine answers: a container of the
//     image AZUL_TEST_PG_IMAGE (default postgres:16-alpine; on an engine
//     without a registry, the local image scripts/images/build.sh makes).
//     When the engine is missing, lacks the image and cannot pull it, or the
//     container cannot start, the reason is logged within seconds and the
//     search goes on. Close removes the container; so does the next start
//     when a killed test binary could not (see startContainer).
//  3. A throw-away cluster from the local PostgreSQL binaries (see
//     internal/pgcluster; AZUL_PG_BIN names their directory), with
//     durability turned off, in a temp dir removed by Close: under
//     AZUL_TEST_PG_TMPDIR if set, else on /dev/shm when it has room (a RAM
//     disk makes creating databases an order of magnitude faster), else in
//     the system temp dir.
//
// When none works, Start fails with each reason: tests that need Postgres
// never skip.
//
// With Options.Template the schema is built once, in a template database,
// and every NewDatabase is a copy of it (CREATE DATABASE ... TEMPLATE), which
// is much faster than migrating each test's database.
//
// The intended use keeps one harness per test binary, in a package variable
// of the test files (the library itself keeps no state):
//
//	var pg *pgtest.Harness
//
//	func TestMain(m *testing.M) {
//		os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
//	}
//
//	func TestAppend(t *testing.T) {
//		t.Parallel()
//		pool := pg.NewPool(t) // or pgxpool.New on pg.NewDatabase(t)
//		...
//	}
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Environment variables that choose the server.
const (
	EnvDatabaseURL = "AZUL_TEST_DATABASE_URL"
	EnvImage       = "AZUL_TEST_PG_IMAGE"
	EnvBinDir      = "AZUL_PG_BIN"
	// EnvTempDir is where throw-away clusters are created; default: /dev/shm
	// when it has 1 GiB free (much faster), else the system temp dir.
	EnvTempDir = "AZUL_TEST_PG_TMPDIR"
)

// DefaultImage is the container image used when AZUL_TEST_PG_IMAGE is unset.
const DefaultImage = "postgres:16-alpine"

// namePrefix starts every database a harness creates, so that leftovers
// of a killed test run on a shared server are easy to find and drop.
const namePrefix = "azt_"

// Source says where a harness's server comes from.
type Source string

// The sources, in the order Start tries them.
const (
	SourceEnv       Source = "AZUL_TEST_DATABASE_URL"
	SourceContainer Source = "testcontainers"
	SourceLocal     Source = "local cluster"
)

// Options configure Start.
type Options struct {
	// Template, when set, runs once against a fresh template database (to
	// apply migrations, load fixtures); every NewDatabase is then a copy
	// of it. It must close its connections before returning; any left
	// open are terminated, since a template cannot be copied while in use.
	Template func(ctx context.Context, url string) error
	// Logger receives which server was chosen and why others were not;
	// nil logs to stderr.
	Logger *slog.Logger
	// DisableContainer skips the testcontainers source (the local cluster is
	// then tried right after AZUL_TEST_DATABASE_URL).
	DisableContainer bool
	// Parallel is how many of the package's parallel tests Main lets run
	// at once when the command line gives no -parallel (0:
	// DefaultParallel per processor). go test's own default, one per
	// processor, suits tests that compute; tests on databases of their
	// own spend most of their time waiting for PostgreSQL, their servers
	// and their job workers, and leave the processors idle.
	Parallel int
}

// DefaultParallel is how many tests per processor Main lets run at once
// by default (Options.Parallel).
const DefaultParallel = 3

// Harness is a PostgreSQL server that hands out databases to tests. Its
// methods are safe for concurrent use.
type Harness struct {
	adminURL string
	source   Source
	// template is the database new ones are copied from: the prepared
	// template, or template0 (never in use, unlike template1).
	template string
	// prefix makes this harness's names unique on a server shared by
	// several test binaries.
	prefix  string
	counter atomic.Int64
	// closeServer stops and removes the server when the harness started
	// it; nil for a server given by URL.
	closeServer func(ctx context.Context) error
	log         *slog.Logger
}

// Start finds a PostgreSQL server (see the package documentation), and
// prepares the template when opts.Template is set. Close releases it.
func Start(ctx context.Context, opts Options) (*Harness, error) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}

	if admin := os.Getenv(EnvDatabaseURL); admin != "" {
		h, err := newHarness(ctx, SourceEnv, admin, nil, opts, logger)
		if err != nil {
			return nil, fmt.Errorf("pgtest: %s is set but unusable: %w", EnvDatabaseURL, err)
		}
		logger.Info("pgtest: using the server of " + EnvDatabaseURL)
		return h, nil
	}
	reasons := []string{EnvDatabaseURL + " is not set"}

	if opts.DisableContainer {
		reasons = append(reasons, "testcontainers: disabled by the options")
	} else {
		h, err := startContainer(ctx, opts, logger)
		if err == nil {
			return h, nil
		}
		logger.Info("pgtest: no PostgreSQL container, trying the local binaries", "reason", err)
		reasons = append(reasons, "testcontainers: "+err.Error())
	}

	h, err := startLocal(ctx, opts, logger)
	if err == nil {
		return h, nil
	}
	reasons = append(reasons, "local cluster: "+err.Error())
	return nil, fmt.Errorf("pgtest: no PostgreSQL server for the tests:\n- %s", strings.Join(reasons, "\n- "))
}

// Main is the body of a TestMain: it starts a harness, stores it in
// *harness for the tests, runs them, closes the harness and returns the
// exit code. When no server can be had it reports why and fails the
// binary (exit code 1) without running any test.
func Main(m *testing.M, opts Options, harness **Harness) int {
	if err := setParallel(opts.Parallel); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	h, err := Start(ctx, opts)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		fmt.Fprintln(os.Stderr, "FAIL: the tests of this package need PostgreSQL")
		return 1
	}
	*harness = h
	code := m.Run()

	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// setParallel sets -test.parallel to n (0: DefaultParallel per
// processor) unless the command line gave it.
func setParallel(n int) error {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if given {
		return nil
	}
	if n <= 0 {
		n = DefaultParallel * runtime.GOMAXPROCS(0)
	}
	if err := flag.Set("test.parallel", strconv.Itoa(n)); err != nil {
		return fmt.Errorf("pgtest: -test.parallel: %w", err)
	}
	return nil
}

// newHarness checks the admin connection and prepares the template.
func newHarness(ctx context.Context, source Source, adminURL string, closeServer func(context.Context) error,
	opts Options, logger *slog.Logger) (*Harness, error) {
	id := make([]byte, 4)
	if _, err := rand.Read(id); err != nil {
		return nil, fmt.Errorf("name the test databases: %w", err)
	}
	h := &Harness{
		adminURL:    adminURL,
		source:      source,
		template:    "template0",
		prefix:      namePrefix + hex.EncodeToString(id) + "_",
		closeServer: closeServer,
		log:         logger,
	}
	if _, err := dbURL(adminURL, "x"); err != nil {
		return nil, err
	}
	conn, err := h.connect(ctx)
	if err != nil {
		return nil, err
	}
	_ = conn.Close(ctx)

	if opts.Template != nil {
		if err := h.prepareTemplate(ctx, opts.Template); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// prepareTemplate creates the template database, runs setup on it, and
// closes it to connections so that copies of it can be made at any time.
func (h *Harness) prepareTemplate(ctx context.Context, setup func(context.Context, string) error) error {
	name := h.prefix + "template"
	if err := h.createDatabase(ctx, name, "template0"); err != nil {
		return err
	}
	tmplURL, err := dbURL(h.adminURL, name)
	if err != nil {
		return err
	}
	if err := setup(ctx, tmplURL); err != nil {
		return errors.Join(fmt.Errorf("template setup: %w", err), h.dropDatabase(ctx, name))
	}
	conn, err := h.connect(ctx)
	if err != nil {
		return errors.Join(err, h.dropDatabase(ctx, name))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	// No new sessions, then end those the setup left open.
	_, err = conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH ALLOW_CONNECTIONS false")
	if err == nil {
		_, err = conn.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", name)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("close the template database to connections: %w", err), h.dropDatabase(ctx, name))
	}
	h.template = name
	return nil
}

// AdminURL is the URL the harness administers the server with (its role may CREATE DATABASE).
func (h *Harness) AdminURL() string { return h.adminURL }

// Source says where the server comes from.
func (h *Harness) Source() Source { return h.source }

// NewDatabase creates a database for t, a copy of the template when there
// is one, and returns its connection URL. The database is dropped when t
// ends, closing any connection still open to it. A failure fails t.
func (h *Harness) NewDatabase(t testing.TB) string {
	t.Helper()
	name := h.newName(t.Name())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := h.createDatabase(ctx, name, h.template); err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if err := h.dropDatabase(ctx, name); err != nil {
			t.Errorf("pgtest: %v", err)
		}
	})
	u, err := dbURL(h.adminURL, name)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	return u
}

// NewPool is a pool on a new database for t (NewDatabase), closed when t
// ends. A failure fails t.
func (h *Harness) NewPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), h.NewDatabase(t))
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// Close drops the template and stops the server when the harness started it.
func (h *Harness) Close(ctx context.Context) error {
	var errs []error
	if h.template != "template0" {
		errs = append(errs, h.dropDatabase(ctx, h.template))
	}
	if h.closeServer != nil {
		if err := h.closeServer(ctx); err != nil {
			errs = append(errs, fmt.Errorf("stop the test server (%s): %w", h.source, err))
		}
	}
	return errors.Join(errs...)
}

// newName makes a database name unique on the server and readable in
// pg_database: prefix, a counter, and as much of the test name as fits.
func (h *Harness) newName(testName string) string {
	const maxIdent = 63 // PostgreSQL's NAMEDATALEN - 1
	name := h.prefix + strconv.FormatInt(h.counter.Add(1), 10) + "_"
	var b strings.Builder
	for _, r := range strings.ToLower(testName) {
		if b.Len()+len(name) >= maxIdent {
			break
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else if s := b.String(); len(s) > 0 && s[len(s)-1] != '_' {
			b.WriteByte('_')
		}
	}
	return strings.TrimRight(name+b.String(), "_")
}

func (h *Harness) connect(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, h.adminURL)
	if err != nil {
		return nil, fmt.Errorf("connect to the test server (%s): %w", h.source, err)
	}
	return conn, nil
}

// createDatabase uses a connection of its own, so that tests create their
// databases in parallel.
func (h *Harness) createDatabase(ctx context.Context, name, template string) error {
	conn, err := h.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	q := "CREATE DATABASE " + pgx.Identifier{name}.Sanitize() + " TEMPLATE " + pgx.Identifier{template}.Sanitize()
	if _, err := conn.Exec(ctx, q); err != nil {
		return fmt.Errorf("create test database %s: %w", name, err)
	}
	return nil
}

// dropDatabase drops name, ending sessions a test left open (PostgreSQL 13+).
func (h *Harness) dropDatabase(ctx context.Context, name string) error {
	conn, err := h.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop test database %s: %w", name, err)
	}
	return nil
}

// dbURL is admin with its database replaced by name. It accepts both URL
// (postgres://...) and keyword/value ("host=... dbname=...") forms.
func dbURL(admin, name string) (string, error) {
	if strings.HasPrefix(admin, "postgres://") || strings.HasPrefix(admin, "postgresql://") {
		u, err := url.Parse(admin)
		if err != nil {
			// Not err itself: it quotes the URL, password included.
			var urlErr *url.Error
			if errors.As(err, &urlErr) {
				err = urlErr.Err
			}
			return "", fmt.Errorf("the admin URL does not parse: %w", err)
		}
		u.Path, u.RawPath = "/"+name, ""
		return u.String(), nil
	}
	if _, err := pgx.ParseConfig(admin); err != nil {
		return "", fmt.Errorf("parse the admin connection string: %w", err)
	}
	// A later keyword wins; names are made of [a-z0-9_], so no quoting is needed.
	return admin + " dbname=" + name, nil
}
