package pgtest

import (
	"context"
	"net"
	"os"
	"sync"
	"testing"

	"github.com/azuld/azuld/internal/pgcluster"
	"github.com/azuld/azuld/migrations"
)

// PrivateCluster is a durable PostgreSQL cluster of one test's own, for
// the tests that stop, kill, restart or reconfigure their database: doing
// that to the harness's shared cluster would break every other test.
type PrivateCluster struct {
	// URL connects as the owner to the migrated database "azul". It stays
	// valid across Restart: the cluster comes back on the same port.
	URL string
	// DataDir is the cluster's data folder (postmaster.pid is there).
	DataDir string

	opts    pgcluster.Options
	mu      sync.Mutex
	cluster *pgcluster.Cluster
}

// StartPrivateCluster starts a durable cluster (fsync on: a commit
// answered is a commit kept) on a free port, with the binaries the harness
// uses, migrates its database "azul", and stops and removes it when t
// ends.
func StartPrivateCluster(t testing.TB) *PrivateCluster {
	t.Helper()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "azul-private-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	p := &PrivateCluster{
		DataDir: dir,
		opts:    pgcluster.Options{DataDir: dir, Port: port, Database: "azul", BinDir: os.Getenv(EnvBinDir)},
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	// Registered after RemoveAll's cleanup, so it runs before it.
	t.Cleanup(func() { _ = p.Stop(context.Background()) })
	p.URL = p.current().URL("azul")
	if err := migrations.Up(ctx, p.URL); err != nil {
		t.Fatal(err)
	}
	return p
}

// Stop stops the cluster (a fast shutdown); Restart brings it back.
func (p *PrivateCluster) Stop(ctx context.Context) error {
	c := p.current()
	if c == nil {
		return nil
	}
	return c.Stop(ctx)
}

// Restart starts the cluster again on the same data and port, after Stop
// or after its postmaster was killed.
func (p *PrivateCluster) Restart(ctx context.Context) error {
	c, err := pgcluster.Start(ctx, p.opts)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.cluster = c
	p.mu.Unlock()
	return nil
}

func (p *PrivateCluster) current() *pgcluster.Cluster {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cluster
}
