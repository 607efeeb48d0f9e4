package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// ProblemBase prefixes every problem type URI. The URIs are identifiers:
// clients compare them, they need not resolve.
const ProblemBase = "https://azuld.dev/problems/"

// Problem types. They are part of the API contract: never rename one.
const (
	ProblemBadRequest           = ProblemBase + "bad-request"
	ProblemInvalidRequest       = ProblemBase + "invalid-request"
	ProblemUnauthenticated      = ProblemBase + "unauthenticated"
	ProblemForbidden            = ProblemBase + "forbidden"
	ProblemNotYourTurn          = ProblemBase + "not-your-turn"
	ProblemNotFound             = ProblemBase + "not-found"
	ProblemMethodNotAllowed     = ProblemBase + "method-not-allowed"
	ProblemVersionConflict      = ProblemBase + "version-conflict"
	ProblemGameOver             = ProblemBase + "game-over"
	ProblemPayloadTooLarge      = ProblemBase + "payload-too-large"
	ProblemUnsupportedMediaType = ProblemBase + "unsupported-media-type"
	ProblemIllegalMove          = ProblemBase + "illegal-move"
	ProblemMalformedMove        = ProblemBase + "malformed-move"
	ProblemIdempotencyMismatch  = ProblemBase + "idempotency-key-reused"
	ProblemUnavailable          = ProblemBase + "unavailable"
	ProblemInternal             = ProblemBase + "internal"
	ProblemTakebackConflict     = ProblemBase + "takeback-conflict"
	ProblemNothingToTakeBack    = ProblemBase + "nothing-to-take-back"
	ProblemBadLog               = ProblemBase + "bad-game-log"
	ProblemRateLimited          = ProblemBase + "rate-limited"
	// Those of POST /v1/me/verification.
	ProblemVerificationLimit = ProblemBase + "verification-limit"
	ProblemAlreadyVerified   = ProblemBase + "already-verified"
	ProblemNoMail            = ProblemBase + "no-mail"
)

// problemTitles are the fixed, human titles of each type.
var problemTitles = map[string]string{
	ProblemBadRequest:           "The request is malformed",
	ProblemInvalidRequest:       "The request is invalid",
	ProblemUnauthenticated:      "A valid bearer token is required",
	ProblemForbidden:            "Not allowed",
	ProblemNotYourTurn:          "It is not this seat's turn",
	ProblemNotFound:             "Not found",
	ProblemMethodNotAllowed:     "Method not allowed",
	ProblemVersionConflict:      "The game has moved on",
	ProblemGameOver:             "The game is over",
	ProblemPayloadTooLarge:      "The request body is too large",
	ProblemUnsupportedMediaType: "Unsupported content type",
	ProblemIllegalMove:          "The move breaks a rule",
	ProblemMalformedMove:        "This is not a move of this game",
	ProblemIdempotencyMismatch:  "The idempotency key was used for another request",
	ProblemUnavailable:          "Service unavailable",
	ProblemInternal:             "Internal server error",
	ProblemTakebackConflict:     "The take-back cannot be answered now",
	ProblemNothingToTakeBack:    "There is no such move to take back",
	ProblemBadLog:               "The game log is refused",
	ProblemRateLimited:          "Too many requests",
	ProblemVerificationLimit:    "Enough links were mailed to this address today",
	ProblemAlreadyVerified:      "There is no address to confirm",
	ProblemNoMail:               "This server sends no mail",
}

// Problem is an RFC 9457 problem details object. The extension members
// are set only where they apply.
type Problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	// RequestID repeats the X-Request-ID, to quote in a bug report.
	RequestID string `json:"request_id,omitempty"`

	// Rule and Ref name the broken rule of an illegal move.
	Rule string `json:"rule,omitempty"`
	Ref  string `json:"ref,omitempty"`
	// LegalMoves are the caller's legal moves, after a rejected move.
	LegalMoves []LegalMove `json:"legal_moves,omitempty"`
	// CurrentVersion is the game's version, after a version conflict.
	CurrentVersion *int64 `json:"current_version,omitempty"`
	// RetryAfter repeats the Retry-After header's seconds, after a rate
	// limit; Limit names the limit (limits.Specs).
	RetryAfter int    `json:"retry_after,omitempty"`
	Limit      string `json:"limit,omitempty"`
}

// Error makes a *Problem an error handlers can return.
func (p *Problem) Error() string { return fmt.Sprintf("%d %s: %s", p.Status, p.Type, p.Detail) }

// newProblem builds a problem of a type with a detail.
func newProblem(status int, typ, detail string) *Problem {
	return &Problem{Type: typ, Title: problemTitles[typ], Status: status, Detail: detail}
}

// problemf builds a problem with a formatted detail.
func problemf(status int, typ, format string, args ...any) *Problem {
	return newProblem(status, typ, fmt.Sprintf(format, args...))
}

