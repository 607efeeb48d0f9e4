package pgtest

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/migrations"
)

// ServerRoleURL creates a login role in the server's group (migrations.AppRole)
// for t, as an operator would, and returns ownerURL connecting as it: the
// rights azuld serves with. The role is dropped when t ends.
func (h *Harness) ServerRoleURL(t testing.TB, ownerURL string) string {
	t.Helper()
	name := "azt_server_" + strings.ToLower(rand.Text())
	serverURL, err := migrations.EnsureServerRole(context.Background(), ownerURL, name, rand.Text())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := h.connect(context.Background())
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), "DROP ROLE "+pgx.Identifier{name}.Sanitize()); err != nil {
			t.Errorf("drop role %s: %v", name, err)
		}
	})
	return serverURL
}
