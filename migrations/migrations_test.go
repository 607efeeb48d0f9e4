package migrations_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
)

var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{}, &pg))
}

// schema lists the tables, functions and triggers of the public schema.
func schema(t *testing.T, url string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `
		SELECT 'table ' || table_name FROM information_schema.tables WHERE table_schema = 'public'
		UNION ALL SELECT 'function ' || routine_name FROM information_schema.routines WHERE routine_schema = 'public'
		UNION ALL SELECT 'trigger ' || t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
			JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal
		UNION ALL SELECT 'index ' || indexname FROM pg_indexes WHERE schemaname = 'public'`)
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func TestUpDownUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pg.NewDatabase(t)
	latest, err := migrations.Latest()
	if err != nil || latest < 3 {
		t.Fatalf("latest embedded migration %d, %v", latest, err)
	}
	if v, dirty, err := migrations.Version(ctx, url); err != nil || v != 0 || dirty {
		t.Fatalf("fresh database at version %d (dirty %v), %v", v, dirty, err)
	}
	empty := schema(t, url)

	if err := migrations.Up(ctx, url); err != nil {
		t.Fatal(err)
	}
	if v, dirty, err := migrations.Version(ctx, url); err != nil || v != latest || dirty {
		t.Fatalf("after Up: version %d (dirty %v), %v; want %d", v, dirty, err, latest)
	}
	up := schema(t, url)
	for _, want := range []string{
		"table streams", "table events", "table idempotency_keys", "table snapshots", "table consumer_checkpoints",
		"table players", "table game_secrets", "table games", "table game_seats", "table turn_inbox", "table results",
		"trigger events_immutable_rows", "trigger events_immutable_table", "index events_commit_order_idx",
		"index games_open_idx", "index games_finished_idx", "index game_seats_playing_idx", "index game_seats_by_player_idx", "index results_by_player_idx",
		"index inbound_mails_received_at", "index deliveries_created_at", "index deliveries_game",
	} {
		if !slices.Contains(up, want) {
			t.Errorf("after Up, no %s in %v", want, up)
		}
	}
	// Up again is a no-op.
	if err := migrations.Up(ctx, url); err != nil {
		t.Fatalf("second Up: %v", err)
	}
	if again := schema(t, url); !slices.Equal(again, up) {
		t.Fatalf("a second Up changed the schema")
	}

	if err := migrations.Down(ctx, url); err != nil {
		t.Fatal(err)
	}
	down := schema(t, url)
	// Only golang-migrate's own version table may stay.
	var left []string
	for _, name := range down {
		if !slices.Contains(empty, name) && !strings.Contains(name, "schema_migrations") {
			left = append(left, name)
		}
	}
	if len(left) > 0 {
		t.Fatalf("Down left %v", left)
	}
	if v, _, err := migrations.Version(ctx, url); err != nil || v != 0 {
		t.Fatalf("after Down: version %d, %v", v, err)
	}

	// And up again, to a working store.
	if err := migrations.Up(ctx, url); err != nil {
		t.Fatalf("Up after Down: %v", err)
	}
	if again := schema(t, url); !slices.Equal(again, up) {
		t.Fatalf("Up after Down built another schema:\n%v\n%v", again, up)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO events (stream_id, version, type, schema_version, data, meta)
		VALUES (gen_random_uuid(), 1, 'x', 1, '{}', '{}')`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM events`); err == nil {
		t.Fatal("events can be deleted after Up, Down, Up")
	}
}

// TestConcurrentUp starts several servers' migrations at once, as
// replicas starting together do: golang-migrate's lock lets one migrate
// and the others find nothing to do.
func TestConcurrentUp(t *testing.T) {
	t.Parallel()
	url := pg.NewDatabase(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = migrations.Up(context.Background(), url) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	latest, _ := migrations.Latest()
	if v, dirty, err := migrations.Version(context.Background(), url); err != nil || v != latest || dirty {
		t.Fatalf("version %d (dirty %v), %v", v, dirty, err)
	}
}

func TestBadURLAndCancelledContext(t *testing.T) {
	t.Parallel()
	if err := migrations.Up(context.Background(), "postgres://[::1"); err == nil {
		t.Fatal("Up accepted a malformed URL")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	url := pg.NewDatabase(t)
	if err := migrations.Up(ctx, url); !errors.Is(err, context.Canceled) {
		t.Fatalf("Up with a cancelled context: %v", err)
	}
	if v, _, err := migrations.Version(context.Background(), url); err != nil || v != 0 {
		t.Fatalf("a cancelled Up migrated to %d (%v)", v, err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := migrations.Up(ctx, "postgres://nobody@127.0.0.1:1/none?sslmode=disable&connect_timeout=2"); err == nil {
		t.Fatal("Up reached a server that does not exist")
	}
}
