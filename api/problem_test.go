package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

func TestToProblemMapsEveryKnownError(t *testing.T) {
	t.Parallel()
	rule := &engine.RuleError{Rule: "azul.line-holds-other-colour", Ref: "docs/rules.md §2.2", Detail: "line 3 holds blue"}
	cases := []struct {
		err    error
		status int
		typ    string
	}{
		{fmt.Errorf("decide: %w", rule), http.StatusUnprocessableEntity, ProblemIllegalMove},
		{&events.ConflictError{StreamID: "g", Expected: 3, Actual: 5}, http.StatusConflict, ProblemVersionConflict},
		{fmt.Errorf("move: %w", events.ErrConflict), http.StatusConflict, ProblemVersionConflict},
		{events.ErrIdempotencyMismatch, http.StatusUnprocessableEntity, ProblemIdempotencyMismatch},
		{play.ErrUnauthenticated, http.StatusUnauthorized, ProblemUnauthenticated},
		{fmt.Errorf("x: %w", engine.ErrNotYourTurn), http.StatusForbidden, ProblemNotYourTurn},
		{fmt.Errorf("%w: seat 2 is not yours", play.ErrForbidden), http.StatusForbidden, ProblemForbidden},
		{fmt.Errorf("%w: game x", play.ErrNotFound), http.StatusNotFound, ProblemNotFound},
		{engine.ErrGameOver, http.StatusConflict, ProblemGameOver},
		{fmt.Errorf("%w: unknown colour", engine.ErrBadCommand), http.StatusUnprocessableEntity, ProblemMalformedMove},
		{fmt.Errorf("%w: bad seed", play.ErrInvalid), http.StatusBadRequest, ProblemInvalidRequest},
		{fmt.Errorf("%w: bad cursor", projections.ErrInvalid), http.StatusBadRequest, ProblemInvalidRequest},
		{fmt.Errorf("%w: bad stream", events.ErrInvalid), http.StatusBadRequest, ProblemInvalidRequest},
		{echo.ErrNotFound, http.StatusNotFound, ProblemNotFound},
		{echo.ErrMethodNotAllowed, http.StatusMethodNotAllowed, ProblemMethodNotAllowed},
		{echo.ErrStatusRequestEntityTooLarge, http.StatusRequestEntityTooLarge, ProblemPayloadTooLarge},
		{context.Canceled, http.StatusServiceUnavailable, ProblemUnavailable},
		{errors.New("connection refused"), http.StatusInternalServerError, ProblemInternal},
	}
	// A database that cannot be reached (here: nothing listens on the port).
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	if _, err := pgconn.Connect(ctx, "postgres://azuld@"+closed+"/azuld?sslmode=disable&connect_timeout=5"); err == nil {
		t.Fatal("connected to a closed port")
	} else {
		cases = append(cases, struct {
			err    error
			status int
			typ    string
		}{fmt.Errorf("load game g: %w", err), http.StatusServiceUnavailable, ProblemUnavailable})
	}
	cat, err := i18n.New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	en := cat.Localizer("en", nil)
	for _, c := range cases {
		p := toProblem(c.err)
		p.localize(en)
		if p.Status != c.status || p.Type != c.typ || p.Title == "" || strings.HasPrefix(p.Title, "[") {
			t.Errorf("%v: got %d %s %q, want %d %s", c.err, p.Status, p.Type, p.Title, c.status, c.typ)
		}
	}
	p := toProblem(rule)
	p.localize(en)
	if p.Rule != rule.Rule || p.Ref != rule.Ref || p.Detail != "That pattern line already holds another colour: a pattern line holds one colour only." {
		t.Errorf("illegal move problem %+v does not name the rule", p)
	}
	p = toProblem(&events.ConflictError{Expected: 3, Actual: 5})
	p.localize(en)
	if p.CurrentVersion == nil || *p.CurrentVersion != 5 || p.Detail != "The game is at version 5, not 3: reload it and try again." {
		t.Errorf("conflict problem %+v does not give the current version", p)
	}
	// A server fault never shows its internals.
	p = toProblem(errors.New("password authentication failed for user x"))
	if p.localize(en); p.Detail != "" {
		t.Errorf("internal error leaked: %q", p.Detail)
	}
	if missing := cat.Missing(); len(missing) > 0 {
		t.Errorf("messages missing from the catalogue: %v", missing)
	}
}
