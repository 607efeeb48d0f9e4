// Package pgcluster runs a private PostgreSQL cluster from the PostgreSQL
// server binaries installed on the machine, or from binaries a caller
// fetches when none are (Options.FetchBinaries).
//
// It backs azuld's embedded default (no database configured: a cluster under
// a data folder, started and stopped with the server) and the throw-away
// clusters of tests. The cluster listens on 127.0.0.1 only, on a port of its
// own, plus a unix socket inside the data dir. Its superuser "postgres" has a
// generated password, kept in the data dir (file azuld.password) and checked
// with SCRAM, so other local users cannot connect.
//
// The server runs as a child process: when the process that started it dies
// without stopping it, the kernel asks it for a fast shutdown (Linux), and
// the next Start on the same data dir reuses the data.
package pgcluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Superuser is the role the cluster is created with; URL connects as it.
const Superuser = "postgres"

// PasswordFile is the file, inside the data dir, that holds the superuser's password.
const PasswordFile = "azuld.password"

// Files and folders the cluster keeps inside its data dir, next to PostgreSQL's own.
const (
	socketDirName = "socket"
	logDirName    = "log"
	logFileName   = "postgresql.log"
	// A log larger than this is moved aside (to .1) at the next start, which
	// bounds the log of a long-lived cluster to about twice this size.
	maxLogSize = 16 << 20
)

// defaultStartTimeout bounds the wait for a started server to accept
// connections; crash recovery after an unclean stop counts in it.
const defaultStartTimeout = 2 * time.Minute

// Options configure Start.
type Options struct {
	// DataDir is the cluster's data directory (required). It is created
	// and initialised with initdb when it is not a cluster yet; a cluster
	// already there is reused with its data.
	DataDir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one at every start.
	Port int
	// BinDir holds initdb, pg_ctl and postgres; empty searches for them (see FindBinDir).
	BinDir string
	// Database, when set, is created at start if it does not exist.
	Database string
	// Logger receives the cluster's lifecycle (initdb, start, stop); nil logs nothing.
	// The server's own log goes to LogFile.
	Logger *slog.Logger
	// Ephemeral trades durability for speed, for throw-away test clusters
	// only: no fsync (initdb and server), synchronous_commit and
	// full_page_writes off, small shared memory. A crash of the machine can
	// corrupt such a cluster.
	Ephemeral bool
	// OSUser is the account the server runs as when the caller is root
	// (PostgreSQL refuses root); empty means DefaultOSUser. Ignored when not root.
	OSUser string
	// StartTimeout bounds the wait for the server to accept connections; 0 means 2 minutes.
	StartTimeout time.Duration

	// FetchBinaries, when set, is the last resort when BinDir is empty and
	// no installed PostgreSQL is found: it returns a bin dir, typically
	// downloading the binaries once into a cache (see package pgfetch).
	FetchBinaries func(ctx context.Context) (binDir string, err error)

	// finder replaces the search of installed binaries (tests).
	finder *binFinder
	// busyPatience is how long Start waits for another server on the data
	// dir to go away; 0 means 5 seconds. Tests shorten it.
	busyPatience time.Duration
}

// Cluster is a running private PostgreSQL server. Its methods are safe for concurrent use.
type Cluster struct {
	dataDir  string
	binDir   string
	port     int
	password string
	logFile  string
	log      *slog.Logger
	run      runner

	proc   *os.Process
	exited chan struct{} // closed when the server process has exited
	// waitErr is the server's exit status; written once before exited is closed.
	waitErr error

	stopMu  sync.Mutex
	stopped bool
	stopErr error
}

