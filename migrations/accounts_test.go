package migrations_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/azuld/azuld/migrations"
)

// TestAccountsMigrationKeepsTokens migrates a database that has players
// with one token each (before 000016) and checks that every token still
// authenticates as its player, named "registration", and that going down
// again gives each player back a working token.
func TestAccountsMigrationKeepsTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := pg.NewDatabase(t)
	src, err := iofs.New(os.DirFS("."), ".")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	db := stdlib.OpenDB(*cfg)
	driver, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	if err != nil {
		t.Fatal(err)
	}
	// A migrator that can stop at a version: the package's own only goes
	// all the way up or down.
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", driver)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Migrate(14); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	hash := func(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }
	var ana string
	if err := conn.QueryRow(ctx, `INSERT INTO players (name, email, token_hash) VALUES ('Ana', 'ana@example.org', $1) RETURNING id::text`, hash("azt_ana")).Scan(&ana); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO players (name, email, token_hash) VALUES ('Bo', '', $1)`, hash("azt_bo")); err != nil {
		t.Fatal(err)
	}

	if err := migrations.Up(ctx, url); err != nil {
		t.Fatal(err)
	}
	var owner, name, lang, zone string
	err = conn.QueryRow(ctx, `SELECT t.player_id::text, t.name, p.language, p.time_zone FROM api_tokens t JOIN players p ON p.id = t.player_id
		WHERE t.hash = $1 AND t.revoked_at IS NULL`, hash("azt_ana")).Scan(&owner, &name, &lang, &zone)
	if err != nil || owner != ana || name != "registration" || lang != "en" || zone != "UTC" {
		t.Fatalf("Ana's token after the migration: %s %s %s %s, %v", owner, name, lang, zone, err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM api_tokens`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d tokens, want 2 (%v)", n, err)
	}

	// Down to 14: Ana's token is hers again; Bo, whose only token is
	// revoked, gets a hash nobody holds.
	if _, err := conn.Exec(ctx, `UPDATE api_tokens SET revoked_at = now() WHERE hash = $1`, hash("azt_bo")); err != nil {
		t.Fatal(err)
	}
	if err := m.Migrate(14); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, `SELECT id::text FROM players WHERE token_hash = $1`, hash("azt_ana")).Scan(&owner); err != nil || owner != ana {
		t.Fatalf("Ana's token after going down: %s, %v", owner, err)
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM players WHERE token_hash = $1`, hash("azt_bo")).Scan(&n); err != nil || n != 0 {
		t.Fatalf("Bo's revoked token works again after going down (%d, %v)", n, err)
	}
}
