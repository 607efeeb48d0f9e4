package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// backupSet is a backup as `pgbackrest info --output=json` describes it.
type backupSet struct {
	Label     string `json:"label"`
	Type      string `json:"type"` // full, diff, incr
	Timestamp struct {
		Start int64 `json:"start"`
		Stop  int64 `json:"stop"`
	} `json:"timestamp"`
	Info struct {
		Size       int64 `json:"size"`  // the database's size
		Delta      int64 `json:"delta"` // what this backup copied
		Repository struct {
			Size  int64 `json:"size"`  // in the repository, compressed
			Delta int64 `json:"delta"` // this backup's part of it
		} `json:"repository"`
	} `json:"info"`
}

// String is the backup's line in a test log.
func (b backupSet) String() string {
	return fmt.Sprintf("%s backup %s: %.1f MB of database, %.1f MB copied, %.1f MB stored (lz4), %ds by its timestamps",
		b.Type, b.Label, mb(b.Info.Size), mb(b.Info.Delta), mb(b.Info.Repository.Delta), b.Timestamp.Stop-b.Timestamp.Start)
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// pgbackrest runs pgBackRest on a node, as the postgres user (peer
// authentication on PostgreSQL's socket).
func (s *stack) pgbackrest(ctx context.Context, node string, args ...string) (string, error) {
	return docker(ctx, append([]string{"exec", "-u", "postgres", s.container(node), "pgbackrest", "--stanza=azuld"}, args...)...)
}

// backups lists the repository's backups, oldest first.
func (s *stack) backups(ctx context.Context, node string) ([]backupSet, error) {
	out, err := s.pgbackrest(ctx, node, "--output=json", "info")
	if err != nil {
		return nil, err
	}
	var stanzas []struct {
		Name   string      `json:"name"`
		Backup []backupSet `json:"backup"`
	}
	if err := json.Unmarshal([]byte(out), &stanzas); err != nil {
		return nil, fmt.Errorf("pgbackrest info: %w: %s", err, out)
	}
	for _, st := range stanzas {
		if st.Name == "azuld" {
			return st.Backup, nil
		}
	}
	return nil, fmt.Errorf("pgbackrest info has no stanza azuld: %s", out)
}

// waitBackups waits until the repository's backups are as ok wants, and
// returns them.
func (s *stack) waitBackups(ctx context.Context, node string, within time.Duration, ok func([]backupSet) bool) ([]backupSet, error) {
	deadline := time.Now().Add(within)
	for {
		bs, err := s.backups(ctx, node)
		if err == nil && ok(bs) {
			return bs, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, fmt.Errorf("the backups are not there within %s (%d: %v, %v)", within, len(bs), bs, err)
		}
		time.Sleep(time.Second)
	}
}

// destroyCluster removes what a disaster takes: every PostgreSQL node,
// killed, with its volume, and the cluster's keys in etcd (its leader,
// its configuration, its system identifier). The backup repository's
// volume stays.
func (s *stack) destroyCluster(ctx context.Context) error {
	if out, err := s.compose(ctx, append([]string{"kill"}, haNodes...)...); err != nil {
		return fmt.Errorf("killing the nodes: %w: %s", err, out)
	}
	if out, err := s.compose(ctx, append([]string{"rm", "--force"}, haNodes...)...); err != nil {
		return fmt.Errorf("removing the nodes: %w: %s", err, out)
	}
	for _, node := range haNodes {
		if _, err := docker(ctx, "volume", "rm", s.project+"_"+node); err != nil {
			return fmt.Errorf("removing %s's data: %w", node, err)
		}
	}
	if _, err := docker(ctx, "exec", s.container("etcd1"), "etcdctl", "del", "--prefix", "/service/azuld/"); err != nil {
		return fmt.Errorf("removing the cluster from etcd: %w", err)
	}
	return nil
}

// restoreCluster starts the three nodes with AZUL_RESTORE_TARGET set to
// target, so that the one that wins the bootstrap makes the cluster from
// the backups, and waits until it leads with every standby streaming.
func (s *stack) restoreCluster(ctx context.Context, target string, within time.Duration) (string, error) {
	env := s.env
	s.env = append(slices.Clone(env), "AZUL_RESTORE_TARGET="+target)
	defer func() { s.env = env }()
	args := append([]string{"up", "--detach", "--wait", "--wait-timeout", fmt.Sprint(int(within.Seconds())), "--no-build", "--pull", "never"}, haNodes...)
	if out, err := s.compose(ctx, args...); err != nil {
		return "", fmt.Errorf("restoring to %s: %w: %s", target, err, out)
	}
	leader, err := s.waitPrimary(ctx, "", within)
	if err != nil {
		return "", err
	}
	return leader, s.waitStandbys(ctx, within)
}

// waitStandbys waits until every node runs: a leader and two standbys.
func (s *stack) waitStandbys(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		ms, err := s.members(ctx)
		running := 0
		for _, m := range ms {
			if m.State == "running" || m.State == "streaming" {
				running++
			}
		}
		if err == nil && running == len(haNodes) {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("not every node runs within %s: %+v %v", within, ms, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// leaderLog is the part of a node's container log about backups,
// restores and the bootstrap, for a failing test.
func (s *stack) leaderLog(ctx context.Context, node string) string {
	out, _ := docker(ctx, "logs", "--tail", "200", s.container(node))
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "backup-schedule") || strings.Contains(l, "restore") || strings.Contains(l, "bootstrap") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