// Start makes sure opts.DataDir holds a cluster (running initdb if needed),
// starts the server, waits until it accepts connections and creates
// opts.Database if missing. The caller must Stop (or Remove) the cluster.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("start PostgreSQL cluster: no data dir given")
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return nil, fmt.Errorf("start PostgreSQL cluster: port %d is outside 0..65535", opts.Port)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	binDir, err := findOrFetchBinDir(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL cluster: %w", err)
	}
	run, err := newRunner(opts.OSUser)
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL cluster: %w", err)
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("start PostgreSQL cluster: data dir %q: %w", opts.DataDir, err)
	}
	c := &Cluster{
		dataDir: dataDir,
		binDir:  binDir,
		logFile: filepath.Join(dataDir, logDirName, logFileName),
		log:     logger,
		run:     run,
		exited:  make(chan struct{}),
	}

	initialized, err := c.prepareDataDir()
	if err != nil {
		return nil, err
	}
	if initialized {
		if err := c.checkVersion(ctx); err != nil {
			return nil, err
		}
	} else {
		if err := c.initdb(ctx, opts.Ephemeral); err != nil {
			return nil, err
		}
	}
	if c.password, err = c.readPassword(); err != nil {
		return nil, err
	}
	if err := c.checkNotRunning(ctx, opts.busyPatience); err != nil {
		return nil, err
	}
	if err := c.prepareRunDirs(); err != nil {
		return nil, err
	}

	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = defaultStartTimeout
	}
	startCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := c.startServer(startCtx, opts.Port, opts.Ephemeral); err != nil {
		return nil, err
	}
	if opts.Database != "" {
		if err := c.createDatabase(startCtx, opts.Database); err != nil {
			stopCtx, cancelStop := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancelStop()
			return nil, errors.Join(err, c.Stop(stopCtx))
		}
	}
	return c, nil
}

// URL is a connection URL for database dbname as the superuser, over TCP on 127.0.0.1.
func (c *Cluster) URL(dbname string) string {
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User(Superuser),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + dbname,
		RawQuery: "sslmode=disable",
	}
	if c.password != "" {
		u.User = url.UserPassword(Superuser, c.password)
	}
	return u.String()
}

// Port is the TCP port the server listens on.
func (c *Cluster) Port() int { return c.port }

// DataDir is the absolute path of the cluster's data directory.
func (c *Cluster) DataDir() string { return c.dataDir }

// LogFile is the server's own log (startup, errors, shutdown).
func (c *Cluster) LogFile() string { return c.logFile }

// Stop shuts the server down the way `pg_ctl stop -m fast` does (SIGINT:
// open transactions are rolled back, clients disconnected, a checkpoint
// written) and waits for it to exit. When ctx ends first, the server is
// told to quit immediately (crash recovery at the next start) and the
// context's error is returned. Stopping twice returns the first result.
func (c *Cluster) Stop(ctx context.Context) error {
	c.stopMu.Lock()
	defer c.stopMu.Unlock()
	if !c.stopped {
		c.stopped = true
		c.stopErr = c.stop(ctx)
	}
	return c.stopErr
}

func (c *Cluster) stop(ctx context.Context) error {
	select {
	case <-c.exited:
		return fmt.Errorf("stop PostgreSQL in %s: the server had already exited (%v); its log: %s",
			c.dataDir, c.waitErr, c.logTail(0))
	default:
	}
	if err := c.proc.Signal(syscall.SIGINT); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("stop PostgreSQL in %s: signal the server: %w", c.dataDir, err)
	}
	select {
	case <-c.exited:
		if c.waitErr != nil {
			return fmt.Errorf("stop PostgreSQL in %s: server exited with %v; its log: %s",
				c.dataDir, c.waitErr, c.logTail(0))
		}
		c.log.Info("postgres stopped", "data_dir", c.dataDir)
		return nil
	case <-ctx.Done():
		c.kill()
		return fmt.Errorf("stop PostgreSQL in %s: %w (forced an immediate shutdown)", c.dataDir, ctx.Err())
	}
}

// kill asks for an immediate shutdown (SIGQUIT), then kills the postmaster
// if it has not exited after a few seconds, and waits for it.
func (c *Cluster) kill() {
	_ = c.proc.Signal(syscall.SIGQUIT)
	select {
	case <-c.exited:
	case <-time.After(5 * time.Second):
		_ = c.proc.Kill()
		<-c.exited
	}
}

