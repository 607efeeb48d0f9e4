package pgtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/azuld/azuld/internal/pgcluster"
)

// startLocal runs a throw-away cluster from the local PostgreSQL binaries
// in a fresh temp dir. Several test binaries start one each in parallel
// under `go test ./...`, so it is made cheap: no fsync anywhere, small
// shared memory (pgcluster's Ephemeral mode).
func startLocal(ctx context.Context, opts Options, logger *slog.Logger) (*Harness, error) {
	// The temp dir is the data dir itself: pgcluster gives an empty data
	// dir to the server's OS user, whereas a folder inside a 0700 temp dir
	// would be out of that user's reach.
	parent := clusterParentDir()
	sweepStaleClusters(parent, staleAfter, logger)
	dir, err := os.MkdirTemp(parent, clusterDirPrefix)
	if err != nil {
		return nil, fmt.Errorf("temp dir for the cluster: %w", err)
	}
	cluster, err := pgcluster.Start(ctx, pgcluster.Options{
		DataDir:   dir,
		BinDir:    os.Getenv(EnvBinDir),
		Ephemeral: true,
		Logger:    logger.With("source", string(SourceLocal)),
	})
	if err != nil {
		return nil, errors.Join(err, os.RemoveAll(dir))
	}
	h, err := newHarness(ctx, SourceLocal, cluster.URL("postgres"), cluster.Remove, opts, logger)
	if err != nil {
		return nil, errors.Join(err, cluster.Remove(context.WithoutCancel(ctx)))
	}
	logger.Info("pgtest: using a throw-away local cluster", "port", cluster.Port(), "data_dir", cluster.DataDir())
	return h, nil
}

// ramDisk is where throw-away clusters go when it has room. On a disk, even
// with fsync off, initdb takes about 2.5 times as long and CREATE DATABASE
// about 15 times (measured on ext4: 250 ms against 15 ms), and every test
// creates a database. Docker gives containers a 64 MB /dev/shm, too small,
// so those fall back to the temp dir.
const (
	ramDisk        = "/dev/shm"
	ramDiskMinFree = 1 << 30
)

// clusterParentDir picks the folder for a throw-away cluster:
// AZUL_TEST_PG_TMPDIR, else the RAM disk when it has room, else the temp dir.
func clusterParentDir() string {
	if dir := os.Getenv(EnvTempDir); dir != "" {
		return dir
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(ramDisk, &st); err == nil && uint64(st.Bavail)*uint64(st.Bsize) >= ramDiskMinFree {
		if probe, err := os.MkdirTemp(ramDisk, "azul-pgtest-probe-"); err == nil {
			_ = os.Remove(probe)
			return ramDisk
		}
	}
	return os.TempDir()
}

// clusterDirPrefix names the temp dirs of throw-away clusters.
const clusterDirPrefix = "azul-pgtest-"

// staleAfter is how long a throw-away cluster's dir must have been left
// without a running server before a later test binary deletes it.
const staleAfter = 30 * time.Minute

// sweepStaleClusters deletes the dirs that killed test binaries left behind
// (Close never ran). On a RAM disk each holds tens of MB of memory until the
// next reboot. A dir counts as left behind when no server runs in it (no
// postmaster.pid: the server removes it when it stops, including the fast
// shutdown it is sent when its test binary dies) and nothing has changed in
// it for a while; a cluster being created or running never matches.
func sweepStaleClusters(parent string, olderThan time.Duration, logger *slog.Logger) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), clusterDirPrefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < olderThan {
			continue
		}
		if _, err := os.Lstat(filepath.Join(dir, "postmaster.pid")); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			logger.Warn("pgtest: could not delete a stale test cluster", "dir", dir, "err", err)
			continue
		}
		logger.Info("pgtest: deleted a test cluster left behind by an earlier run", "dir", dir)
	}
}
