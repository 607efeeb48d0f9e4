package events_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/internal/pgtest"
)

func TestUnavailableClassifiesALostOrDemotedPrimary(t *testing.T) {
	t.Parallel()
	pgErr := func(code string) error {
		return fmt.Errorf("append to stream x: %w", &pgconn.PgError{Severity: "ERROR", Code: code, Message: "m"})
	}
	opErr := &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"outcome unknown", fmt.Errorf("move: %w", events.ErrOutcomeUnknown), true},
		{"connection reset", fmt.Errorf("query: %w", opErr), true},
		{"refused dial", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{"EOF", fmt.Errorf("read: %w", io.EOF), true},
		{"unexpected EOF", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{"closed network connection", fmt.Errorf("write: %w", net.ErrClosed), true},
		{"closed pgx connection", fmt.Errorf("query: %w", pgconn.ErrConnClosed), true},
		{"connection exception 08006", pgErr("08006"), true},
		{"connection does not exist 08003", pgErr("08003"), true},
		{"admin shutdown 57P01", pgErr("57P01"), true},
		{"crash shutdown 57P02", pgErr("57P02"), true},
		{"cannot connect now 57P03", pgErr("57P03"), true},
		{"read-only transaction 25006", pgErr("25006"), true},
		{"too many connections 53300", pgErr("53300"), true},
		{"unique violation", pgErr("23505"), false},
		{"serialization failure", pgErr("40001"), false},
		{"syntax error", pgErr("42601"), false},
		{"query cancelled 57014", pgErr("57014"), false},
		{"version conflict", &events.ConflictError{StreamID: "x", Expected: 1, Actual: 2}, false},
		{"invalid request", fmt.Errorf("x: %w", events.ErrInvalid), false},
		{"request cancelled", context.Canceled, false},
		{"other", errors.New("boom"), false},
	} {
		if got := events.Unavailable(tc.err); got != tc.want {
			t.Errorf("%s: Unavailable(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// TestUnavailableRecognisesRealConnectErrors checks the classifier on
// the errors pgx really returns for a host that refuses and a connection
// the server ended.
func TestUnavailableRecognisesRealConnectErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	closed := closedPort(t)
	_, err := pgconn.Connect(ctx, "postgres://u:p@"+closed+"/db?sslmode=disable&connect_timeout=5")
	if err == nil || !events.Unavailable(err) {
		t.Fatalf("connect to a closed port: %v, want an error Unavailable recognises", err)
	}

	pool := newPool(t, 2)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var pid uint32
	if err := conn.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, `SELECT 1`)
	if err == nil || !events.Unavailable(err) {
		t.Fatalf("a query on a terminated session: %v, want an error Unavailable recognises", err)
	}
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// configuredPool opens a pool on url as azuld does (events.ConfigurePool);
// change, when set, then alters the configuration.
func configuredPool(t *testing.T, url string, change func(*pgxpool.Config)) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	events.ConfigurePool(cfg, url)
	if change != nil {
		change(cfg)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// setSyncStandbys sets synchronous_standby_names and waits until new
// sessions see it.
func setSyncStandbys(t *testing.T, pool *pgxpool.Pool, names string) {
	t.Helper()
	ctx := context.Background()
	if _, err := pool.Exec(ctx, fmt.Sprintf(`ALTER SYSTEM SET synchronous_standby_names = '%s'`, names)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT pg_reload_conf()`); err != nil {
		t.Fatal(err)
	}
	eventually.True(t, 2*time.Second, func() bool {
		var got string
		if err := pool.QueryRow(ctx, `SHOW synchronous_standby_names`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got == names
	}, "synchronous_standby_names did not become %q", names)
}

// TestCommitWaitingForTheStandbyIsNeverAcknowledged runs appends on a
// server whose every commit waits for a synchronous standby that never
// comes, and cancels them. PostgreSQL keeps such a commit locally; if a
// cancel request reaches the waiting backend, it even reports success,
// with a warning. Neither may come back as a success: a fail-over would
// lose the events.
func TestCommitWaitingForTheStandbyIsNeverAcknowledged(t *testing.T) {
	t.Parallel()
	url := pgtest.StartPrivateCluster(t).URL
	admin := configuredPool(t, url, nil)
	setSyncStandbys(t, admin, "nosuch")

	// As azuld connects: a cancelled context closes the connection.
	pool := configuredPool(t, url, nil)
	// As pgx may be told to: a cancelled context sends a cancel request,
	// which PostgreSQL answers with success and a warning.
	cancelling := configuredPool(t, url, func(cfg *pgxpool.Config) {
		cfg.ConnConfig.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
			return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 10 * time.Second}
		}
	})

	streams := map[string]string{}
	for _, tc := range []struct {
		name string
		pool *pgxpool.Pool
		key  string
	}{
		{"closed connection, no key", pool, ""},
		{"closed connection, with key", pool, "key-1"},
		{"cancel request, no key", cancelling, ""},
		{"cancel request, with key", cancelling, "key-2"},
	} {
		id := newStreamID()
		streams[tc.name] = id
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		res, err := events.NewStore(tc.pool).Append(ctx, events.AppendRequest{
			StreamID: id, Events: []events.NewEvent{event("created", 1)}, Meta: testMeta(0),
			IdempotencyScope: "test", IdempotencyKey: tc.key, RequestHash: "h",
		})
		cancel()
		if err == nil {
			t.Fatalf("%s: an append the standby never confirmed succeeded: %+v", tc.name, res)
		}
		if !errors.Is(err, events.ErrOutcomeUnknown) || !events.Unavailable(err) {
			t.Errorf("%s: %v, want an error wrapping ErrOutcomeUnknown", tc.name, err)
		}
	}

	// The commits were kept locally, as PostgreSQL does: the trap was
	// real. Once the standby requirement is gone they are visible, each
	// once, and a keyed retry gets the first result without a second
	// append.
	setSyncStandbys(t, admin, "")
	ctx := context.Background()
	for name, id := range streams {
		// Within, not True: the check below reports each stream and goes on.
		eventually.Within(30*time.Second, func() bool {
			return count(t, admin, `SELECT count(*) FROM events WHERE stream_id = $1`, id) != 0
		})
		if n := count(t, admin, `SELECT count(*) FROM events WHERE stream_id = $1`, id); n != 1 {
			t.Errorf("%s: %d events in the stream, want the one committed locally", name, n)
		}
	}
	res, err := events.NewStore(pool).Append(ctx, events.AppendRequest{
		StreamID: streams["cancel request, with key"], Events: []events.NewEvent{event("created", 1)}, Meta: testMeta(0),
		IdempotencyScope: "test", IdempotencyKey: "key-2", RequestHash: "h",
	})
	if err != nil || !res.Replayed || len(res.Records) != 1 || res.Records[0].Version != 1 {
		t.Fatalf("keyed retry: %+v, %v; want the first result replayed", res, err)
	}
}

// TestConnectionCutDuringAppend cuts the connection after the append's
// statement reached the server and before its answer came back: it
// committed, and the client cannot know. A keyed append is tried again and
// answered with its first result, once; an append without a key reports
// the unknown outcome.
func TestConnectionCutDuringAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := pg.NewDatabase(t)
	proxy, proxied := pgtest.ProxyFor(t, dbURL)
	store := events.NewStore(configuredPool(t, proxied, nil))
	direct := configuredPool(t, dbURL, nil)

	for _, key := range []string{"move-2", ""} {
		id := newStreamID()
		if _, err := store.Append(ctx, events.AppendRequest{StreamID: id, Events: []events.NewEvent{event("created", 1)}, Meta: testMeta(0)}); err != nil {
			t.Fatal(err)
		}
		marker := "cut-here-" + id
		cut := proxy.CutAfter([]byte(marker))
		res, err := store.Append(ctx, events.AppendRequest{
			StreamID: id, ExpectedVersion: 1, Meta: testMeta(0),
			Events:           []events.NewEvent{{Type: "moved", Schema: 1, Data: []byte(`{"tag":"` + marker + `"}`)}},
			IdempotencyScope: "test", IdempotencyKey: key, RequestHash: "h",
		})
		select {
		case <-cut:
		default:
			t.Fatalf("key %q: the connection was not cut (%+v, %v)", key, res, err)
		}
		if key != "" {
			if err != nil || !res.Replayed || len(res.Records) != 1 || res.Records[0].Version != 2 {
				t.Errorf("keyed append after a cut: %+v, %v; want version 2, replayed from the first attempt", res, err)
			}
		} else if !errors.Is(err, events.ErrOutcomeUnknown) {
			t.Errorf("append without a key after a cut: %+v, %v; want ErrOutcomeUnknown", res, err)
		}
		if n := count(t, direct, `SELECT count(*) FROM events WHERE stream_id = $1 AND version = 2 AND data->>'tag' = $2`, id, marker); n != 1 {
			t.Errorf("key %q: the event is in the log %d times at version 2, want once", key, n)
		}
		if n := count(t, direct, `SELECT count(*) FROM events WHERE stream_id = $1`, id); n != 2 {
			t.Errorf("key %q: %d events, want 2", key, n)
		}
	}
}