// Remove stops the server and deletes the data directory: the end of a
// throw-away cluster. The data dir is deleted even when the stop fails.
func (c *Cluster) Remove(ctx context.Context) error {
	stopErr := c.Stop(ctx)
	if err := os.RemoveAll(c.dataDir); err != nil {
		return errors.Join(stopErr, fmt.Errorf("remove PostgreSQL data dir: %w", err))
	}
	return stopErr
}

// prepareDataDir creates the data dir if needed and reports whether it
// already holds a cluster. A non-empty directory that is not a cluster is
// refused rather than mixed with one.
func (c *Cluster) prepareDataDir() (initialized bool, err error) {
	// Parents are created traversable, or the server's account could not reach the data dir.
	if err := os.MkdirAll(filepath.Dir(c.dataDir), 0o755); err != nil {
		return false, fmt.Errorf("create parent of data dir %s: %w", c.dataDir, err)
	}
	if err := os.Mkdir(c.dataDir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return false, fmt.Errorf("create data dir %s: %w", c.dataDir, err)
	}
	if err := c.run.checkReachable(c.dataDir); err != nil {
		return false, err
	}
	info, err := os.Stat(c.dataDir)
	if err != nil {
		return false, fmt.Errorf("data dir %s: %w", c.dataDir, err)
	}
	if !info.IsDir() {
		return false, fmt.Errorf("data dir %s is not a directory", c.dataDir)
	}
	if _, err := os.Stat(filepath.Join(c.dataDir, "PG_VERSION")); err == nil {
		return true, nil
	}
	entries, err := os.ReadDir(c.dataDir)
	if err != nil {
		return false, fmt.Errorf("read data dir %s: %w", c.dataDir, err)
	}
	if len(entries) > 0 {
		return false, fmt.Errorf("data dir %s is neither empty nor a PostgreSQL cluster (no PG_VERSION); "+
			"choose an empty or new directory", c.dataDir)
	}
	// initdb wants the directory to itself, owned by the account it runs as.
	if err := c.run.own(c.dataDir); err != nil {
		return false, err
	}
	return false, nil
}

// initdb creates the cluster with a generated superuser password, stored
// in the data dir once initdb succeeded.
func (c *Cluster) initdb(ctx context.Context, ephemeral bool) error {
	password, err := newPassword()
	if err != nil {
		return err
	}
	// initdb reads the password from a file; it lives outside the data dir
	// (initdb wants that empty), readable by the server's account only.
	tmp, err := os.MkdirTemp("", "azuld-initdb-")
	if err != nil {
		return fmt.Errorf("initdb: temp dir for the password: %w", err)
	}
	defer os.RemoveAll(tmp)
	pwfile := filepath.Join(tmp, "pw")
	if err := os.WriteFile(pwfile, []byte(password+"\n"), 0o600); err != nil {
		return fmt.Errorf("initdb: write password file: %w", err)
	}
	if err := errors.Join(c.run.own(tmp), c.run.own(pwfile)); err != nil {
		return fmt.Errorf("initdb: %w", err)
	}

	args := []string{
		"--pgdata=" + c.dataDir,
		"--username=" + Superuser,
		"--pwfile=" + pwfile,
		"--auth=scram-sha-256",
		"--encoding=UTF8",
		"--no-locale", // C collation: identical ordering on every machine, and a faster initdb
		"--no-instructions",
	}
	if ephemeral {
		args = append(args, "--no-sync")
	}
	c.log.Info("postgres initdb", "data_dir", c.dataDir, "bin_dir", c.binDir)
	cmd := c.run.command(ctx, filepath.Join(c.binDir, "initdb"), args...)
	out, err := cmd.CombinedOutput()
	// When ctx ends just as initdb finishes, Wait reports ctx's error for
	// a run that succeeded; the cluster is complete then and needs its password.
	if err != nil && (cmd.ProcessState == nil || !cmd.ProcessState.Success()) {
		return fmt.Errorf("initdb %s: %w: %s", c.dataDir, err, lastLines(string(out), 20))
	}

	path := filepath.Join(c.dataDir, PasswordFile)
	if err := os.WriteFile(path, []byte(password+"\n"), 0o600); err != nil {
		return fmt.Errorf("store the cluster password: %w", err)
	}
	return c.run.own(path)
}

