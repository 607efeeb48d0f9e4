package notify_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/notify/webhooksig"
	"github.com/azuld/azuld/play"
)

// TestFailedBatchLeavesNoJob: the outbox's jobs commit with the read
// models and the follower's checkpoint, or not at all: a batch that fails
// after enqueueing its jobs leaves none, and the batch comes again.
func TestFailedBatchLeavesNoJob(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	e := newEnvWithConfig(t, 0, func(c *notify.Config) { c.Metrics = reg })
	ctx := context.Background()
	// The turn inbox refuses its rows while the switch is on: the batch
	// fails at its last round trip, after its jobs were inserted.
	if _, err := e.Pool.Exec(ctx, `CREATE TABLE inbox_refused (on_ boolean NOT NULL);
		INSERT INTO inbox_refused VALUES (true);
		CREATE FUNCTION refuse_inbox() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF (SELECT on_ FROM inbox_refused) THEN RAISE EXCEPTION 'the turn inbox refuses rows'; END IF;
			RETURN NEW;
		END $$;
		CREATE TRIGGER refuse_inbox BEFORE INSERT ON turn_inbox FOR EACH ROW EXECUTE FUNCTION refuse_inbox();`); err != nil {
		t.Fatal(err)
	}
	ana, ben := e.Register("Ana"), e.Register("Ben")
	if _, err := mailtest.CreateAccepted(ctx, e.Svc, ana, play.CreateGame{Ruleset: "summer-pavilion", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}}, ""); err != nil {
		t.Fatal(err)
	}
	failed := func() float64 {
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() == "azuld_outbox_failed_batches_total" {
				return f.GetMetric()[0].GetCounter().GetValue()
			}
		}
		return 0
	}
	eventually.True(t, 30*time.Second, func() bool { return failed() >= 2 }, "the follower's batch never failed")
	// The game's creation (version 1) writes no inbox row, and its batch
	// may have gone through alone with its invitation mail; the
	// acceptance (version 2) starts the game, and no job of it may stay.
	var jobs, inbox int
	if err := e.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM river_job WHERE (args->>'version')::bigint >= 2),
		(SELECT count(*) FROM turn_inbox)`).Scan(&jobs, &inbox); err != nil {
		t.Fatal(err)
	}
	if jobs != 0 || inbox != 0 {
		var kinds []string
		_ = e.Pool.QueryRow(ctx, `SELECT coalesce(array_agg(kind || ' ' || args::text), '{}') FROM river_job`).Scan(&kinds)
		t.Fatalf("after failed batches: %d jobs of the game's start, %d inbox rows: %q", jobs, inbox, kinds)
	}
	// Once the inbox takes rows again, the same batch enqueues its mails.
	if _, err := e.Pool.Exec(ctx, `UPDATE inbox_refused SET on_ = false`); err != nil {
		t.Fatal(err)
	}
	e.CaughtUp(t)
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'azuld_mail' AND (args->>'version')::bigint >= 2`).Scan(&jobs); err != nil || jobs == 0 {
		t.Fatalf("no mail jobs after the batch went through (%v)", err)
	}
}

// TestCrashDuringDeliveryLosesNothing stops the worker while the relay
// holds a delivery in DATA; a new worker delivers every mail.
func TestCrashDuringDeliveryLosesNothing(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, 0)
	worker := e.NewNotifier(1)
	e.Relay.HoldDeliveries()
	e.Start(worker)

	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	e.Relay.WaitHolding(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := worker.Kill(ctx); err != nil {
		t.Fatalf("kill the worker: %v", err)
	}
	if n := len(e.Relay.All()); n != 0 {
		t.Fatalf("%d mails delivered before the crash, want none", n)
	}
	e.Relay.Release()

	e.Start(e.NewNotifier(2))
	// The held job waits for river's rescuer (see
	// TestWorkerProcessKilledMidDelivery).
	e.WaitOpeningMails(g, ana, ben, 2*time.Minute)
	e.Relay.OnceEach(t)
}

