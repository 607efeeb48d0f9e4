package deploy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRestore is the disaster-recovery drill of docs/OPERATIONS.md on the
// HA stack: the schedule's first full backup, games played, a full and an
// incremental backup by hand, more games, a time T, games played after T
// and then a mistake (the schema's owner deletes a game's log), then the
// whole cluster destroyed (nodes, their volumes, its keys in etcd; the
// backup repository stays) and made again from the backups, twice: (a) to
// the latest archived point, where every acknowledged move must be but
// those of the deleted game, and (b) to T, where every move acknowledged
// before T must be, the deleted game's included, and none made after it.
// Each time azuld, left running, reconnects by itself, every game
// verifies, every standby is back, and new moves are accepted.
func TestRestore(t *testing.T) {
	if !enabled(t) {
		return
	}
	t.Parallel()
	s := newHAStack(t, false)
	// The schedule looks at the repository every 2 s (instead of every
	// minute) so that its first full backup, due at once on a new
	// cluster, comes early in the test, and it makes an incremental one
	// whenever the newest backup is 15 s old (instead of an hour), so
	// that scheduled backups come between the test's own.
	s.env = append(s.env, "AZUL_BACKUP_POLL=2s", "AZUL_BACKUP_INCR_EVERY=15s")
	s.up()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	waitReady(t, s.http+"/readyz", time.Minute)
	leader, err := s.waitPrimary(ctx, "", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	scheduled, err := s.waitBackups(ctx, leader, 2*time.Minute, func(bs []backupSet) bool { return len(bs) > 0 })
	if err != nil {
		t.Fatalf("the schedule made no backup: %v\n%s", err, s.leaderLog(ctx, leader))
	}
	if scheduled[0].Type != "full" {
		t.Fatalf("the schedule's first backup is %s, want full", scheduled[0].Type)
	}
	t.Logf("scheduled: %s", scheduled[0])

	c := newClient(s.http)
	c.mailpit = s.mailpit
	h := &history{t: t, c: c, seats: [2]player{c.register(ctx, t, "Ana"), c.register(ctx, t, "Ben")}}
	for range 3 {
		h.newGame(ctx)
	}
	h.playAll(ctx, 5)
	// No backup was asked for yet: an incremental one is the schedule's.
	scheduled, err = s.waitBackups(ctx, leader, 2*time.Minute, func(bs []backupSet) bool {
		return slices.ContainsFunc(bs, func(b backupSet) bool { return b.Type == "incr" })
	})
	if err != nil {
		t.Fatalf("the schedule made no incremental backup: %v\n%s", err, s.leaderLog(ctx, leader))
	}
	t.Logf("scheduled: %s", scheduled[slices.IndexFunc(scheduled, func(b backupSet) bool { return b.Type == "incr" })])

	full := s.timedBackup(ctx, t, leader, "full")
	h.playAll(ctx, 4)
	h.newGame(ctx)
	h.playAll(ctx, 3)
	s.timedBackup(ctx, t, leader, "incr")
	h.playAll(ctx, 3)

	// T lies between the last move acknowledged before it and the first
	// one sent after it; the logs as they stand at T are what the restore
	// to T must give back.
	atT := h.logs(ctx)
	time.Sleep(50 * time.Millisecond)
	target := time.Now().UTC()
	time.Sleep(50 * time.Millisecond)
	acksBeforeT := len(h.acks)
	// After T: moves and a game that the restore to T undoes, and then
	// the mistake, as the schema's owner: a game's log deleted (past
	// the trigger that keeps events immutable). The latest point has the
	// mistake too; only the restore to T brings the game back.
	h.playAll(ctx, 4)
	late := h.newGame(ctx)
	h.play(ctx, late, 3)
	victim := h.games[0]
	mistake := fmt.Sprintf("SET ROLE azuld; BEGIN; ALTER TABLE events DISABLE TRIGGER events_immutable_rows; "+
		"DELETE FROM events WHERE stream_id = '%s'; ALTER TABLE events ENABLE TRIGGER events_immutable_rows; COMMIT;", victim)
	if out, err := docker(ctx, "exec", "-u", "postgres", s.container(leader), "psql", "-v", "ON_ERROR_STOP=1", "-d", "azuld", "-c", mistake); err != nil {
		t.Fatalf("the mistake: %v\n%s", err, out)
	}
	latest := h.logs(ctx)
	if _, ok := latest[victim]; ok {
		t.Fatalf("game %s still has its log after the mistake", victim)
	}
	if _, ok := atT[late]; ok {
		t.Fatalf("the game made after T was in the logs at T")
	}
	if _, ok := atT[victim]; !ok {
		t.Fatalf("the game deleted after T was not in the logs at T")
	}
	var lost []ack
	for _, a := range h.acks {
		if a.game == victim {
			lost = append(lost, a)
		}
	}
	// The last WAL segment, with the last moves, is still being written:
	// check switches to a new one and waits until the old one is in the
	// repository (what archive_timeout would do within a minute).
	if out, err := s.pgbackrest(ctx, leader, "check"); err != nil {
		t.Fatalf("pgbackrest check before the disaster: %v\n%s", err, out)
	}
	t.Logf("%d games, %d moves and new games acknowledged, %d of them before T = %s (full backup %s)",
		len(h.games), len(h.acks), acksBeforeT, target.Format(time.RFC3339Nano), full.Label)

	// (a) Everything lost but the repository; back to the latest point,
	// mistake included.
	s.drill(ctx, t, h, "latest", latest, lost, victim, true)
	// (b) Again, back to T: what came after T must be gone.
	s.drill(ctx, t, h, target.Format("2006-01-02 15:04:05.000000+00"), atT, h.acks[acksBeforeT:], "", false)
}

// timedBackup takes a backup of the given type on the primary and logs
// how long it took and its sizes.
func (s *stack) timedBackup(ctx context.Context, t *testing.T, leader, kind string) backupSet {
	t.Helper()
	begin := time.Now()
	var took time.Duration
	var out string
	for {
		start := time.Now()
		var err error
		out, err = s.pgbackrest(ctx, leader, "--type="+kind, "backup")
		took = time.Since(start)
		if err == nil {
			break
		}
		// The schedule's backup holds the stanza's lock: wait for it to
		// end, as an operator would.
		if !strings.Contains(out, "unable to acquire lock") || time.Since(begin) > 2*time.Minute {
			t.Fatalf("%s backup: %v\n%s", kind, err, out)
		}
		time.Sleep(time.Second)
	}
	_, label, _ := strings.Cut(out, "new backup label = ")
	label, _, _ = strings.Cut(label, "\n")
	bs, err := s.backups(ctx, leader)
	if err != nil {
		t.Fatalf("after a %s backup: %v", kind, err)
	}
	i := slices.IndexFunc(bs, func(b backupSet) bool { return b.Label == strings.TrimSpace(label) })
	if i < 0 || bs[i].Type != kind {
		t.Fatalf("the %s backup %q is not in the repository: %v\n%s", kind, label, bs, out)
	}
	b := bs[i]
	t.Logf("%s; pgbackrest backup took %s", b, took.Round(time.Millisecond))
	return b
}

// drill destroys the cluster, restores it to target (and backs it up in
// full when fullAfter is set), and checks that the games' logs are
// exactly want (so every move acknowledged before the target is there),
// that none of the undone acknowledgements is, that every game verifies
// (broken names a game the restore brought back deleted), and that play
// goes on.
func (s *stack) drill(ctx context.Context, t *testing.T, h *history, target string, want map[string][]record, undone []ack, broken string, fullAfter bool) {
	t.Helper()
	start := time.Now()
	if err := s.destroyCluster(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("restore to %s: cluster destroyed in %s", target, time.Since(start).Round(time.Millisecond))
	start = time.Now()
	leader, err := s.restoreCluster(ctx, target, 5*time.Minute)
	if err != nil {
		var logs []string
		for _, node := range haNodes {
			logs = append(logs, node+":\n"+s.leaderLog(ctx, node))
		}
		t.Fatalf("restore to %s: %v\n%s", target, err, strings.Join(logs, "\n"))
	}
	cluster := time.Since(start)
	waitReady(t, s.http+"/readyz", 2*time.Minute)
	t.Logf("restore to %s: %s leads with its standbys after %s, azuld ready after %s",
		target, leader, cluster.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))

	got := h.logs(ctx)
	for id, events := range want {
		if !slices.Equal(got[id], events) {
			t.Errorf("restore to %s: game %s has the log\n%v\nwant\n%v", target, id, got[id], events)
		}
	}
	for id := range got {
		if _, ok := want[id]; !ok {
			t.Errorf("restore to %s: game %s, made after the target or deleted before it, is there", target, id)
		}
	}
	// Independently of the logs read before: every acknowledgement is
	// either kept at its version or undone.
	for _, a := range h.acks {
		kept := slices.ContainsFunc(got[a.game], func(r record) bool { return r.Version == a.version })
		gone := slices.Contains(undone, a)
		switch {
		case gone && kept:
			t.Errorf("restore to %s: version %d of %s, undone (after the target, or by the mistake), is there", target, a.version, a.game)
		case !gone && !kept:
			t.Errorf("restore to %s: version %d of %s, acknowledged at %s, is missing", target, a.version, a.game, a.at.Format(time.RFC3339Nano))
		}
	}
	h.verify(ctx, target, want, "")
	s.verifyAll(ctx, t, broken)
	// The restored cluster archives into the same repository, on its
	// new timeline.
	if out, err := s.pgbackrest(ctx, leader, "check"); err != nil {
		t.Errorf("restore to %s: pgbackrest check: %v\n%s", target, err, out)
	}
	if fullAfter {
		// As the runbook says, a restore is followed by a full backup,
		// the base of the new timeline's incremental ones. (The restore
		// to T that follows must then select the newest backup before
		// T, not this one.)
		s.timedBackup(ctx, t, leader, "full")
	}
	// Play goes on, and every game ends (resigned) and then verifies in
	// full, its seed revealed.
	for id := range want {
		h.play(ctx, id, 1)
		h.resign(ctx, id)
	}
	h.verify(ctx, target, want, "pass")
	if t.Failed() {
		t.FailNow()
	}
}

// verifyAll runs `azuld verify --all` (every game and every commitment
// in the database) in azuld's container, once azuld has it. broken, when
// not empty, is a game whose log the restore brought back deleted (the
// mistake, kept by the restore to the latest point): its streams and
// read-model rows remain without events, so a failure is allowed if it
// names that game.
func (s *stack) verifyAll(ctx context.Context, t *testing.T, broken string) {
	t.Helper()
	out, err := docker(ctx, "exec", s.container("azuld"), "/azuld", "verify", "--all")
	if err == nil {
		t.Logf("azuld verify --all:\n%s", out)
		return
	}
	// Each failed game has a line "FAIL <id> at version N: reason": the
	// deleted game's may be there, no other.
	var failed []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "FAIL ") {
			failed = append(failed, line)
		}
	}
	if broken == "" || len(failed) != 1 || !strings.Contains(failed[0], broken) {
		t.Errorf("azuld verify --all: %v\n%s", err, out)
		return
	}
	t.Logf("azuld verify --all reports the deleted game %s alone, as it should:\n%s", broken, out)
}