// checkVersion compares the major version that created the data dir with
// the binaries': a mismatch (say, a new PostgreSQL installed next to the
// old one and found first) would otherwise surface as a server that exits
// at start with "database files are incompatible with server".
func (c *Cluster) checkVersion(ctx context.Context) error {
	b, err := os.ReadFile(filepath.Join(c.dataDir, "PG_VERSION"))
	if err != nil {
		return fmt.Errorf("read the data dir's version: %w", err)
	}
	dataVersion := strings.TrimSpace(string(b))
	out, err := exec.CommandContext(ctx, filepath.Join(c.binDir, "postgres"), "--version").Output()
	if err != nil {
		return fmt.Errorf("postgres --version in %s: %w", c.binDir, err)
	}
	binVersion, ok := majorVersion(string(out))
	if !ok || binVersion == dataVersion {
		return nil // an unexpected banner is left for the server itself to judge
	}
	hint := "point AZUL_PG_BIN at PostgreSQL " + dataVersion + "'s bin dir"
	if dir := filepath.Join("/usr/lib/postgresql", dataVersion, "bin"); len(missingBinaries(dir)) == 0 {
		hint = "set AZUL_PG_BIN=" + dir
	}
	return fmt.Errorf("data dir %s was created by PostgreSQL %s but the binaries in %s are PostgreSQL %s: "+
		"%s, or upgrade the data with pg_upgrade", c.dataDir, dataVersion, c.binDir, binVersion, hint)
}

// majorVersion reads the major version from "postgres (PostgreSQL) 15.18 (Debian ...)"
// ("15"), or from a pre-10 banner like "... 9.6.24" ("9.6"), as PG_VERSION writes it.
func majorVersion(banner string) (string, bool) {
	_, rest, ok := strings.Cut(banner, "(PostgreSQL) ")
	if !ok {
		return "", false
	}
	version, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	parts := strings.Split(version, ".")
	if _, err := strconv.Atoi(parts[0]); err != nil {
		return "", false
	}
	if n, _ := strconv.Atoi(parts[0]); n < 10 && len(parts) > 1 {
		return parts[0] + "." + parts[1], true
	}
	return parts[0], true
}