// TestSMTPRetries: a relay answering 451 gets the mail again later.
func TestSMTPRetries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.Relay.FailNext(3)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	e.TurnMail(g.ID, g.ToAct()[0], g.Version)
	// Another worker may deliver the turn mail before the last refused
	// attempt is logged: wait for the log to catch up.
	var failed int
	eventually.True(t, 10*time.Second, func() bool {
		if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM deliveries WHERE outcome = 'failed' AND detail LIKE '%451%'`).Scan(&failed); err != nil {
			t.Fatal(err)
		}
		return failed >= 3
	}, "%d failed attempts logged, want 3", eventually.Last(func() any { return failed }))
	if failed != 3 {
		t.Fatalf("%d failed attempts logged, want 3", failed)
	}
}

// hookCatcher is a bot author's webhook endpoint: it checks signatures
// and fails the first deliveries.
type hookCatcher struct {
	secret   string
	mu       sync.Mutex
	fail     int
	calls    int
	accepted []notify.WebhookPayload
	bad      []string
}

func (h *hookCatcher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls++
	if err := webhooksig.Verify([]byte(h.secret), body, r.Header.Get(webhooksig.Header), time.Now(), 5*time.Minute); err != nil {
		h.bad = append(h.bad, err.Error())
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	if h.fail > 0 {
		h.fail--
		http.Error(w, "down", http.StatusInternalServerError)
		return
	}
	var p notify.WebhookPayload
	if err := json.Unmarshal(body, &p); err != nil || r.Header.Get(notify.HeaderDelivery) != p.DeliveryID {
		h.bad = append(h.bad, "payload")
	}
	h.accepted = append(h.accepted, p)
}

func TestWebhooksSignedAndRetried(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	catcher := &hookCatcher{secret: "a-secret-of-the-bot-author", fail: 2}
	srv := httptest.NewServer(catcher)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	hook, err := e.N.RegisterWebhook(ctx, ben.ID, srv.URL+"/azul", catcher.secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.N.RegisterWebhook(ctx, ben.ID, "ftp://example.org/", ""); !errors.Is(err, notify.ErrInvalid) {
		t.Fatalf("ftp URL: %v", err)
	}
	list, err := e.N.Webhooks(ctx, ben.ID)
	if err != nil || len(list) != 1 || list[0].ID != hook.ID || list[0].Secret != "" {
		t.Fatalf("list: %+v %v", list, err)
	}
	g := e.NewPavilion(ana, ben, nil)

	var got []notify.WebhookPayload
	var calls int
	eventually.True(t, 30*time.Second, func() bool {
		catcher.mu.Lock()
		got, calls = slices.Clone(catcher.accepted), catcher.calls
		bad := slices.Clone(catcher.bad)
		catcher.mu.Unlock()
		if len(bad) > 0 {
			t.Fatalf("bad deliveries: %v", bad)
		}
		return slices.ContainsFunc(got, func(p notify.WebhookPayload) bool { return p.Event == "game_started" })
	}, "no game_started delivery; %d calls, accepted %+v", eventually.Last(func() any { return calls }), eventually.Last(func() any { return got }))
	if calls < len(got)+2 {
		t.Fatalf("%d calls for %d deliveries: the two failures were not retried", calls, len(got))
	}
	if p := got[0]; p.GameID != g.ID || p.Seat != 1 || !strings.HasSuffix(p.Links.State, "/v1/games/"+g.ID) {
		t.Fatalf("payload %+v", p)
	}
	if err := e.N.DeleteWebhook(ctx, ana.ID, hook.ID); !errors.Is(err, notify.ErrNotFound) {
		t.Fatalf("another player deleted the webhook: %v", err)
	}
	if err := e.N.DeleteWebhook(ctx, ben.ID, hook.ID); err != nil {
		t.Fatal(err)
	}
}

func TestTimeControl(t *testing.T) {
	t.Parallel()
	for _, action := range []string{"bot", "forfeit"} {
		t.Run(action, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			ana, ben := e.Register("Ana"), e.Register("Ben")
			tc := &play.TimeControl{PerMove: play.Duration(time.Hour), OnTimeout: action, RemindBefore: play.Duration(10 * time.Minute)}
			g := e.NewPavilion(ana, ben, tc)
			seat := g.ToAct()[0]
			e.TurnMail(g.ID, seat, g.Version)

			e.FireTimers(g.ID, notify.ActionRemind)
			e.Relay.Wait(t, "reminder", func(m outMail) bool { return strings.HasPrefix(m.Kind, compose.KindReminder) && m.Seat == seat })

			e.FireTimers(g.ID, notify.ActionDeadline)
			after := e.WaitVersion(g.ID, g.Version)
			recs, err := e.Svc.Events(context.Background(), g.ID, g.Version, 0)
			if err != nil {
				t.Fatal(err)
			}
			m := recs[0].Meta
			if m.Actor.Kind != "system" || m.Channel != "timeout" || m.Actor.Seat == nil || *m.Actor.Seat != seat {
				t.Fatalf("deadline event meta %+v", m)
			}
			if action == "forfeit" && (m.Notation != "resign" || after.Status != play.StatusFinished) {
				t.Fatalf("forfeit: %q, status %s", m.Notation, after.Status)
			}
			if action == "bot" && (m.Notation == "resign" || after.Status != play.StatusActive) {
				t.Fatalf("bot: %q, status %s", m.Notation, after.Status)
			}
			// The seat hears what was played for it.
			want := "the game's time control played “" + m.Notation + "” for you"
			if action == "forfeit" {
				want = "the game's time control resigned for you"
			}
			out := e.Relay.Wait(t, "time ran out", func(m outMail) bool { return m.Kind == compose.KindTimedOut && m.Seat == seat })
			if !strings.Contains(strings.Join(strings.Fields(out.Text), " "), want) {
				t.Fatalf("time-out mail lacks %q:\n%s", want, out.Text)
			}
		})
	}
}

// TestStaleTimerDoesNothing: a timer of a version the game has left.
func TestStaleTimerDoesNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	tc := &play.TimeControl{PerMove: play.Duration(time.Hour), OnTimeout: "forfeit"}
	g := e.NewPavilion(ana, ben, tc)
	// The timers of a version are written with its turn mail; the follower
	// may run behind the move, so wait for them before the game moves on.
	e.TurnMail(g.ID, g.ToAct()[0], g.Version)
	res := e.MoveFirst(g, ana, ben)
	tag, err := e.Pool.Exec(context.Background(), `
		UPDATE river_job SET scheduled_at = now(), state = 'available'
		WHERE kind = 'azuld_timeout' AND state = 'scheduled' AND (args->>'version')::bigint = $1 AND args->>'game_id' = $2`, g.Version, g.ID)
	if err != nil || tag.RowsAffected() == 0 {
		t.Fatalf("fire the stale timers: %d rows, %v", tag.RowsAffected(), err)
	}
	var left int
	eventually.True(t, 30*time.Second, func() bool {
		if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'azuld_timeout' AND (args->>'version')::bigint = $1 AND args->>'game_id' = $2 AND state <> 'completed'`, g.Version, g.ID).Scan(&left); err != nil {
			t.Fatal(err)
		}
		return left == 0
	}, "%d stale timers never ran: %s", eventually.Last(func() any { return left }), eventually.Last(func() any {
		// Read only when the wait fails: why the timers are still there.
		var states string
		_ = e.Pool.QueryRow(context.Background(), `SELECT string_agg(state::text || ' ' || coalesce(errors::text, 'no errors'), '; ') FROM river_job
			WHERE kind = 'azuld_timeout' AND (args->>'version')::bigint = $1 AND args->>'game_id' = $2 AND state <> 'completed'`, g.Version, g.ID).Scan(&states)
		return states
	}))
	if v := e.EventCount(g.ID); v != res.Version {
		t.Fatalf("a stale timer changed the game: version %d, want %d", v, res.Version)
	}
}

