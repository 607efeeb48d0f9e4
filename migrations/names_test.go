package migrations_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/migrations"
)

// TestNamesLeaveTheLog: migration 000017 removes the names that events
// written before it carry, records where (never what) in an owner-only
// audit table, and leaves the log as immutable as before.
func TestNamesLeaveTheLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pg.NewDatabase(t)
	if err := migrations.UpTo(ctx, url, 14); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const game = "01900000-0000-7000-8000-000000000001"
	const ana, ben = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
	created := `{"config":{"ruleset":"azul-mini","players":3,"options":{}},"seats":[{"seat":0,"player_id":"` + ana +
		`","name":"Ana \"Old\" Lognamed"},{"seat":1,"bot":"greedy"},{"seat":2}],"seed_commitment":"00","created_by":"` + ana + `"}`
	joined := `{"seat":2,"player_id":"` + ben + `","name":"Ben Lognamed"}`
	for _, stmt := range []string{
		`INSERT INTO streams (id) VALUES ('` + game + `')`,
		`INSERT INTO events (stream_id, version, type, schema_version, data, meta) VALUES
			('` + game + `', 1, 'game.created', 1, $1, '{"actor":{"kind":"player"}}'),
			('` + game + `', 2, 'game.joined', 1, $2, '{"actor":{"kind":"player"}}'),
			('` + game + `', 3, 'game_started', 1, '{"name":"not a player name: an engine event is left alone"}', '{"actor":{"kind":"player"}}')`,
		`INSERT INTO games (id, ruleset, options, status, version, to_act, seats, created_at, last_move_at)
			VALUES ('` + game + `', 'azul-mini', '{}', 'active', 3, '{}', '[{"seat":0,"player_id":"` + ana + `","name":"Ana \"Old\" Lognamed"},{"seat":1,"bot":"greedy","name":"greedy bot"}]', now(), now())`,
		`INSERT INTO game_seats (game_id, seat, player_id, bot, name) VALUES ('` + game + `', 0, '` + ana + `', '', 'Ana "Old" Lognamed')`,
		`INSERT INTO snapshots (stream_id, format, version, data) VALUES ('` + game + `', 1, 3, 'Lognamed')`,
	} {
		var args []any
		if strings.Contains(stmt, "$1") {
			args = []any{created, joined}
		}
		if _, err := conn.Exec(ctx, stmt, args...); err != nil {
			t.Fatal(err)
		}
	}
	if err := migrations.Up(ctx, url); err != nil {
		t.Fatal(err)
	}

	var leftover int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM events WHERE data::text LIKE '%Lognamed%')
		+ (SELECT count(*) FROM games WHERE seats::text LIKE '%Lognamed%') + (SELECT count(*) FROM snapshots)`).Scan(&leftover); err != nil {
		t.Fatal(err)
	}
	if leftover != 0 {
		t.Fatalf("%d rows still hold a name", leftover)
	}
	var data1, data2, data3 string
	if err := conn.QueryRow(ctx, `SELECT (SELECT data::text FROM events WHERE version = 1), (SELECT data::text FROM events WHERE version = 2),
		(SELECT data::text FROM events WHERE version = 3)`).Scan(&data1, &data2, &data3); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(data1, ana) || !strings.Contains(data1, `"bot": "greedy"`) || !strings.Contains(data1, `"seed_commitment": "00"`) ||
		!strings.Contains(data2, ben) || !strings.Contains(data3, "engine event is left alone") {
		t.Fatalf("the rewrite lost more than the names:\n%s\n%s\n%s", data1, data2, data3)
	}
	rows, err := conn.Query(ctx, `SELECT version, type, field FROM names_removed_audit ORDER BY version, field`)
	if err != nil {
		t.Fatal(err)
	}
	var audit []string
	for rows.Next() {
		var v int64
		var typ, field string
		if err := rows.Scan(&v, &typ, &field); err != nil {
			t.Fatal(err)
		}
		audit = append(audit, strings.Join([]string{typ, field}, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(audit, "; "); got != "game.created seats[0].name; game.joined name" {
		t.Fatalf("audit %q", got)
	}
	// The log is immutable again, and the server's role cannot read the
	// audit.
	if _, err := conn.Exec(ctx, `UPDATE events SET data = '{}' WHERE version = 1`); err == nil || !strings.Contains(err.Error(), "immutable") {
		t.Fatalf("an UPDATE of events after the migration: %v", err)
	}
	app, err := pgx.Connect(ctx, pg.ServerRoleURL(t, url))
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close(ctx)
	if _, err := app.Exec(ctx, `SELECT count(*) FROM names_removed_audit`); err == nil {
		t.Fatal("the server's role read the audit of the rewrite")
	}
	var hasName bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM information_schema.columns WHERE table_name = 'game_seats' AND column_name = 'name')`).Scan(&hasName); err != nil || hasName {
		t.Fatalf("game_seats.name still there (%v, %v)", hasName, err)
	}
}