// newPassword is 32 random hex digits: URL-safe, and plenty against guessing.
func newPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate cluster password: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// readPassword returns the stored password, or "" for a cluster created
// without one (its own pg_hba.conf decides then).
func (c *Cluster) readPassword() (string, error) {
	b, err := os.ReadFile(filepath.Join(c.dataDir, PasswordFile))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the cluster password: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// checkNotRunning refuses a data dir that a live server already uses (most
// likely another azuld): starting a second one would fail anyway, and
// stopping the other would pull the database from under its owner. A stale
// postmaster.pid left by a crash is no obstacle: pg_ctl and postgres both
// see that its process is gone. A server that is still shutting down (its
// parent just died) is given a few seconds.
func (c *Cluster) checkNotRunning(ctx context.Context, patience time.Duration) error {
	if patience <= 0 {
		patience = 5 * time.Second
	}
	deadline := time.Now().Add(patience)
	for {
		running, status, err := c.pgCtlStatus(ctx)
		if err != nil || !running {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("data dir %s is in use by a running PostgreSQL server (%s); "+
				"is another azuld using it? If not, stop that server with: pg_ctl stop -D %s",
				c.dataDir, status, c.dataDir)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the previous PostgreSQL server in %s to stop: %w", c.dataDir, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// pgCtlStatus runs `pg_ctl status`: exit 0 means a server runs, 3 that none does.
func (c *Cluster) pgCtlStatus(ctx context.Context) (running bool, status string, err error) {
	cmd := c.run.command(ctx, filepath.Join(c.binDir, "pg_ctl"), "status", "--pgdata="+c.dataDir)
	out, err := cmd.CombinedOutput()
	status = strings.TrimSpace(string(out))
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, firstLine(status), nil
	case errors.As(err, &exit) && exit.ExitCode() == 3:
		return false, status, nil
	default:
		return false, status, fmt.Errorf("pg_ctl status %s: %w: %s", c.dataDir, err, status)
	}
}

// prepareRunDirs creates the socket and log folders and moves an oversized log aside.
func (c *Cluster) prepareRunDirs() error {
	for _, dir := range []string{filepath.Join(c.dataDir, socketDirName), filepath.Dir(c.logFile)} {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return fmt.Errorf("create %s: %w", dir, err)
		}
		if err := c.run.own(dir); err != nil {
			return err
		}
	}
	if info, err := os.Stat(c.logFile); err == nil && info.Size() > maxLogSize {
		if err := os.Rename(c.logFile, c.logFile+".1"); err != nil {
			return fmt.Errorf("rotate the server log: %w", err)
		}
	}
	return nil
}

// startServer launches postgres and waits until it is ready. With port 0
// a free port is picked; another process may take it before the server
// binds it, so that case is retried with a new port. After a crash, the dead
// server's backends may hold its shared memory for a moment and the new
// server refuses to start; that case is retried after a short wait.
func (c *Cluster) startServer(ctx context.Context, port int, ephemeral bool) error {
	const (
		portAttempts = 5
		shmemWait    = 200 * time.Millisecond
		shmemTries   = 50 // 10 s: backends leave as soon as they notice their server died
	)
	for attempt := 1; ; attempt++ {
		p := port
		if p == 0 {
			var err error
			if p, err = freePort(); err != nil {
				return err
			}
		}
		err := c.startOnce(ctx, p, ephemeral)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, errPortTaken) && port == 0 && attempt < portAttempts:
			c.log.Debug("postgres port taken, retrying", "port", p)
		case errors.Is(err, errOldServerAlive) && attempt < shmemTries:
			c.log.Debug("postgres: the crashed server's processes are still leaving, retrying")
			select {
			case <-ctx.Done():
				return err
			case <-time.After(shmemWait):
			}
		default:
			return err
		}
		c.exited = make(chan struct{})
	}
}

// Reasons for a failed start that are worth another try.
var (
	errPortTaken      = errors.New("port in use")
	errOldServerAlive = errors.New("processes of a crashed server still hold its shared memory")
)

func (c *Cluster) startOnce(ctx context.Context, port int, ephemeral bool) error {
	logf, err := os.OpenFile(c.logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open the server log: %w", err)
	}
	defer logf.Close() // the server holds its own copy of the descriptor
	if err := c.run.own(c.logFile); err != nil {
		return err
	}
	logStart, err := logf.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("open the server log: %w", err)
	}

	// Not exec.CommandContext: the server outlives the start's context.
	cmd := exec.Command(filepath.Join(c.binDir, "postgres"), c.serverArgs(port, ephemeral)...)
	c.run.prepare(cmd)
	cmd.Stdout, cmd.Stderr = logf, logf
	// Its own process group keeps a terminal's Ctrl-C away from the server,
	// so that its owner decides when to stop it.
	cmd.SysProcAttr.Setpgid = true
	setParentDeathSignal(cmd.SysProcAttr, syscall.SIGINT)
	if err := startUnlocked(cmd); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	c.proc = cmd.Process
	c.port = port
	exited := c.exited
	go func() {
		c.waitErr = cmd.Wait()
		close(exited)
	}()

	if err := c.waitReady(ctx, cmd.Process.Pid, logStart); err != nil {
		return err
	}
	c.log.Info("postgres started", "port", port, "data_dir", c.dataDir, "log", c.logFile)
	return nil
}