// TestWebhookToPrivateAddressRefused: by default a webhook may not make
// the server call into its own networks; the delivery is given up at once.
func TestWebhookToPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, 0)
	strict, err := notify.New(notify.Config{
		Pool: e.Pool, Sender: e.N.Sender(), Workers: 1,
		FetchPollInterval: 10 * time.Millisecond, RetryPolicy: notify.FixedRetry(20 * time.Millisecond),
	})
	if err != nil {
		t.Fatal(err)
	}
	e.Start(strict)
	var calls int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { mu.Lock(); calls++; mu.Unlock() }))
	t.Cleanup(srv.Close)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	if _, err := e.N.RegisterWebhook(context.Background(), ben.ID, srv.URL, ""); err != nil {
		t.Fatal(err)
	}
	e.NewPavilion(ana, ben, nil)
	var refused, open int
	eventually.True(t, 30*time.Second, func() bool {
		if err := e.Pool.QueryRow(context.Background(), `
			SELECT (SELECT count(*) FROM deliveries WHERE kind LIKE 'webhook:%' AND outcome = 'refused' AND detail LIKE '%private address%'),
			       (SELECT count(*) FROM river_job WHERE kind = 'azuld_webhook' AND state NOT IN ('cancelled', 'completed'))`).Scan(&refused, &open); err != nil {
			t.Fatal(err)
		}
		return refused > 0 && open == 0
	}, "%d refused, %d webhook jobs still open", eventually.Last(func() any { return refused }), eventually.Last(func() any { return open }))
	mu.Lock()
	defer mu.Unlock()
	if calls != 0 {
		t.Fatalf("the private endpoint was called %d times", calls)
	}
}

