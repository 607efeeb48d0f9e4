package migrations_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/azuld/azuld/migrations"
)

// TestServerRoleCannotRewriteHistory: the server's role appends and reads
// events but is refused, by privileges and not only by the triggers, any
// change of them, and cannot remove the triggers; it reads and writes the
// other tables, including those later migrations create.
func TestServerRoleCannotRewriteHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pg.NewDatabase(t)
	if err := migrations.Up(ctx, url); err != nil {
		t.Fatal(err)
	}
	// A table created after 000008 by the owner, as later migrations do.
	owner, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer owner.Close(ctx)
	if _, err := owner.Exec(ctx, `CREATE TABLE later_table (id bigserial PRIMARY KEY, note text)`); err != nil {
		t.Fatal(err)
	}

	conn, err := pgx.Connect(ctx, pg.ServerRoleURL(t, url))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var super bool
	if err := conn.QueryRow(ctx, `SELECT rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&super); err != nil || super {
		t.Fatalf("the server's role is a superuser (%v)", err)
	}

	allowed := []string{
		`INSERT INTO events (stream_id, version, type, schema_version, data, meta) VALUES ('00000000-0000-0000-0000-000000000001', 1, 'x', 1, '{}', '{}')`,
		`SELECT count(*) FROM events`,
		`INSERT INTO streams (id) VALUES ('00000000-0000-0000-0000-000000000001')`,
		`UPDATE streams SET created_at = now()`,
		`INSERT INTO deliveries (job_id, attempt, kind, target, outcome) VALUES (1, 1, 'mail', 'a@example.org', 'sent')`,
		`DELETE FROM deliveries WHERE created_at < now() - interval '1 day'`,
		`INSERT INTO river_queue (name, created_at, metadata, updated_at) VALUES ('q', now(), '{}', now())`,
		`DELETE FROM river_queue`,
		`INSERT INTO later_table (note) VALUES ('x')`,
		`UPDATE later_table SET note = 'y'`,
		`DELETE FROM later_table`,
		`SELECT version FROM schema_migrations`,
	}
	for _, q := range allowed {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Errorf("the server's role was refused %q: %v", q, err)
		}
	}
	// Refused by privileges (a trigger refusing would say "events are
	// immutable" instead), or because the role owns nothing.
	refused := map[string]string{
		`UPDATE events SET type = 'y'`:                              "permission denied",
		`DELETE FROM events`:                                        "permission denied",
		`TRUNCATE events`:                                           "permission denied",
		`DROP TRIGGER events_immutable_rows ON events`:              "must be owner",
		`ALTER TABLE events DISABLE TRIGGER events_immutable_table`: "must be owner",
		`DROP TABLE events`:                                         "must be owner",
		`CREATE OR REPLACE FUNCTION reject_event_change() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`: "permission denied for schema",
		`CREATE TABLE mine (id int)`:                "permission denied",
		`UPDATE schema_migrations SET dirty = true`: "permission denied",
		`TRUNCATE games`:                            "permission denied",
	}
	for q, want := range refused {
		_, err := conn.Exec(ctx, q)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42501" || !strings.Contains(pgErr.Message, want) {
			t.Errorf("%q: got %v, want insufficient privilege (%s)", q, err, want)
		}
	}
	var n int
	if err := owner.QueryRow(ctx, `SELECT count(*) FROM events`).Scan(&n); err != nil || n != 1 {
		t.Errorf("events after the refusals: %d (%v), want the one appended", n, err)
	}
}

// TestServerRoleSetUp: setting the role up again changes its password,
// and the owner's own role is not accepted as the server's.
func TestServerRoleSetUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pg.NewDatabase(t)
	if err := migrations.Up(ctx, url); err != nil {
		t.Fatal(err)
	}
	first := pg.ServerRoleURL(t, url)
	conn, err := pgx.Connect(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	var name string
	if err := conn.QueryRow(ctx, `SELECT current_user`).Scan(&name); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	second, err := migrations.EnsureServerRole(ctx, url, name, "another-password")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := pgx.Connect(ctx, first); err == nil {
		c.Close(ctx)
		t.Error("the old password still works")
	}
	c, err := pgx.Connect(ctx, second)
	if err != nil {
		t.Fatalf("the new password: %v", err)
	}
	c.Close(ctx)

	var owner string
	o, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close(ctx)
	if err := o.QueryRow(ctx, `SELECT current_user`).Scan(&owner); err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.EnsureServerRole(ctx, url, owner, "x"); err == nil {
		t.Error("the owner's role was accepted as the server's")
	}
}