// ack is a move (or a new game) azuld acknowledged: the version of its
// last event.
type ack struct {
	game    string
	version int64
	at      time.Time
}

// history is what the test's players were told: the games and every
// acknowledgement.
type history struct {
	t     *testing.T
	c     *client
	seats [2]player
	games []string
	acks  []ack
}

func (h *history) newGame(ctx context.Context) string {
	h.t.Helper()
	g, err := h.c.createGame(ctx, h.seats[0], h.seats[1])
	if err != nil {
		h.t.Fatal(err)
	}
	h.games = append(h.games, g.ID)
	h.acks = append(h.acks, ack{g.ID, g.Version, time.Now()})
	return g.ID
}

// play makes n moves in a game.
func (h *history) play(ctx context.Context, id string, n int) {
	h.t.Helper()
	for range n {
		g, err := h.c.game(ctx, id)
		if err != nil {
			h.t.Fatal(err)
		}
		if g.Status != "active" {
			h.t.Fatalf("game %s is %s", id, g.Status)
		}
		res, _, err := h.c.playOne(ctx, g, h.seats, randomPick)
		if err != nil {
			h.t.Fatal(err)
		}
		if len(res.Events) == 0 {
			h.t.Fatalf("a move in %s acknowledged with no event", id)
		}
		h.acks = append(h.acks, ack{id, res.Events[len(res.Events)-1].Version, time.Now()})
	}
}

