package migrations_test

import (
	"context"
	"os"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/azuld/azuld/migrations"
)

// TestOneAccountPerAddress migrates a database whose accounts share
// addresses (in any case) without failing: the address stays with the
// account that confirmed it, else the oldest, the others keep their
// account without it, and no new account may share an address again.
func TestOneAccountPerAddress(t *testing.T) {
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
	driver, err := pgxmigrate.WithInstance(stdlib.OpenDB(*cfg), &pgxmigrate.Config{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", driver)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Migrate(26); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	add := func(name, email string, verified bool, age string) string {
		t.Helper()
		var id string
		err := conn.QueryRow(ctx, `INSERT INTO players (name, email, email_verified, created_at)
			VALUES ($1, $2, $3, now() - $4::interval) RETURNING id::text`, name, email, verified, age).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	// Carl's first account is the oldest; the one that confirmed the
	// address is the newer one.
	carlOld := add("Carl", "carl@example.org", false, "3 days")
	carlVerified := add("Carl", "CARL@example.org", true, "2 days")
	carlNew := add("Carl", "Carl@Example.org", false, "1 day")
	// Nobody confirmed Dana's: the oldest keeps it.
	danaOld := add("Dana", "dana@example.org", false, "2 days")
	danaNew := add("Dana", "DANA@example.org", false, "1 day")
	ana := add("Ana", "ana@example.org", true, "1 day")
	noAddress1, noAddress2 := add("Bo", "", false, "1 day"), add("Eve", "", false, "1 day")

	if err := migrations.Up(ctx, url); err != nil {
		t.Fatalf("the migration failed on shared addresses: %v", err)
	}
	for id, want := range map[string]string{
		carlOld: "", carlVerified: "CARL@example.org", carlNew: "",
		danaOld: "dana@example.org", danaNew: "",
		ana: "ana@example.org", noAddress1: "", noAddress2: "",
	} {
		var email string
		if err := conn.QueryRow(ctx, `SELECT email FROM players WHERE id = $1`, id).Scan(&email); err != nil {
			t.Fatalf("player %s is gone: %v", id, err)
		}
		if email != want {
			t.Errorf("player %s: address %q, want %q", id, email, want)
		}
	}
	if _, err := conn.Exec(ctx, `INSERT INTO players (name, email) VALUES ('Mallory', 'ANA@EXAMPLE.ORG')`); err == nil {
		t.Fatal("a second account took an address in another case")
	}
	if _, err := conn.Exec(ctx, `INSERT INTO players (name, email) VALUES ('Fay', '')`); err != nil {
		t.Fatalf("accounts without an address are many: %v", err)
	}
}
