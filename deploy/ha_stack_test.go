package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// haNodes are the PostgreSQL nodes of docker-compose.ha.yml, run by
// Patroni.
var haNodes = []string{"pg1", "pg2", "pg3"}

// oneHAStack lets one HA stack run at a time: its three Patroni nodes
// and three etcd members run beside the single-node stacks of the other
// compose tests, but two HA stacks at once on a two-core machine slow
// each other's failovers and restores down more than they gain.
var oneHAStack sync.Mutex

// newHAStack prepares a project of docker-compose.ha.yml on top of the
// base file, with the replicas file too when replicas is set. It waits
// for any other HA stack of the run to be down first.
func newHAStack(t *testing.T, replicas bool) *stack {
	t.Helper()
	oneHAStack.Lock()
	// Registered before the stack's own clean-up (down -v), so run after it.
	t.Cleanup(oneHAStack.Unlock)
	files := []string{"docker-compose.yml"}
	if replicas {
		files = append(files, "docker-compose.replicas.yml")
	}
	return newStack(t, append(files, "docker-compose.ha.yml")...)
}

// container is the name of a service's (first) container.
func (s *stack) container(service string) string {
	return s.project + "-" + service + "-1"
}

// patronictl runs patronictl in the first node whose container answers,
// with the nodes' own configuration (and REST API password).
func (s *stack) patronictl(ctx context.Context, args ...string) (string, error) {
	var last error
	for _, node := range haNodes {
		out, err := docker(ctx, append([]string{"exec", s.container(node), "patronictl", "-c", "/etc/patroni/patroni.yml"}, args...)...)
		if err == nil {
			return out, nil
		}
		last = err
	}
	return "", last
}

// member is a node as `patronictl list -f json` describes it.
type member struct {
	Name  string `json:"Member"`
	Role  string `json:"Role"`  // Leader, Sync Standby, Replica
	State string `json:"State"` // running, stopped, ... (streaming after 3.0)
	TL    int    `json:"TL"`
}

// members lists the cluster's nodes as Patroni sees them.
func (s *stack) members(ctx context.Context) ([]member, error) {
	out, err := s.patronictl(ctx, "list", "-f", "json")
	if err != nil {
		return nil, err
	}
	var ms []member
	if err := json.Unmarshal([]byte(out), &ms); err != nil {
		return nil, fmt.Errorf("patronictl list: %w: %s", err, out)
	}
	return ms, nil
}