// toProblem maps any error a handler returns to the problem the client
// sees. Errors not recognised here are server faults (500): every kind of
// bad input must be mapped to a 4xx before it gets here.
func toProblem(err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return fromHTTPError(he)
	}
	var refusal *limits.Refusal
	if errors.As(err, &refusal) {
		pr := newProblem(http.StatusTooManyRequests, ProblemRateLimited, refusal.Message)
		pr.RetryAfter, pr.Limit = refusal.RetryAfter, refusal.Limit
		return pr
	}
	var rule *engine.RuleError
	if errors.As(err, &rule) {
		pr := newProblem(http.StatusUnprocessableEntity, ProblemIllegalMove, rule.Detail)
		pr.Rule, pr.Ref = rule.Rule, rule.Ref
		return pr
	}
	var conflict *events.ConflictError
	switch {
	case errors.As(err, &conflict):
		pr := problemf(http.StatusConflict, ProblemVersionConflict,
			"the game is at version %d, not %d: reload it and try again", conflict.Actual, conflict.Expected)
		pr.CurrentVersion = &conflict.Actual
		return pr
	case errors.Is(err, events.ErrConflict):
		return newProblem(http.StatusConflict, ProblemVersionConflict, "another move was appended at the same time: try again")
	case errors.Is(err, events.ErrIdempotencyMismatch):
		return newProblem(http.StatusUnprocessableEntity, ProblemIdempotencyMismatch,
			"this Idempotency-Key was already used for a different request: use a new key")
	case errors.Is(err, play.ErrUnauthenticated):
		return newProblem(http.StatusUnauthorized, ProblemUnauthenticated,
			"send Authorization: Bearer <token> with the token POST /v1/players returned")
	case errors.Is(err, engine.ErrNotYourTurn):
		return newProblem(http.StatusForbidden, ProblemNotYourTurn, cleanDetail(err))
	case errors.Is(err, play.ErrForbidden):
		return newProblem(http.StatusForbidden, ProblemForbidden, cleanDetail(err))
	case errors.Is(err, play.ErrNotFound), errors.Is(err, events.ErrNotFound):
		return newProblem(http.StatusNotFound, ProblemNotFound, cleanDetail(err))
	case errors.Is(err, play.ErrTakebackConflict):
		return newProblem(http.StatusConflict, ProblemTakebackConflict, cleanDetail(err))
	case errors.Is(err, play.ErrNothingToTakeBack):
		return newProblem(http.StatusUnprocessableEntity, ProblemNothingToTakeBack, cleanDetail(err))
	case errors.Is(err, play.ErrBadLog):
		return newProblem(http.StatusUnprocessableEntity, ProblemBadLog, cleanDetail(err))
	case errors.Is(err, engine.ErrGameOver):
		return newProblem(http.StatusConflict, ProblemGameOver, "the game is over: no more moves are accepted")
	case errors.Is(err, engine.ErrBadCommand):
		return newProblem(http.StatusUnprocessableEntity, ProblemMalformedMove, cleanDetail(err))
	case errors.Is(err, play.ErrInvalid), errors.Is(err, projections.ErrInvalid), errors.Is(err, events.ErrInvalid):
		return newProblem(http.StatusBadRequest, ProblemInvalidRequest, cleanDetail(err))
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return newProblem(http.StatusServiceUnavailable, ProblemUnavailable, "the request was cancelled or took too long: try again")
	case databaseUnreachable(err):
		return newProblem(http.StatusServiceUnavailable, ProblemUnavailable, "the database does not answer: try again")
	}
	return newProblem(http.StatusInternalServerError, ProblemInternal, "")
}

// databaseUnreachable reports a connection to the database that could not
// be made or broke (a replica cut off from it, a fail-over): the same
// request can succeed on another replica or a moment later, so it is a
// 503 a client or proxy may retry, not a server fault.
func databaseUnreachable(err error) bool {
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne)
}

// cleanDetail is the message of an error the client caused. Such errors
// describe the request, not the server, so they are safe to show.
func cleanDetail(err error) string { return err.Error() }

// fromHTTPError maps echo's own errors (router 404/405, body limit 413,
// binding 400/415) to problems.
func fromHTTPError(he *echo.HTTPError) *Problem {
	detail := ""
	if msg, ok := he.Message.(string); ok && msg != http.StatusText(he.Code) {
		detail = msg
	}
	switch he.Code {
	case http.StatusNotFound:
		if detail == "" {
			detail = "no such resource: see /openapi.json for the routes"
		}
		return newProblem(he.Code, ProblemNotFound, detail)
	case http.StatusMethodNotAllowed:
		return newProblem(he.Code, ProblemMethodNotAllowed, "this resource does not support this method (see the Allow header)")
	case http.StatusRequestEntityTooLarge:
		return newProblem(he.Code, ProblemPayloadTooLarge, "the request body exceeds the server's limit")
	case http.StatusUnsupportedMediaType:
		return newProblem(he.Code, ProblemUnsupportedMediaType, detail)
	case http.StatusUnauthorized:
		return newProblem(he.Code, ProblemUnauthenticated, detail)
	}
	if he.Code >= 400 && he.Code < 500 {
		return &Problem{Type: ProblemBadRequest, Title: http.StatusText(he.Code), Status: he.Code, Detail: detail}
	}
	return newProblem(http.StatusInternalServerError, ProblemInternal, "")
}

// writeProblem sends a problem as application/problem+json.
func writeProblem(c echo.Context, p *Problem) error {
	if p.RequestID == "" {
		p.RequestID = c.Response().Header().Get(echo.HeaderXRequestID)
	}
	body, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode problem: %w", err)
	}
	if p.Status == http.StatusUnauthorized {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="azuld"`)
	}
	if p.RetryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
	if c.Request().Method == http.MethodHead {
		return c.NoContent(p.Status)
	}
	return c.Blob(p.Status, "application/problem+json", body)
}
