package migrations

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// AppRole is the group role that migration 000008 grants the server's
// rights to: SELECT, INSERT, UPDATE and DELETE on every table (and on the
// tables of later migrations, by default privileges), except events, which
// it may only read and append to. The role the server logs in as is a
// member of it and owns nothing.
const AppRole = "azuld_app"

// EnsureServerRole makes login a role that can log in with password and
// is a member of AppRole (creating it when missing, setting its password
// otherwise), connected through ownerURL, a database migrated to 000008 or
// later whose role may create roles. It returns ownerURL with login and
// password in place of the owner's credentials.
func EnsureServerRole(ctx context.Context, ownerURL, login, password string) (string, error) {
	if login == "" || password == "" {
		return "", errors.New("set up the server's role: empty role name or password")
	}
	serverURL, err := withUser(ownerURL, login, password)
	if err != nil {
		return "", fmt.Errorf("set up the server's role: %w", err)
	}
	conn, err := pgx.Connect(ctx, ownerURL)
	if err != nil {
		return "", fmt.Errorf("set up the server's role: connect as the owner: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists, owner bool
	err = conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1), $1 = current_user`, login).Scan(&exists, &owner)
	if err != nil {
		return "", fmt.Errorf("set up the server's role %s: %w", login, err)
	}
	if owner {
		return "", fmt.Errorf("set up the server's role: %s is the owner's role, the server needs one of its own", login)
	}
	// Utility statements take no parameters: format quotes the name
	// and the password.
	verb := "CREATE"
	if exists {
		verb = "ALTER"
	}
	for _, stmt := range []struct{ format, role string }{
		{verb + ` ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD %L`, login},
		{`GRANT ` + AppRole + ` TO %I`, login},
	} {
		var sql string
		if err := conn.QueryRow(ctx, `SELECT format($1, $2::text, $3::text)`, stmt.format, stmt.role, password).Scan(&sql); err != nil {
			return "", fmt.Errorf("set up the server's role %s: %w", login, err)
		}
		if _, err := conn.Exec(ctx, sql); err != nil {
			return "", fmt.Errorf("set up the server's role %s: %w", login, err)
		}
	}
	return serverURL, nil
}

// withUser replaces the credentials of a postgres:// URL.
func withUser(rawURL, user, password string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", errors.New("the owner's database URL must be a postgres:// URL")
	}
	u.User = url.UserPassword(user, password)
	q := u.Query()
	if q.Has("user") || q.Has("password") {
		q.Del("user")
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}
