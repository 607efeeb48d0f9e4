package deploy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestComposeReplicas runs three azuld replicas behind Caddy and HAProxy
// under a steady load of games played by clients that retry on the proxy,
// kills one replica and cuts another off from the database, and checks
// that no acknowledged move is lost, that the cut-off replica reports not
// ready and gets no requests, that no mail is sent twice while every game
// played after the faults gets all its mails, and that replies by mail
// through the published SMTP port are applied before and after the faults.
func TestComposeReplicas(t *testing.T) {
	if !enabled(t) {
		return
	}
	t.Parallel()
	s := newStack(t, "docker-compose.yml", "docker-compose.replicas.yml")
	// A load test: its clients, all from one address, register and play
	// far faster than people (the limits have tests of their own).
	s.env = append(s.env, "AZUL_RATE_LIMITS=off")
	s.up("--scale", "azuld=3")
	waitReady(t, s.http+"/readyz", time.Minute)
	killed, cut := s.project+"-azuld-1", s.project+"-azuld-2"
	healthy := s.project + "-azuld-3"

	// Bounded: the load stops by itself, and the whole test within 8 minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	c := newClient(s.http)
	c.mailpit = s.mailpit

	const workers = 4
	type played struct {
		id      string
		created time.Time
		acked   []record
	}
	var (
		mu      sync.Mutex
		games   []*played
		moves   atomic.Int64
		retries atomic.Int64
		stop    = make(chan struct{})
		wg      sync.WaitGroup
		errs    = make(chan error, workers)
		// quiet is set once the faulty replicas are out of rotation; each
		// worker then plays one more whole game.
		quiet atomic.Pointer[time.Time]
	)
	// A reply by mail reaches a replica through the SMTP proxy's
	// published port, and is applied.
	byMail := [2]player{c.register(ctx, t, "Cai"), c.register(ctx, t, "Dan")}
	mailGame, err := c.createGame(ctx, byMail[0], byMail[1])
	if err != nil {
		t.Fatal(err)
	}
	replyByMail(ctx, t, s, c, mailGame, byMail)

	pairs := make([][2]player, workers)
	for w := range pairs {
		pairs[w] = [2]player{c.register(ctx, t, fmt.Sprintf("Ana%d", w)), c.register(ctx, t, fmt.Sprintf("Ben%d", w))}
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			after := 0 // whole games played since quiet
			for {
				select {
				case <-stop:
					return
				default:
				}
				q := quiet.Load()
				if q != nil && after > 0 {
					return
				}
				g, err := c.createGame(ctx, pairs[w][0], pairs[w][1])
				if err != nil {
					errs <- err
					return
				}
				p := &played{id: g.ID, created: time.Now()}
				mu.Lock()
				games = append(games, p)
				mu.Unlock()
				for n := 0; ; n++ {
					cur, err := c.game(ctx, g.ID)
					if err != nil {
						errs <- err
						return
					}
					if cur.Status == "finished" {
						break
					}
					if n > maxMoves {
						errs <- fmt.Errorf("game %s: no end after %d moves", g.ID, n)
						return
					}
					res, r, err := c.playOne(ctx, cur, pairs[w], randomPick)
					retries.Add(int64(r))
					if err != nil {
						errs <- fmt.Errorf("game %s: %w", g.ID, err)
						return
					}
					mu.Lock()
					p.acked = append(p.acked, res.Events...)
					mu.Unlock()
					moves.Add(1)
				}
				if q != nil {
					after++
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	fail := func(format string, args ...any) {
		t.Helper()
		close(stop)
		<-done
		t.Fatalf(format, args...)
	}
	// waitMoves waits until n moves were acknowledged, a worker failed, or time ran out.
	waitMoves := func(n int64) {
		t.Helper()
		for moves.Load() < n {
			select {
			case err := <-errs:
				fail("a client gave up: %v", err)
			case <-ctx.Done():
				fail("only %d of %d moves within the time limit", moves.Load(), n)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}

	waitMoves(30)
	if _, err := docker(ctx, "kill", killed); err != nil {
		fail("%v", err)
	}
	t.Logf("killed %s after %d moves", killed, moves.Load())

	waitMoves(moves.Load() + 30)
	if _, err := docker(ctx, "network", "disconnect", s.project+"_db", cut); err != nil {
		fail("%v", err)
	}
	cutAt := time.Now()
	t.Logf("cut %s off the database after %d moves", cut, moves.Load())
	// The cut-off replica says it is not ready (its /readyz pings the database).
	var notReady string
	for notReady == "" {
		if out, err := docker(ctx, "exec", cut, "/azuld", "health"); err != nil {
			notReady = strings.TrimSpace(out)
		} else if time.Since(cutAt) > 30*time.Second {
			fail("%s still reports ready 30 s after losing the database: %s", cut, out)
		} else {
			time.Sleep(200 * time.Millisecond)
		}
	}
	t.Logf("%s reports not ready %s after the cut: %s", cut, time.Since(cutAt).Round(time.Millisecond), notReady)
	// Caddy asks /readyz every second (3 s timeout): after that, and the
	// requests that were under way, the replica must get no more.
	time.Sleep(5 * time.Second)
	q := time.Now()
	quiet.Store(&q)
	quietMoves := moves.Load()

	select {
	case <-done:
	case err := <-errs:
		fail("a client gave up: %v", err)
	case <-ctx.Done():
		fail("the load did not end in time (%d moves)", moves.Load())
	}
	select {
	case err := <-errs:
		t.Fatalf("a client gave up: %v", err)
	default:
	}
	after := moves.Load() - quietMoves
	t.Logf("%d games, %d moves acknowledged (%d after the faults), %d requests sent again by the clients", len(games), moves.Load(), after, retries.Load())
	if after < 20 {
		t.Fatalf("only %d moves after the faults: too few to tell where the requests went", after)
	}

	// With one replica killed and another cut off, replies by mail still
	// reach the one left: three, so that a proxy that sent connections
	// round robin to all three regardless of their health would most
	// likely hit the cut-off one (it defers mail with 451) or the dead one.
	for range 3 {
		cur, err := c.game(ctx, mailGame.ID)
		if err != nil {
			t.Fatal(err)
		}
		replyByMail(ctx, t, s, c, cur, byMail)
	}

	// No acknowledged move is lost: every acknowledged event is in the log,
	// at its version and global position.
	for _, g := range games {
		log, err := c.events(ctx, g.id)
		if err != nil {
			t.Fatal(err)
		}
		byVersion := map[int64]record{}
		for _, r := range log {
			byVersion[r.Version] = r
		}
		for _, r := range g.acked {
			if byVersion[r.Version] != r {
				t.Errorf("game %s: acknowledged event %+v, the log has %+v", g.id, r, byVersion[r.Version])
			}
		}
	}

	// Requests after the quiet point went to the healthy replicas only.
	if got := apiRequests(ctx, t, cut, q); len(got) != 0 {
		t.Errorf("%s, cut off from the database, was sent %d API requests after it reported not ready:\n%s",
			cut, len(got), strings.Join(got, "\n"))
	}
	if got := apiRequests(ctx, t, healthy, q); len(got) == 0 {
		t.Errorf("%s was sent no API request after the faults: the log check sees nothing", healthy)
	} else {
		t.Logf("%s served %d API requests after the faults, %s none", healthy, len(got), cut)
	}

	// Mail: none twice; games played wholly after the faults got all
	// theirs (a delivery held by the killed or the cut-off replica when it
	// went may wait for the rescue of stuck jobs, an hour later).
	var complete []*played
	for _, g := range games {
		if g.created.After(q) {
			complete = append(complete, g)
		}
	}
	if len(complete) < workers {
		t.Fatalf("%d games started after the faults, want %d", len(complete), workers)
	}
	ms := waitMails(t, s.mailpit, 2*time.Minute, func(ms []mail) bool {
		for _, g := range complete {
			// The seat not to move gets the start mail; the one to move
			// hears of the start in its first turn mail.
			if k := count(t, ms, g.id); k["started"] != 1 || k["over"] != 2 {
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
	if turns == 0 {
		t.Error("no turn mail at all")
	}
	t.Logf("%d mails caught, %d of them turn mails, none twice", len(ms), turns)
}

// apiRequests counts the API requests (not the health checks) that a
// container began at or after since, and returns their log lines. A
// request's log line is written when it ends: one that began earlier and
// waited for the database is not traffic sent after since.
func apiRequests(ctx context.Context, t *testing.T, container string, since time.Time) []string {
	t.Helper()
	out, err := docker(ctx, "logs", "--since", since.UTC().Format(time.RFC3339Nano), container)
	if err != nil {
		t.Fatalf("logs of %s: %v", container, err)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Time       time.Time `json:"time"`
			Msg        string    `json:"msg"`
			Route      string    `json:"route"`
			DurationMS float64   `json:"duration_ms"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil || line.Msg != "request" || !strings.HasPrefix(line.Route, "/v1/") {
			continue
		}
		began := line.Time.Add(-time.Duration(line.DurationMS * float64(time.Millisecond)))
		if !began.Before(since) {
			lines = append(lines, sc.Text())
		}
	}
	if err := sc.Err(); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("logs of %s: %v", container, err)
	}
	return lines
}