// serverArgs are the server's settings; on the command line they override
// postgresql.conf, so a reused data dir always runs with the current ones.
func (c *Cluster) serverArgs(port int, ephemeral bool) []string {
	args := []string{
		"-D", c.dataDir,
		"-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "unix_socket_directories=" + c.socketDir(port),
		"-c", "unix_socket_permissions=0700",
		"-c", "logging_collector=off",
	}
	if ephemeral {
		args = append(args,
			"-c", "fsync=off",
			"-c", "synchronous_commit=off",
			"-c", "full_page_writes=off",
			"-c", "shared_buffers=16MB",
			"-c", "max_connections=150",
		)
	}
	return args
}

// socketDir is the unix socket folder, or "" (no socket) when its path is
// too long for a socket address (108 bytes on Linux, including ".s.PGSQL.<port>").
func (c *Cluster) socketDir(port int) string {
	dir := filepath.Join(c.dataDir, socketDirName)
	if len(dir)+len("/.s.PGSQL.")+len(strconv.Itoa(port)) >= 104 {
		c.log.Warn("postgres data dir path too long for a unix socket; listening on TCP only", "data_dir", c.dataDir)
		return ""
	}
	return dir
}

// waitReady polls postmaster.pid until the server reports itself ready, the
// process exits, or ctx ends. Reading the file (not connecting) makes sure
// the server answering is ours and not one that happens to own the port.
func (c *Cluster) waitReady(ctx context.Context, pid int, logStart int64) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-c.exited:
			tail := c.logTail(logStart)
			switch {
			case strings.Contains(tail, "could not bind") || strings.Contains(tail, "could not create any TCP/IP sockets"):
				return fmt.Errorf("start postgres on port %d: %w: %s", c.port, errPortTaken, tail)
			case strings.Contains(tail, "pre-existing shared memory block"):
				return fmt.Errorf("start postgres in %s: %w: %s", c.dataDir, errOldServerAlive, tail)
			}
			return fmt.Errorf("postgres in %s exited during start-up (%v); its log: %s", c.dataDir, c.waitErr, tail)
		case <-ctx.Done():
			c.kill()
			return fmt.Errorf("wait for postgres in %s to accept connections: %w; its log: %s",
				c.dataDir, ctx.Err(), c.logTail(logStart))
		case <-tick.C:
			if pidFileReady(filepath.Join(c.dataDir, "postmaster.pid"), pid) {
				return nil
			}
		}
	}
}

// pidFileReady reports whether postmaster.pid belongs to pid and says
// "ready". Its lines (PostgreSQL 10+): pid, data dir, start time, port,
// socket dir, listen address, shared memory key, status.
func pidFileReady(path string, pid int) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 8 {
		return false
	}
	got, err := strconv.Atoi(strings.TrimSpace(lines[0]))
	return err == nil && got == pid && strings.TrimSpace(lines[7]) == "ready"
}

// createDatabase creates dbname unless it exists.
func (c *Cluster) createDatabase(ctx context.Context, dbname string) error {
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("connect to the new PostgreSQL cluster: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", dbname).Scan(&exists); err != nil {
		return fmt.Errorf("look for database %q: %w", dbname, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{dbname}.Sanitize())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database: created meanwhile
		return nil
	}
	if err != nil {
		return fmt.Errorf("create database %q: %w", dbname, err)
	}
	c.log.Info("postgres database created", "database", dbname)
	return nil
}

// freePort asks the kernel for a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startUnlocked starts cmd from a fresh goroutine. Linux sends the parent
// death signal when the thread that started the child exits; a fresh
// goroutine is never locked to a thread that will exit, whatever the caller's is.
func startUnlocked(cmd *exec.Cmd) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Start() }()
	return <-done
}

// logTail is the end of the server log from offset start, for error messages.
func (c *Cluster) logTail(start int64) string {
	f, err := os.Open(c.logFile)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	const maxTail = 4 << 10
	if info, err := f.Stat(); err == nil && info.Size()-start > maxTail {
		start = info.Size() - maxTail
	}
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return "(log unreadable: " + err.Error() + ")"
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "(log unreadable: " + err.Error() + ")"
	}
	return lastLines(string(b), 20)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