// playAll makes n moves in every game still being played.
func (h *history) playAll(ctx context.Context, n int) {
	h.t.Helper()
	for _, id := range h.games {
		h.play(ctx, id, n)
	}
}

// resign ends a game: the seat to act resigns.
func (h *history) resign(ctx context.Context, id string) {
	h.t.Helper()
	g, err := h.c.game(ctx, id)
	if err != nil {
		h.t.Fatal(err)
	}
	hdr := map[string]string{"If-Match": strconv.FormatInt(g.Version, 10), "Idempotency-Key": fmt.Sprintf("%s-%d-resign", id, g.Version)}
	status, b, _, err := h.c.retrying(ctx, 30*time.Second, http.MethodPost, "/v1/games/"+id+"/moves", h.seats[g.ToAct[0]].Token, map[string]string{"type": "resign"}, hdr)
	if err != nil || status != http.StatusCreated {
		h.t.Fatalf("resign in %s: %d %s %v", id, status, b, err)
	}
}

// logs reads every game's log; a game with none (never made, or its
// log deleted) is left out.
func (h *history) logs(ctx context.Context) map[string][]record {
	h.t.Helper()
	out := map[string][]record{}
	for _, id := range h.games {
		status, b, _, err := h.c.retrying(ctx, 30*time.Second, http.MethodGet, "/v1/games/"+id+"/events?format=jsonl", "", nil, nil)
		if err != nil {
			h.t.Fatal(err)
		}
		if status == http.StatusNotFound {
			continue
		}
		if status != http.StatusOK {
			h.t.Fatalf("events of %s: %d %s", id, status, b)
		}
		var events []record
		dec := json.NewDecoder(bytes.NewReader(b))
		for dec.More() {
			var r record
			if err := dec.Decode(&r); err != nil {
				h.t.Fatalf("events of %s: %v", id, err)
			}
			events = append(events, r)
		}
		out[id] = events
	}
	return out
}

// verify checks every game of games through the API: the fairness check
// passes, or while the seed is secret the log folds under its commitment
// (want "" accepts both).
func (h *history) verify(ctx context.Context, target string, games map[string][]record, want string) {
	h.t.Helper()
	for id := range games {
		status, b, _, err := h.c.retrying(ctx, 30*time.Second, http.MethodGet, "/v1/games/"+id+"/verify", "", nil, nil)
		if err != nil || status != http.StatusOK {
			h.t.Fatalf("verify %s: %d %s %v", id, status, b, err)
		}
		var v struct {
			Result   string          `json:"result"`
			Events   int             `json:"events"`
			Mismatch json.RawMessage `json:"mismatch"`
		}
		if err := json.Unmarshal(b, &v); err != nil {
			h.t.Fatal(err)
		}
		ok := v.Result == want || (want == "" && (v.Result == "pass" || v.Result == "committed"))
		if !ok {
			h.t.Errorf("restore to %s: game %s verifies %q (want %q): %s", target, id, v.Result, want, b)
		}
	}
}
