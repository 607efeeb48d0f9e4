package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	neturl "net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/internal/eventually"
)

// ownedDatabase sets up a database as docs/configuration.md ("Database
// roles") tells an operator to: an owner who is no superuser and cannot
// create roles, and the azuld_app group made by a superuser. It returns
// the owner's URL.
func ownedDatabase(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, pg.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	suffix := strings.ToLower(rand.Text())
	owner, db, password := "azt_owner_"+suffix, "azt_owned_"+suffix, rand.Text()
	var create string
	if err := admin.QueryRow(ctx, `SELECT format('CREATE ROLE %I LOGIN PASSWORD %L', $1::text, $2::text)`, owner, password).Scan(&create); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		create,
		"CREATE DATABASE " + db + " OWNER " + owner,
		`DO $$ BEGIN CREATE ROLE azuld_app NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		admin, err := pgx.Connect(ctx, pg.AdminURL())
		if err != nil {
			t.Error(err)
			return
		}
		defer admin.Close(ctx)
		for _, q := range []string{"DROP DATABASE " + db + " WITH (FORCE)", "DROP ROLE " + owner} {
			if _, err := admin.Exec(ctx, q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
	u, err := neturl.Parse(pg.AdminURL())
	if err != nil {
		t.Fatal("the admin URL does not parse")
	}
	u.User, u.Path = neturl.UserPassword(owner, password), "/"+db
	return u.String()
}

// historyWarning is what serve logs when its role could rewrite events.
const historyWarning = "may change or delete events"

// TestServeAsServerRole: azuld migrate takes the owner's URL, the server
// runs as a member of azuld_app (migrating at start with the owner's URL,
// or with none when the schema is up to date) and plays a game against a
// bot to its end (its job workers move the bots); only a server that could
// rewrite history is warned.
func TestServeAsServerRole(t *testing.T) {
	t.Parallel()
	owner := ownedDatabase(t)
	// A superuser creates the server's login role, as docs/configuration.md
	// says.
	ou, _ := neturl.Parse(owner)
	au, _ := neturl.Parse(pg.AdminURL())
	au.Path = ou.Path
	server := pg.ServerRoleURL(t, au.String())

	// The server's role cannot migrate, and says what to do.
	var out syncBuffer
	serve := &process{getenv: envOf(map[string]string{"AZUL_DATABASE_URL": server, "AZUL_HTTP_ADDR": "127.0.0.1:0"}), stdout: &out, stderr: &out}
	if code := serve.run(t.Context(), []string{"serve"}); code != 1 || !strings.Contains(out.String(), "AZUL_MIGRATE_DATABASE_URL") {
		t.Fatalf("serve on an empty database as the server's role: exit %d\n%s", code, out.String())
	}
	out = syncBuffer{}
	ownerOnly := &process{getenv: envOf(map[string]string{"AZUL_MIGRATE_DATABASE_URL": owner, "AZUL_HTTP_ADDR": "127.0.0.1:0"}), stdout: &out, stderr: &out}
	if code := ownerOnly.run(t.Context(), []string{"migrate"}); code != 0 {
		t.Fatalf("migrate with the owner's URL: %d\n%s", code, out.String())
	}
	// The owner's URL alone does not serve.
	out = syncBuffer{}
	if code := ownerOnly.run(t.Context(), []string{"serve"}); code != 1 || !strings.Contains(out.String(), "AZUL_DATABASE_URL is not set") {
		t.Fatalf("serve with only the owner's URL: exit %d\n%s", code, out.String())
	}

	for _, env := range []map[string]string{
		{"AZUL_DATABASE_URL": server, "AZUL_MIGRATE_DATABASE_URL": owner, "AZUL_HTTP_ADDR": "127.0.0.1:0"},
		{"AZUL_DATABASE_URL": server, "AZUL_HTTP_ADDR": "127.0.0.1:0"},
	} {
		r := startServe(t, env)
		status, body := r.call(t, http.MethodPost, "/v1/players", "", `{"name":"Ana"}`)
		if status != http.StatusCreated {
			t.Fatalf("register: %d %s", status, body)
		}
		var reg struct {
			Token string `json:"token"`
		}
		_ = json.Unmarshal(body, &reg)
		status, body = r.call(t, http.MethodPost, "/v1/games", reg.Token, `{"ruleset":"azul-mini","seats":[{"bot":"random"},{"bot":"random"}]}`)
		var created struct {
			ID string `json:"id"`
		}
		if status != http.StatusCreated || json.Unmarshal(body, &created) != nil {
			t.Fatalf("create a game of bots: %d %s", status, body)
		}
		// The job workers play it, move by move.
		eventually.True(t, time.Minute, func() bool {
			status, body = r.call(t, http.MethodGet, "/v1/games/"+created.ID, "", "")
			return strings.Contains(string(body), `"status":"finished"`)
		}, "a game of bots did not play to its end within a minute: %d %s",
			eventually.Last(func() any { return status }), eventually.Last(func() any { return body }))
		if code := r.stop(t); code != 0 {
			t.Fatalf("exit code %d:\n%s", code, r.log)
		}
		if strings.Contains(r.log.String(), historyWarning) || strings.Contains(r.log.String(), `"level":"ERROR"`) {
			t.Errorf("the server as azuld_app logged:\n%s", r.log)
		}
	}

	// The owner's URL alone runs, with a warning.
	r := startServe(t, map[string]string{"AZUL_DATABASE_URL": owner, "AZUL_HTTP_ADDR": "127.0.0.1:0"})
	if code := r.stop(t); code != 0 {
		t.Fatalf("exit code %d:\n%s", code, r.log)
	}
	if !strings.Contains(r.log.String(), historyWarning) {
		t.Errorf("no warning for a server that owns the schema:\n%s", r.log)
	}
}
