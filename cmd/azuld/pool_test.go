package main

import (
	"context"
	neturl "net/url"
	"strings"
	"testing"
	"time"
)

// TestPoolEndsAbandonedTransactions: the server's sessions end a
// transaction left idle (its client cut off from the database), so its
// locks do not hold up the moves of other replicas; a database URL may
// set another limit.
func TestPoolEndsAbandonedTransactions(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url := pg.NewDatabase(t)

	pool, err := openPool(ctx, url, &config{})
	if err != nil {
		t.Fatal(err)
	}
	var setting string
	if err := pool.QueryRow(ctx, `SHOW idle_in_transaction_session_timeout`).Scan(&setting); err != nil {
		t.Fatal(err)
	}
	pool.Close()
	if setting != "10s" {
		t.Errorf("idle_in_transaction_session_timeout = %q, want 10s", setting)
	}

	// A short limit from the URL: a transaction holding a row lock and
	// then silent is ended, and another session gets the row.
	pool, err = openPool(ctx, withParam(t, url, "idle_in_transaction_session_timeout", "300"), &config{})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, `CREATE TABLE held (id int PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO held VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	// The same key from another session waits for the first transaction,
	// which the server ends once it has been idle for 300 ms.
	start := time.Now()
	_, err = pool.Exec(ctx, `INSERT INTO held VALUES (1) ON CONFLICT DO NOTHING`)
	if err != nil {
		t.Fatalf("the second insert failed: %v", err)
	}
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Errorf("the second insert did not wait for the first transaction (%s)", waited)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM held`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("rows = %d, %v; want the second insert's 1", n, err)
	}
	if err := tx.Commit(ctx); err == nil {
		t.Fatal("the abandoned transaction committed")
	}
}

// withParam sets a connection parameter in a URL or keyword/value string.
func withParam(t *testing.T, conn, key, value string) string {
	t.Helper()
	if !strings.HasPrefix(conn, "postgres://") && !strings.HasPrefix(conn, "postgresql://") {
		return conn + " " + key + "=" + value
	}
	u, err := neturl.Parse(conn)
	if err != nil {
		t.Fatal("the database URL does not parse")
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}
