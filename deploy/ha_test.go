package deploy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// haClients is how many clients play at once during a fault.
const haClients = 4

// haPatience is how long a client sends a request again while azuld has
// no primary (502, 503, 504 or no answer) before it gives up: longer than
// any failover the scenarios cause, so that a client that gives up is a
// failure of the stack, not of the test.
const haPatience = 2 * time.Minute

// haScenario is one fault of TestHAFailover.
type haScenario struct {
	name string
	// fault breaks the cluster described by f (its primary and
	// synchronous standby) and fills in the rest of f: the node that must
	// not lead afterwards, and what heals the cluster.
	fault func(ctx context.Context, t *testing.T, s *stack, f *haFault)
}

// haFault is one fault under way: the cluster it broke, and what it
// left to do and to check.
type haFault struct {
	leader, sync string // the primary and its synchronous standby before
	// not is the node that must not lead afterwards ("" when any may).
	not string
	// heal puts the broken parts back once the load has stopped.
	heal func(context.Context) error
	// lost are the events (game/version) a cut-off primary wrote that
	// its successor never had: none may have been acknowledged.
	lost []string
}

// TestHAFailover plays games from several clients on the HA stack
// (docker-compose.ha.yml) while, one after the other on the same stack,
// the primary is killed, the primary is cut off from etcd and from azuld,
// etcd's leader is killed, every database and etcd container is killed
// and started again, and the primary is switched over. After each fault:
// every move acknowledged to a client is in the game's log at its version,
// no log has a gap or a fork, every game folds and verifies, no mail went
// twice and the games played after the fault got all theirs, and writes
// resumed. The longest time without a move written is logged per fault;
// AZUL_HA_RUNS=N repeats the five faults N times and logs the median and
// the maximum, and AZUL_HA_FAULTS (names, comma-separated) causes only
// those faults, in that order.
func TestHAFailover(t *testing.T) {
	if !enabled(t) {
		return
	}
	t.Parallel()
	runs := 1
	if v := os.Getenv("AZUL_HA_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("AZUL_HA_RUNS=%q: want a count of 1 or more", v)
		}
		runs = n
	}
	s := newHAStack(t, false)
	// A load test: its clients, all from one address, play far faster
	// than people.
	s.env = append(s.env, "AZUL_RATE_LIMITS=off")
	keepAllMail(t, s)
	s.up()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(runs)*20*time.Minute)
	defer cancel()
	waitReady(t, s.http+"/readyz", time.Minute)
	c := newClient(s.http)
	c.mailpit = s.mailpit
	pairs := make([][2]player, haClients)
	for w := range pairs {
		pairs[w] = [2]player{c.register(ctx, t, fmt.Sprintf("Ana%d", w)), c.register(ctx, t, fmt.Sprintf("Ben%d", w))}
	}

	scenarios := []haScenario{
		{"kill-primary", faultKillPrimary},
		{"partition-primary", faultPartitionPrimary},
		{"kill-etcd-leader", faultKillEtcdLeader},
		{"restart-all", faultRestartAll},
		{"switchover", faultSwitchover},
	}
	if v := os.Getenv("AZUL_HA_FAULTS"); v != "" {
		var chosen []haScenario
		for _, name := range strings.Split(v, ",") {
			i := slices.IndexFunc(scenarios, func(sc haScenario) bool { return sc.name == strings.TrimSpace(name) })
			if i < 0 {
				t.Fatalf("AZUL_HA_FAULTS=%q: no fault %q (there are kill-primary, partition-primary, kill-etcd-leader, restart-all, switchover)", v, name)
			}
			chosen = append(chosen, scenarios[i])
		}
		scenarios = chosen
	}
	windows := map[string][]time.Duration{}
	for run := 1; run <= runs; run++ {
		for _, sc := range scenarios {
			name := sc.name
			if runs > 1 {
				name = fmt.Sprintf("%s/%d", sc.name, run)
			}
			// A failed fault does not stop the next: each begins by
			// waiting for the whole cluster, and fails if it is not.
			t.Run(name, func(t *testing.T) {
				w := runHAScenario(ctx, t, s, c, pairs, sc)
				windows[sc.name] = append(windows[sc.name], w)
			})
		}
	}
	logged := map[string]bool{}
	for _, sc := range scenarios {
		ws := slices.Clone(windows[sc.name])
		if len(ws) == 0 || logged[sc.name] {
			continue
		}
		logged[sc.name] = true
		slices.Sort(ws)
		t.Logf("%-18s unavailability over %d runs: median %s, max %s, all %v", sc.name, len(ws),
			ws[len(ws)/2].Round(10*time.Millisecond), ws[len(ws)-1].Round(10*time.Millisecond), ws)
	}
}