// waitPrimary waits until a node other than not leads and a synchronous
// standby streams from it, and returns the leader.
func (s *stack) waitPrimary(ctx context.Context, not string, within time.Duration) (string, error) {
	deadline := time.Now().Add(within)
	var last string
	for {
		ms, err := s.members(ctx)
		if err == nil {
			leader, sync := "", false
			for _, m := range ms {
				switch {
				case m.Role == "Leader" && m.State == "running" && m.Name != not:
					leader = m.Name
				case m.Role == "Sync Standby" && (m.State == "streaming" || m.State == "running"):
					// Patroni 3.0 says running; later versions streaming.
					sync = true
				}
			}
			if leader != "" && sync {
				return leader, nil
			}
			last = fmt.Sprintf("%+v", ms)
		} else {
			last = err.Error()
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return "", fmt.Errorf("no primary other than %q with a synchronous standby within %s: %s", not, within, strings.TrimSpace(last))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// haEtcd are the etcd members of docker-compose.ha.yml.
var haEtcd = []string{"etcd1", "etcd2", "etcd3"}

// waitHealthy waits until the whole cluster is back: every etcd member
// healthy, and the three nodes running on one timeline, a leader, a
// synchronous standby and a replica. It returns the leader and the
// synchronous standby.
func (s *stack) waitHealthy(ctx context.Context, within time.Duration) (leader, sync string, err error) {
	deadline := time.Now().Add(within)
	var last string
	for {
		leader, sync, last = s.healthy(ctx)
		if last == "" {
			return leader, sync, nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return "", "", fmt.Errorf("the cluster is not whole within %s: %s%s", within, last, s.strayLogs(ctx))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// strayLogs is the end of the log of each node that is neither running
// nor streaming (Patroni's and PostgreSQL's lines, which say why), for a
// failure's message: the whole stack's logs come later and much longer.
func (s *stack) strayLogs(ctx context.Context) string {
	ms, err := s.members(ctx)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, n := range haNodes {
		state := "not a member: its Patroni does not renew its key in etcd"
		if i := slices.IndexFunc(ms, func(m member) bool { return m.Name == n }); i >= 0 {
			state = ms[i].State
		}
		if state == "running" || state == "streaming" {
			continue
		}
		out, _ := docker(ctx, "logs", "--tail", "40", s.container(n))
		fmt.Fprintf(&b, "\nthe last lines of %s (%s):\n%s", n, state, strings.TrimSpace(out))
	}
	return b.String()
}

// healthy is one look of waitHealthy: what is missing, or "".
func (s *stack) healthy(ctx context.Context) (leader, sync, missing string) {
	for _, e := range haEtcd {
		if _, err := docker(ctx, "exec", s.container(e), "etcdctl", "--endpoints=http://127.0.0.1:2379", "endpoint", "health"); err != nil {
			return "", "", fmt.Sprintf("%s: %v", e, err)
		}
	}
	ms, err := s.members(ctx)
	if err != nil {
		return "", "", err.Error()
	}
	tl := map[int]bool{}
	replicas := 0
	for _, m := range ms {
		if m.State != "running" && m.State != "streaming" {
			return "", "", fmt.Sprintf("%+v", ms)
		}
		tl[m.TL] = true
		switch m.Role {
		case "Leader":
			leader = m.Name
		case "Sync Standby":
			sync = m.Name
		case "Replica":
			replicas++
		}
	}
	if len(ms) != len(haNodes) || leader == "" || sync == "" || replicas != 1 || len(tl) != 1 {
		return "", "", fmt.Sprintf("%+v", ms)
	}
	return leader, sync, ""
}

// etcdLeader is the etcd member that leads, as the members say
// (etcdctl endpoint status, asked in the first member that answers).
func (s *stack) etcdLeader(ctx context.Context) (string, error) {
	eps := make([]string, len(haEtcd))
	for i, e := range haEtcd {
		eps[i] = "http://" + e + ":2379"
	}
	var last error
	for _, e := range haEtcd {
		out, err := docker(ctx, "exec", s.container(e), "etcdctl", "--endpoints="+strings.Join(eps, ","), "endpoint", "status", "-w", "json")
		if err != nil {
			last = err
			continue
		}
		var st []struct {
			Endpoint string `json:"Endpoint"`
			Status   struct {
				Header struct {
					MemberID uint64 `json:"member_id"`
				} `json:"header"`
				Leader uint64 `json:"leader"`
			} `json:"Status"`
		}
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			return "", fmt.Errorf("etcdctl endpoint status: %w: %s", err, out)
		}
		for _, x := range st {
			if x.Status.Leader != 0 && x.Status.Header.MemberID == x.Status.Leader {
				host := strings.TrimPrefix(x.Endpoint, "http://")
				host, _, _ = strings.Cut(host, ":")
				return host, nil
			}
		}
		return "", fmt.Errorf("no etcd member leads: %s", out)
	}
	return "", last
}

// psql runs a query as the superuser over a node's socket (peer
// authentication) in the azuld database, and returns its unaligned rows.
func (s *stack) psql(ctx context.Context, node, query string) (string, error) {
	return docker(ctx, "exec", "-u", "postgres", s.container(node), "psql", "-X", "-d", "azuld", "-tAc", query)
}

// waitWritable waits until a node other than not is a primary that can
// commit: PostgreSQL itself says it is out of recovery with a synchronous
// standby streaming from it. Patroni's view (waitPrimary) can be stale
// right after every node restarted, and patronictl is slow while an etcd
// member is down; this asks the nodes.
func (s *stack) waitWritable(ctx context.Context, not string, within time.Duration) (string, error) {
	deadline := time.Now().Add(within)
	var last []string
	for {
		last = last[:0]
		for _, n := range haNodes {
			if n == not {
				continue
			}
			out, err := s.psql(ctx, n, "select pg_is_in_recovery(), (select count(*) from pg_stat_replication where sync_state = 'sync')")
			if err == nil && strings.TrimSpace(out) != "" && strings.HasPrefix(strings.TrimSpace(out), "f|") && strings.TrimSpace(out) != "f|0" {
				return n, nil
			}
			last = append(last, fmt.Sprintf("%s: %s %v", n, strings.TrimSpace(out), err))
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return "", fmt.Errorf("no primary with a synchronous standby other than %q within %s: %s", not, within, strings.Join(last, "; "))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// nodeState is what PostgreSQL on a node says of its role: in recovery
// or not, synchronous_standby_names, and how many standbys stream from it
// (synchronously).
func (s *stack) nodeState(ctx context.Context, node string) string {
	out, err := s.psql(ctx, node, "select case when pg_is_in_recovery() then 'standby' else 'primary' end || "+
		"' sync_names=' || quote_literal(current_setting('synchronous_standby_names')) || "+
		"' streaming=' || (select count(*) from pg_stat_replication) || "+
		"' sync=' || (select count(*) from pg_stat_replication where sync_state = 'sync')")
	if err != nil {
		return "down"
	}
	return strings.TrimSpace(out)
}