// TestCleanup deletes only the bookkeeping past its retention.
func TestCleanup(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, 0)
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO inbound_mails (message_id, outcome, received_at) VALUES ('old', 'refused', now() - interval '31 days'), ('new', 'refused', now())`,
		`INSERT INTO deliveries (job_id, attempt, kind, target, outcome, created_at) VALUES (1, 1, 'mail:turn', 'a@b', 'sent', now() - interval '91 days'), (2, 1, 'mail:turn', 'a@b', 'sent', now())`,
	} {
		if _, err := e.Pool.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.N.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	var inbound, deliveries int
	if err := e.Pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM inbound_mails WHERE message_id = 'new'), (SELECT count(*) FROM inbound_mails)`).Scan(&inbound, &deliveries); err != nil || inbound != 1 || deliveries != 1 {
		t.Fatalf("inbound mails left: %d new of %d (%v)", inbound, deliveries, err)
	}
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM deliveries WHERE job_id = 2`).Scan(&deliveries); err != nil || deliveries != 1 {
		t.Fatalf("recent delivery rows: %d (%v)", deliveries, err)
	}
	if err := e.Pool.QueryRow(ctx, `SELECT count(*) FROM deliveries`).Scan(&deliveries); err != nil || deliveries != 1 {
		t.Fatalf("delivery rows: %d (%v)", deliveries, err)
	}

	// Reply tokens go a month after their game ended, not while it runs.
	ana, ben := e.Register("Ana"), e.Register("Ben")
	ended, running := e.NewPavilion(ana, ben, nil), e.NewPavilion(ana, ben, nil)
	if _, err := e.Svc.Move(ctx, play.MoveRequest{GameID: ended.ID, Actor: events.Actor{Kind: "player", PlayerID: ana.ID}, Notation: "resign", Channel: "api"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Pool.Exec(ctx, `INSERT INTO mail_tokens (token_hash, game_id, seat, version) VALUES ('\x01', $1, 0, 1), ('\x02', $2, 0, 1)`, ended.ID, running.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Pool.Exec(ctx, `UPDATE games SET last_move_at = now() - interval '31 days'`); err != nil {
		t.Fatal(err)
	}
	if err := e.N.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	var left string
	if err := e.Pool.QueryRow(ctx, `SELECT string_agg(game_id::text, ',') FROM mail_tokens`).Scan(&left); err != nil || left != running.ID {
		t.Fatalf("tokens left for %q, want only the running game's (%v)", left, err)
	}
}