// runHAScenario brings the cluster back whole, starts the load, causes
// the fault, lets every client finish its game and play a whole one more
// once a primary with a synchronous standby is back, heals the cluster,
// checks what the clients were told against the logs and the mails, and
// returns the longest time without a move written.
func runHAScenario(ctx context.Context, t *testing.T, s *stack, c *client, pairs [][2]player, sc haScenario) time.Duration {
	leader, sync, err := s.waitHealthy(ctx, 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("primary %s, synchronous standby %s", leader, sync)
	load := startHALoad(ctx, c, pairs)
	defer load.halt()
	if err := load.waitMoves(ctx, 8*haClients); err != nil {
		t.Fatal(err)
	}
	before := load.moves.Load()
	faultAt := time.Now()
	f := &haFault{leader: leader, sync: sync}
	healed := false
	defer func() {
		// A fault that failed half way still puts the cluster back
		// together for the next one.
		if !healed && f.heal != nil {
			if err := f.heal(ctx); err != nil {
				t.Error(err)
			}
		}
	}()
	stopWatch := s.watchNodes(ctx, faultAt)
	defer stopWatch()
	sc.fault(ctx, t, s, f)
	t.Logf("fault caused in %s, after %d moves", time.Since(faultAt).Round(time.Millisecond), before)
	primary, err := s.waitWritable(ctx, f.not, 3*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	t.Logf("what PostgreSQL said on each node:\n%s", stopWatch())
	t.Logf("primary %s with a synchronous standby %s after the fault", primary, back.Sub(faultAt).Round(time.Millisecond))
	load.finish(back)
	if err := load.wait(ctx, 5*time.Minute); err != nil {
		t.Error(err)
	}
	if f.heal != nil {
		healed = true
		if err := f.heal(ctx); err != nil {
			t.Fatal(err)
		}
	}

	t.Logf("what the nodes did:\n%s", s.patroniTimeline(ctx, faultAt))
	window, first := load.window(faultAt)
	t.Logf("%d games, %d moves acknowledged (%d after the fault, %d of them with the answer of an earlier try), %d requests sent again; "+
		"longest time without a move written %s, first move written %s after the fault",
		len(load.games), load.moves.Load(), load.moves.Load()-before, load.replays, load.retries.Load(),
		window.Round(time.Millisecond), first.Round(time.Millisecond))
	checkHALogs(ctx, t, c, load.games, f.lost)
	checkHAMails(t, s, load.games, back)
	return window
}

// watchNodes asks every node's PostgreSQL what it is, again and again
// until the returned function is called, which returns each change with
// its time after since: when a new primary began to take writes, and with
// which standby.
func (s *stack) watchNodes(ctx context.Context, since time.Time) func() string {
	ctx, cancel := context.WithCancel(ctx)
	var b strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		last := map[string]string{}
		for ctx.Err() == nil {
			for _, n := range haNodes {
				st := s.nodeState(ctx, n)
				if ctx.Err() != nil {
					return
				}
				if st != last[n] {
					fmt.Fprintf(&b, "%+7.2fs %s %s\n", time.Since(since).Seconds(), n, st)
					last[n] = st
				}
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	return func() string {
		cancel()
		<-done
		return b.String()
	}
}

// faultKillPrimary kills the primary's container (SIGKILL: no shutdown, no
// goodbye to etcd); its leader key expires after ttl and the synchronous
// standby takes over.
func faultKillPrimary(ctx context.Context, t *testing.T, s *stack, f *haFault) {
	if _, err := docker(ctx, "kill", s.container(f.leader)); err != nil {
		t.Fatal(err)
	}
	f.not = f.leader
	f.heal = func(ctx context.Context) error {
		_, err := docker(ctx, "start", s.container(f.leader))
		return err
	}
}

// faultPartitionPrimary takes the primary off the etcd network and off
// the database network, so that it reaches neither etcd, nor its
// standbys, nor azuld, and checks that it demotes itself. The writes it
// took after the cut can never be acknowledged (no standby can confirm
// them, and azuld cannot hear of them): the ones it holds that the new
// primary has not are listed and none may have been acknowledged. Healing
// connects it again and checks it rejoins as a standby of the new
// primary's timeline (rewound).
func faultPartitionPrimary(ctx context.Context, t *testing.T, s *stack, f *haFault) {
	leader := f.leader
	name := s.container(leader)
	cut := time.Now()
	for _, net := range []string{"_db", "_dcs"} {
		if _, err := docker(ctx, "network", "disconnect", s.project+net, name); err != nil {
			t.Fatal(err)
		}
	}
	f.not = leader
	f.heal = func(ctx context.Context) error {
		// What the old primary has: whatever the new one lacks of it was
		// never acknowledged (checked against the clients' records by
		// checkHALogs through azuld; listed here by event).
		if err := f.compare(ctx, t, s, leader); err != nil {
			// Connected again all the same, for the next fault.
			t.Error(err)
		}
		rejoin := time.Now()
		for _, net := range []string{"_db", "_dcs"} {
			// The service's name is the address the others know it by.
			if _, err := docker(ctx, "network", "connect", "--alias", leader, s.project+net, name); err != nil {
				return err
			}
		}
		if _, _, err := s.waitHealthy(ctx, 3*time.Minute); err != nil {
			return fmt.Errorf("%s did not rejoin: %w", leader, err)
		}
		ms, err := s.members(ctx)
		if err != nil {
			return err
		}
		for _, m := range ms {
			if m.Name == leader && m.Role == "Leader" {
				return fmt.Errorf("%s leads again after it rejoined: %+v", leader, ms)
			}
		}
		logs, _ := docker(ctx, "logs", "--since", rejoin.UTC().Format(time.RFC3339Nano), name)
		t.Logf("%s rejoined as a standby %s after it was connected again (pg_rewind run: %t): %+v",
			leader, time.Since(rejoin).Round(time.Millisecond), strings.Contains(logs, "pg_rewind"), ms)
		return nil
	}
	// It must stop taking writes by itself: it can renew its leader key
	// no more.
	for {
		out, err := s.psql(ctx, leader, "select pg_is_in_recovery()")
		if err == nil && strings.TrimSpace(out) == "t" {
			t.Logf("%s, cut off, demoted itself %s after the cut", leader, time.Since(cut).Round(time.Millisecond))
			break
		}
		if time.Since(cut) > time.Minute {
			t.Fatalf("%s, cut off from etcd, is no read-only standby a minute after the cut: %s %v", leader, out, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// compare lists the events the cut-off old primary holds that the new
// primary does not (taken after the cut, never acknowledged) in f.lost.
func (f *haFault) compare(ctx context.Context, t *testing.T, s *stack, old string) error {
	held, err := s.psql(ctx, old, "select stream_id || '/' || version from events")
	if err != nil {
		return fmt.Errorf("events on the cut-off %s: %w", old, err)
	}
	primary, err := s.waitWritable(ctx, old, time.Minute)
	if err != nil {
		return err
	}
	cur, err := s.psql(ctx, primary, "select stream_id || '/' || version from events")
	if err != nil {
		return fmt.Errorf("events on %s: %w", primary, err)
	}
	have := map[string]bool{}
	for _, l := range strings.Fields(cur) {
		have[l] = true
	}
	for _, l := range strings.Fields(held) {
		if !have[l] {
			f.lost = append(f.lost, l)
		}
	}
	t.Logf("%s holds %d events the new primary %s does not (taken after the cut, never acknowledged): %v", old, len(f.lost), primary, f.lost)
	return nil
}

// faultKillEtcdLeader kills the etcd member that leads; the two left
// elect another, and Patroni's primary keeps (or retakes) its key.
func faultKillEtcdLeader(ctx context.Context, t *testing.T, s *stack, f *haFault) {
	e, err := s.etcdLeader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := docker(ctx, "kill", s.container(e)); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed etcd's leader %s", e)
	f.heal = func(ctx context.Context) error {
		_, err := docker(ctx, "start", s.container(e))
		return err
	}
}

// faultRestartAll kills every etcd member and every database node at
// once, and starts them all again: the cluster must come back from cold
// by itself (etcd its quorum, each PostgreSQL its crash recovery, Patroni
// its leader) with nothing acknowledged lost.
func faultRestartAll(ctx context.Context, t *testing.T, s *stack, _ *haFault) {
	var all []string
	for _, n := range append(slices.Clone(haEtcd), haNodes...) {
		all = append(all, s.container(n))
	}
	if _, err := docker(ctx, append([]string{"kill"}, all...)...); err != nil {
		t.Fatal(err)
	}
	if _, err := docker(ctx, append([]string{"start"}, all...)...); err != nil {
		t.Fatal(err)
	}
}

// faultSwitchover hands the primary's role to the synchronous standby,
// as an operator does before maintenance.
func faultSwitchover(ctx context.Context, t *testing.T, s *stack, f *haFault) {
	out, err := s.patronictl(ctx, "switchover", "--leader", f.leader, "--candidate", f.sync, "--force")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("patronictl switchover: %s", lastLine(out))
	f.not = f.leader
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// haEvent is an event as a move's answer and the log return it: enough
// to tell two different events at one version apart.
type haEvent struct {
	Version  int64           `json:"version"`
	Position int64           `json:"position"`
	Type     string          `json:"type"`
	Data     json.RawMessage `json:"data"`
	Meta     struct {
		CommandID string `json:"command_id"`
	} `json:"meta"`
}

// same reports whether two events are one: same place, type, command and
// data (compared as JSON values: the log may order keys otherwise).
func (e haEvent) same(o haEvent) bool {
	if e.Version != o.Version || e.Position != o.Position || e.Type != o.Type || e.Meta.CommandID != o.Meta.CommandID {
		return false
	}
	var a, b any
	if json.Unmarshal(e.Data, &a) != nil || json.Unmarshal(o.Data, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// haGame is a game a client played, and every event it was told was
// written.
type haGame struct {
	id       string
	seats    [2]player // who plays it
	created  time.Time
	acked    []haEvent
	ended    time.Time // when its last move was acknowledged, if it ended
	finished bool
}

// haLoad is the clients' load on the stack: each plays whole games for
// its pair of players, and records every acknowledged move and when.
type haLoad struct {
	c       *client
	mu      sync.Mutex
	games   []*haGame
	writes  []time.Time // when each move was acknowledged
	errs    []error
	replays int // moves acknowledged with an earlier try's answer
	moves   atomic.Int64
	retries atomic.Int64
	// after, once set, is when the cluster was back: each client
	// finishes its game, plays a whole one more, and stops.
	after  atomic.Pointer[time.Time]
	cancel context.CancelFunc
	done   chan struct{}
}

func startHALoad(ctx context.Context, c *client, pairs [][2]player) *haLoad {
	ctx, cancel := context.WithCancel(ctx)
	l := &haLoad{c: c, cancel: cancel, done: make(chan struct{})}
	var wg sync.WaitGroup
	for _, pair := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.play(ctx, pair); err != nil && ctx.Err() == nil {
				l.mu.Lock()
				l.errs = append(l.errs, err)
				l.mu.Unlock()
			}
		}()
	}
	go func() { wg.Wait(); close(l.done) }()
	return l
}

// play is one client: whole games, one after the other, until it has
// played a whole game that began after the cluster was back. A server
// error (5xx other than those a client waits out) is a failure of the
// test, recorded; the client reads the game again and goes on, so that
// one bad answer does not hide what follows.
func (l *haLoad) play(ctx context.Context, seats [2]player) error {
	for {
		if a := l.after.Load(); a != nil {
			l.mu.Lock()
			whole := slices.ContainsFunc(l.games, func(g *haGame) bool { return g.finished && g.created.After(*a) && g.seats == seats })
			l.mu.Unlock()
			if whole {
				return nil
			}
		}
		g, err := l.c.createGameKeyed(ctx, seats[0], seats[1])
		if err != nil {
			if l.goOn(err) {
				continue
			}
			return err
		}
		hg := &haGame{id: g.ID, seats: seats, created: time.Now()}
		l.mu.Lock()
		l.games = append(l.games, hg)
		l.mu.Unlock()
		for n := 0; ; n++ {
			cur, err := l.c.gameWithin(ctx, g.ID, haPatience)
			if err != nil {
				if l.goOn(err) {
					continue
				}
				return err
			}
			if cur.Status == "finished" {
				l.mu.Lock()
				hg.finished = true
				l.mu.Unlock()
				break
			}
			if n > maxMoves {
				return fmt.Errorf("game %s: no end after %d moves", g.ID, n)
			}
			ack, retries, err := l.c.playKeyed(ctx, cur, seats)
			l.retries.Add(int64(retries))
			if err != nil {
				if l.goOn(fmt.Errorf("game %s: %w", g.ID, err)) {
					continue
				}
				return fmt.Errorf("game %s: %w", g.ID, err)
			}
			at := time.Now()
			l.mu.Lock()
			hg.acked = append(hg.acked, ack.events...)
			hg.ended = at
			if ack.replayed {
				// Written before, at a time the client cannot know: not
				// a write that came through now.
				l.replays++
			} else {
				l.writes = append(l.writes, at)
			}
			l.mu.Unlock()
			l.moves.Add(1)
		}
	}
}

// goOn records a server error and says whether the client may go on
// (a few times): anything else makes it give up.
func (l *haLoad) goOn(err error) bool {
	var se *statusError
	if !errors.As(err, &se) || se.status < 500 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, fmt.Errorf("%s: %w", time.Now().UTC().Format("15:04:05.000"), err))
	if len(l.errs) > 50 {
		return false
	}
	time.Sleep(200 * time.Millisecond)
	return true
}

// statusError is an answer a client did not expect.
type statusError struct {
	status int
	body   []byte
}

func (e *statusError) Error() string { return fmt.Sprintf("%d %s", e.status, e.body) }

// waitMoves waits until n moves were acknowledged in all, or a client
// gave up.
func (l *haLoad) waitMoves(ctx context.Context, n int64) error {
	for l.moves.Load() < n {
		select {
		case <-ctx.Done():
			return fmt.Errorf("only %d of %d moves: %w", l.moves.Load(), n, ctx.Err())
		case <-l.done:
			return fmt.Errorf("the clients stopped after %d moves: %w", l.moves.Load(), errors.Join(l.errs...))
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// finish tells the clients the cluster is back since at.
func (l *haLoad) finish(at time.Time) { l.after.Store(&at) }

// wait waits for the clients to stop, and reports those that gave up.
func (l *haLoad) wait(ctx context.Context, within time.Duration) error {
	select {
	case <-l.done:
	case <-time.After(within):
		l.halt()
		return fmt.Errorf("the clients did not finish their games within %s (%d moves)", within, l.moves.Load())
	case <-ctx.Done():
		l.halt()
		return ctx.Err()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errs) > 0 {
		return fmt.Errorf("%d answers a client must never get: %w", len(l.errs), errors.Join(l.errs...))
	}
	return nil
}

// halt stops the clients where they are.
func (l *haLoad) halt() {
	l.cancel()
	<-l.done
}

// window is the longest time without a move written (acknowledged, not
// replayed) from the last one before the fault on, and how long after
// the fault the first one came.
func (l *haLoad) window(fault time.Time) (longest, first time.Duration) {
	l.mu.Lock()
	ws := slices.Clone(l.writes)
	l.mu.Unlock()
	sort.Slice(ws, func(i, j int) bool { return ws[i].Before(ws[j]) })
	i := sort.Search(len(ws), func(i int) bool { return ws[i].After(fault) })
	if i == len(ws) {
		return time.Since(fault), time.Since(fault)
	}
	first = ws[i].Sub(fault)
	if i > 0 {
		i--
	}
	for ; i+1 < len(ws); i++ {
		longest = max(longest, ws[i+1].Sub(ws[i]))
	}
	return longest, first
}

// createGameKeyed starts an Azul Mini game of two players, sent again
// with one Idempotency-Key while azuld has no primary.
func (c *client) createGameKeyed(ctx context.Context, a, b player) (gameView, error) {
	var key [8]byte
	if _, err := rand.Read(key[:]); err != nil {
		return gameView{}, fmt.Errorf("idempotency key: %w", err)
	}
	body := map[string]any{"ruleset": "azul-mini", "seats": []map[string]string{{"player": "me"}, {"player": b.ID}}}
	status, raw, _, err := c.retrying(ctx, haPatience, http.MethodPost, "/v1/games", a.Token, body,
		map[string]string{"Idempotency-Key": fmt.Sprintf("game-%x", key)})
	if err != nil {
		return gameView{}, err
	}
	if status != http.StatusCreated {
		return gameView{}, fmt.Errorf("create game: %w", &statusError{status, raw})
	}
	var g gameView
	if err := json.Unmarshal(raw, &g); err != nil {
		return gameView{}, fmt.Errorf("create game: %w", err)
	}
	return c.accept(ctx, g, b, haPatience)
}

// gameWithin reads a game's state, trying again for within.
func (c *client) gameWithin(ctx context.Context, id string, within time.Duration) (gameView, error) {
	status, b, _, err := c.retrying(ctx, within, http.MethodGet, "/v1/games/"+id, "", nil, nil)
	if err != nil {
		return gameView{}, err
	}
	if status != http.StatusOK {
		return gameView{}, fmt.Errorf("GET game %s: %w", id, &statusError{status, b})
	}
	var g gameView
	return g, json.Unmarshal(b, &g)
}

// haAck is a move's acknowledgement.
type haAck struct {
	events []haEvent
	// replayed: the answer of an earlier try that was written (its
	// answer lost), sent again for its Idempotency-Key; nothing new was
	// written.
	replayed bool
	took     time.Duration // from the POST's first try to its answer
}

// playKeyed makes a random move (not resign) for the seat to act in g,
// sent again with the same Idempotency-Key until azuld answers, and
// returns its acknowledgement and how many requests were sent again.
func (c *client) playKeyed(ctx context.Context, g gameView, seats [2]player) (haAck, int, error) {
	p := seats[g.ToAct[0]]
	path := "/v1/games/" + g.ID
	status, b, retries, err := c.retrying(ctx, haPatience, http.MethodGet, path+"/legal-moves", p.Token, nil, nil)
	if err != nil {
		return haAck{}, retries, err
	}
	if status != http.StatusOK {
		return haAck{}, retries, fmt.Errorf("legal-moves at %d: %w", g.Version, &statusError{status, b})
	}
	var lm struct {
		Version int64       `json:"version"`
		Moves   []legalMove `json:"moves"`
	}
	if err := json.Unmarshal(b, &lm); err != nil {
		return haAck{}, retries, fmt.Errorf("legal-moves: %w", err)
	}
	moves := slices.DeleteFunc(lm.Moves, func(m legalMove) bool { return m.Notation == "resign" })
	if lm.Version != g.Version || len(moves) == 0 {
		return haAck{}, retries, fmt.Errorf("legal-moves at %d (game at %d): %d moves besides resign", lm.Version, g.Version, len(moves))
	}
	m := moves[randomPick(len(moves))]
	hdr := map[string]string{
		"If-Match":        strconv.FormatInt(g.Version, 10),
		"Idempotency-Key": fmt.Sprintf("%s-%d", g.ID, g.Version),
	}
	sent := time.Now()
	status, b, more, err := c.retrying(ctx, haPatience, http.MethodPost, path+"/moves", p.Token, m.Move, hdr)
	took := time.Since(sent)
	retries += more
	if err != nil {
		return haAck{}, retries, err
	}
	if status != http.StatusCreated {
		return haAck{}, retries, fmt.Errorf("move %s at %d: %w", m.Notation, g.Version, &statusError{status, b})
	}
	var res struct {
		Events   []haEvent `json:"events"`
		Replayed bool      `json:"replayed"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return haAck{}, retries, fmt.Errorf("move %s at %d: %w", m.Notation, g.Version, err)
	}
	if len(res.Events) == 0 || res.Events[0].Version != g.Version+1 {
		return haAck{}, retries, fmt.Errorf("move %s at %d acknowledged with events %+v", m.Notation, g.Version, res.Events)
	}
	return haAck{events: res.Events, replayed: res.Replayed, took: took}, retries, nil
}

// haLog reads a game's whole log.
func (c *client) haLog(ctx context.Context, id string) ([]haEvent, error) {
	status, b, _, err := c.retrying(ctx, haPatience, http.MethodGet, "/v1/games/"+id+"/events?format=jsonl", "", nil, nil)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("events of %s: %d %s", id, status, b)
	}
	var out []haEvent
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var e haEvent
		if err := dec.Decode(&e); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("events of %s: %w", id, err)
		}
		out = append(out, e)
	}
}

// checkHALogs checks every game against what its client was told: the log
// has versions 1..n with no gap, every acknowledged event is the one at
// its version, the game folds to version n, and its fairness proof holds
// (pass once finished; never fail).
func checkHALogs(ctx context.Context, t *testing.T, c *client, games []*haGame, lost []string) {
	t.Helper()
	acked := map[string]bool{}
	events := 0
	for _, g := range games {
		log, err := c.haLog(ctx, g.id)
		if err != nil {
			t.Error(err)
			continue
		}
		events += len(log)
		for i, e := range log {
			if e.Version != int64(i+1) {
				t.Errorf("game %s: the log's event %d is at version %d (a gap or a fork)", g.id, i+1, e.Version)
				break
			}
			if i > 0 && e.Position <= log[i-1].Position {
				t.Errorf("game %s: version %d at position %d, after %d", g.id, e.Version, e.Position, log[i-1].Position)
			}
		}
		for _, a := range g.acked {
			acked[g.id+"/"+strconv.FormatInt(a.Version, 10)] = true
			if a.Version < 1 || a.Version > int64(len(log)) {
				t.Errorf("game %s: acknowledged event at version %d is lost (the log ends at %d)", g.id, a.Version, len(log))
				continue
			}
			if got := log[a.Version-1]; !got.same(a) {
				t.Errorf("game %s: acknowledged %s at version %d (position %d), the log has %s (position %d)",
					g.id, a.Type, a.Version, a.Position, got.Type, got.Position)
			}
		}
		cur, err := c.gameWithin(ctx, g.id, haPatience)
		if err != nil {
			t.Error(err)
			continue
		}
		if cur.Version != int64(len(log)) {
			t.Errorf("game %s folds to version %d, its log has %d events", g.id, cur.Version, len(log))
		}
		status, b, _, err := c.retrying(ctx, haPatience, http.MethodGet, "/v1/games/"+g.id+"/verify", "", nil, nil)
		var v struct {
			Result string `json:"result"`
			Events int    `json:"events"`
		}
		if err != nil || status != http.StatusOK || json.Unmarshal(b, &v) != nil {
			t.Errorf("verify %s: %d %s %v", g.id, status, b, err)
			continue
		}
		if v.Result == "fail" || (cur.Status == "finished" && v.Result != "pass") {
			t.Errorf("game %s (%s) verifies %q: %s", g.id, cur.Status, v.Result, b)
		}
	}
	for _, l := range lost {
		if acked[l] {
			t.Errorf("event %s was acknowledged, yet the cut-off primary holds it and its successor does not", l)
		}
	}
	t.Logf("%d games, %d events in their logs: every acknowledged move at its version, no gap, no fork", len(games), events)
}

// checkHAMails checks that no mail went twice, that every game that began
// after the cluster was back got its start mail, and every game that
// ended after it its two game-over mails; then empties mailpit, so that
// each fault is counted alone. A mail job that was running when its
// database went may have sent its mail and not marked it done: it is
// run again only when stuck jobs are rescued, an hour later, so the
// games of the fault itself are checked for duplicates only.
func checkHAMails(t *testing.T, s *stack, games []*haGame, back time.Time) {
	t.Helper()
	var complete []*haGame
	for _, g := range games {
		if g.finished && g.ended.After(back) {
			complete = append(complete, g)
		}
	}
	if len(complete) < haClients {
		t.Errorf("%d games ended after the cluster was back, want at least %d", len(complete), haClients)
	}
	ms := waitMails(t, s.mailpit, 2*time.Minute, func(ms []mail) bool {
		for _, g := range complete {
			k := countQuiet(ms, g.id)
			if k["over"] != 2 || (g.created.After(back) && k["started"] != 1) {
				return false
			}
		}
		return true
	})
	turns := 0
	for _, g := range games {
		k := count(t, ms, g.id)
		turns += k["turn"]
		if k["started"] > 1 || k["over"] > 2 {
			t.Errorf("game %s: mails %v", g.id, k)
		}
	}
	t.Logf("%d mails, %d of them turn mails, none twice; the %d games that ended after the fault got their game-over mails", len(ms), turns, len(complete))
	req, err := http.NewRequest(http.MethodDelete, s.mailpit+"/api/v1/messages", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("emptying mailpit: %v", err)
	}
	resp.Body.Close()
}

// countQuiet is count without the duplicate check (waitMails polls).
func countQuiet(ms []mail, game string) map[string]int {
	kinds := map[string]int{}
	for _, m := range ms {
		if g, k := m.kind(); g == game {
			kinds[k]++
		}
	}
	return kinds
}

// keepAllMail lifts mailpit's limit of 500 messages, past which it
// deletes the oldest: the test counts every mail of every game.
func keepAllMail(t *testing.T, s *stack) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "mailpit-unbounded.yml")
	if err := os.WriteFile(f, []byte("services:\n  mailpit:\n    environment:\n      MP_MAX_MESSAGES: \"0\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.files = append(s.files, f)
}

// TestHAThroughput measures what synchronous replication costs: moves/s
// and the 99th percentile of a move's POST at 8 and 32 clients, on the
// single-node stack and then on the HA stack, in one run (one machine,
// one load around it). It only logs figures, and runs only with
// AZUL_HA_BENCH=1 (AZUL_HA_BENCH_SECONDS long per measure, default 20).
func TestHAThroughput(t *testing.T) {
	if !enabled(t) {
		return
	}
	if os.Getenv("AZUL_HA_BENCH") != "1" {
		t.Log("AZUL_HA_BENCH is not 1: no figures taken (they need the machine to themselves for minutes)")
		return
	}
	dur := 20 * time.Second
	if v := os.Getenv("AZUL_HA_BENCH_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("AZUL_HA_BENCH_SECONDS=%q: want seconds", v)
		}
		dur = time.Duration(n) * time.Second
	}
	clients := []int{8, 32}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute+4*dur)
	defer cancel()
	type figures struct {
		perSec   float64
		p50, p99 time.Duration
	}
	got := map[string]map[int]figures{}
	for _, kind := range []string{"single", "ha"} {
		var s *stack
		if kind == "ha" {
			s = newHAStack(t, false)
		} else {
			s = newStack(t, "docker-compose.yml")
		}
		// Clients from one address, faster than people; no confirmation
		// mails to follow first.
		s.env = append(s.env, "AZUL_RATE_LIMITS=off", "AZUL_VERIFY_ADDRESSES=false")
		s.up()
		waitReady(t, s.http+"/readyz", time.Minute)
		c := newClient(s.http)
		c.http.Transport = &http.Transport{MaxIdleConnsPerHost: 64}
		pairs := make([][2]player, slices.Max(clients))
		for w := range pairs {
			pairs[w] = [2]player{c.register(ctx, t, fmt.Sprintf("Ana%d", w)), c.register(ctx, t, fmt.Sprintf("Ben%d", w))}
		}
		got[kind] = map[int]figures{}
		for _, n := range clients {
			lat, moves, err := measureMoves(ctx, c, pairs[:n], dur)
			if err != nil {
				t.Fatalf("%s, %d clients: %v", kind, n, err)
			}
			slices.Sort(lat)
			f := figures{perSec: float64(moves) / dur.Seconds(), p50: lat[len(lat)/2], p99: lat[len(lat)*99/100]}
			got[kind][n] = f
			t.Logf("%-6s %2d clients: %6.1f moves/s, move POST p50 %s p99 %s (%d moves)", kind, n, f.perSec,
				f.p50.Round(100*time.Microsecond), f.p99.Round(100*time.Microsecond), moves)
		}
		// The next stack gets the machine to itself.
		s.must("down", "--volumes", "--timeout", "10")
	}
	for _, n := range clients {
		one, ha := got["single"][n], got["ha"][n]
		t.Logf("%2d clients: HA/single moves/s %.2f, p99 %.2f", n, ha.perSec/one.perSec, float64(ha.p99)/float64(one.p99))
	}
}

// measureMoves has each pair's client play games for d after a warm-up,
// and returns the time each move's POST took and how many moves were
// acknowledged within d.
func measureMoves(ctx context.Context, c *client, pairs [][2]player, d time.Duration) ([]time.Duration, int, error) {
	const warm = 3 * time.Second
	start := time.Now().Add(warm)
	end := start.Add(d)
	var (
		mu    sync.Mutex
		lat   []time.Duration
		moves int
		errs  []error
		wg    sync.WaitGroup
	)
	for _, seats := range pairs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				g, err := c.createGameKeyed(ctx, seats[0], seats[1])
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				for g.Status != "finished" && time.Now().Before(end) {
					ack, _, err := c.playKeyed(ctx, g, seats)
					if err == nil {
						g, err = c.gameWithin(ctx, g.ID, time.Minute)
					}
					if err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
						return
					}
					if now := time.Now(); now.After(start) && now.Before(end) {
						mu.Lock()
						lat = append(lat, ack.took)
						moves++
						mu.Unlock()
					}
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, 0, errors.Join(errs...)
	}
	if len(lat) == 0 {
		return nil, 0, fmt.Errorf("no move within %s", d)
	}
	return lat, moves, nil
}

// timelineMarks are the log lines of Patroni and PostgreSQL that say
// where a failover's time went.
var timelineMarks = []string{
	"promoted self", "acquired session lock", "demot", "ynchronous standby status",
	"pg_rewind exit", "selected new timeline", "ready to accept connections",
	"started streaming WAL", "Lock owner: None",
}

// patroniTimeline is the nodes' log lines since since that mark a step of
// a failover, oldest first, with the time each came after since.
func (s *stack) patroniTimeline(ctx context.Context, since time.Time) string {
	type line struct {
		at   time.Time
		text string
	}
	var lines []line
	for _, n := range haNodes {
		out, _ := docker(ctx, "logs", "--timestamps", "--since", since.UTC().Format(time.RFC3339Nano), s.container(n))
		seen := map[string]bool{}
		for _, l := range strings.Split(out, "\n") {
			ts, text, ok := strings.Cut(l, " ")
			at, err := time.Parse(time.RFC3339Nano, ts)
			if !ok || err != nil || !slices.ContainsFunc(timelineMarks, func(m string) bool { return strings.Contains(text, m) }) {
				continue
			}
			// Patroni says some things at every loop: the first is news.
			key := text
			if i := strings.Index(text, "INFO: "); i >= 0 {
				key = text[i:]
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			lines = append(lines, line{at, fmt.Sprintf("%+7.2fs %s %s", at.Sub(since).Seconds(), n, strings.TrimSpace(text))})
		}
	}
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].at.Before(lines[j].at) })
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text + "\n")
	}
	return b.String()
}
