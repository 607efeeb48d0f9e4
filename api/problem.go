package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/api/web"
	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// ProblemBase prefixes every problem type URI. The URIs are identifiers:
// clients compare them, they need not resolve.
const ProblemBase = "https://azuld.dev/problems/"

// Problem types. They are part of the API contract: never rename one.
// Each has a title in the catalogue, api.problem.<last segment>.
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
	// That of POST /v1/games/{id}/rematch on a game not over.
	ProblemNotFinished = ProblemBase + "game-not-finished"
	// A take-back asked in a game created without them.
	ProblemTakebacksOff = ProblemBase + "takebacks-off"
	// A hint asked in a rated game.
	ProblemHintsOff = ProblemBase + "hints-off"
)

// problemTypes are every problem type, each with its title in the
// catalogue (the tests check both).
var problemTypes = []string{
	ProblemBadRequest, ProblemInvalidRequest, ProblemUnauthenticated, ProblemForbidden,
	ProblemNotYourTurn, ProblemNotFound, ProblemMethodNotAllowed, ProblemVersionConflict,
	ProblemGameOver, ProblemPayloadTooLarge, ProblemUnsupportedMediaType, ProblemIllegalMove,
	ProblemMalformedMove, ProblemIdempotencyMismatch, ProblemUnavailable, ProblemInternal,
	ProblemTakebackConflict, ProblemNothingToTakeBack, ProblemBadLog, ProblemRateLimited,
	ProblemVerificationLimit, ProblemAlreadyVerified, ProblemNoMail, ProblemNotFinished, ProblemTakebacksOff,
	ProblemHintsOff,
}

// Problem is an RFC 9457 problem details object. The extension members
// are set only where they apply. Title and Detail are written in the
// reader's language when the problem is sent (localize); Type, Rule and
// Limit are the stable, machine-readable part and never change with the
// language.
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
	// limit or while no database answers; Limit names the limit
	// (limits.Specs).
	RetryAfter int    `json:"retry_after,omitempty"`
	Limit      string `json:"limit,omitempty"`

	// detail writes Detail for a reader (nil: no detail); about is what
	// Error says of it in logs.
	detail func(l *i18n.Localizer) string
	about  string
}

// Error makes a *Problem an error handlers can return. It is for logs,
// which are not localized: the type and the detail's message id.
func (p *Problem) Error() string {
	return fmt.Sprintf("%d %s: %s", p.Status, p.Type, p.about)
}

// titleID is the catalogue id of a problem type's title:
// api.problem.<the type's last segment>.
func titleID(typ string) string {
	return "api.problem." + strings.TrimPrefix(typ, ProblemBase)
}

// localize writes the problem's title and detail for a reader.
func (p *Problem) localize(l *i18n.Localizer) {
	p.Title = l.T(titleID(p.Type))
	if p.detail != nil {
		p.Detail = p.detail(l)
	}
}

// localized is a message argument rendered for the reader when the
// problem is written: a number in their format, a list in their words.
type localized func(l *i18n.Localizer) string

// num is a number in the reader's format.
func num[N ~int | ~int64](n N) localized {
	return func(l *i18n.Localizer) string { return l.Num(int(n)) }
}

// msg renders a catalogue message with named arguments (pairs);
// arguments of type localized are rendered for the same reader.
func msg(id string, pairs ...any) func(l *i18n.Localizer) string {
	return func(l *i18n.Localizer) string {
		args := slices.Clone(pairs)
		for i, v := range args {
			if f, ok := v.(localized); ok {
				args[i] = f(l)
			}
		}
		return l.T(id, args...)
	}
}

// newProblem builds a problem of a type whose detail is the catalogue
// message api.detail.<id> with its named arguments (pairs).
func newProblem(status int, typ, id string, pairs ...any) *Problem {
	return &Problem{Type: typ, Status: status, detail: msg("api.detail."+id, pairs...), about: id}
}

// rendered builds a problem whose detail another part of azuld writes
// for the reader (the engine's rules, the limits).
func rendered(status int, typ, about string, detail func(l *i18n.Localizer) string) *Problem {
	return &Problem{Type: typ, Status: status, detail: detail, about: about}
}

// inputDetail renders a *play.InputError: api.input.<code>, with its
// values, and the languages a player may choose (for the code language).
func inputDetail(e *play.InputError) func(l *i18n.Localizer) string {
	return func(l *i18n.Localizer) string {
		pairs := append(slices.Clone(e.Args), "Languages", languageList(l))
		return l.T("api.input."+e.Code, pairs...)
	}
}

// languageList names the languages a player may choose, each code with
// the language's own name: "en (English), nl (Nederlands), …" joined in
// the reader's words.
func languageList(l *i18n.Localizer) string {
	items := make([]string, len(i18n.Languages))
	for i, lang := range i18n.Languages {
		self := l.Catalogue().Localizer(lang, nil).T("language.self")
		items[i] = l.T("api.language_item", "Code", lang, "Name", self)
	}
	return l.List(items)
}

// toProblem maps any error a handler returns to the problem the client
// sees. Errors not recognised here are server faults (500): every kind of
// bad input must be mapped to a 4xx before it gets here. Bad input that
// says what is wrong in a code (*play.InputError) is explained in the
// reader's language; other errors of a kind get that kind's message.
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
		pr := rendered(http.StatusTooManyRequests, ProblemRateLimited, "limit "+refusal.Limit, refusal.Text)
		pr.RetryAfter, pr.Limit = refusal.RetryAfter, refusal.Limit
		return pr
	}
	var rule *engine.RuleError
	if errors.As(err, &rule) {
		pr := rendered(http.StatusUnprocessableEntity, ProblemIllegalMove, rule.Rule, msg("rule."+rule.Rule))
		pr.Rule, pr.Ref = rule.Rule, rule.Ref
		return pr
	}
	pr := kindProblem(err)
	var input *play.InputError
	if errors.As(err, &input) && pr.Status < 500 {
		pr.detail, pr.about = inputDetail(input), input.Code
	}
	return pr
}

// kindProblem maps an error by its kind (the sentinel it wraps).
func kindProblem(err error) *Problem {
	var conflict *events.ConflictError
	switch {
	case errors.As(err, &conflict):
		pr := newProblem(http.StatusConflict, ProblemVersionConflict, "version_conflict",
			"Actual", num(conflict.Actual), "Expected", num(conflict.Expected))
		pr.CurrentVersion = &conflict.Actual
		return pr
	case errors.Is(err, events.ErrConflict):
		return newProblem(http.StatusConflict, ProblemVersionConflict, "conflict")
	case errors.Is(err, events.ErrIdempotencyMismatch):
		return newProblem(http.StatusUnprocessableEntity, ProblemIdempotencyMismatch, "idempotency_key_reused")
	case errors.Is(err, play.ErrUnauthenticated):
		return newProblem(http.StatusUnauthorized, ProblemUnauthenticated, "unauthenticated")
	case errors.Is(err, engine.ErrNotYourTurn):
		return newProblem(http.StatusForbidden, ProblemNotYourTurn, "not_your_turn")
	case errors.Is(err, web.ErrCSRF):
		return newProblem(http.StatusForbidden, ProblemForbidden, "csrf")
	case errors.Is(err, play.ErrForbidden):
		return newProblem(http.StatusForbidden, ProblemForbidden, "forbidden")
	case errors.Is(err, play.ErrNotFound), errors.Is(err, events.ErrNotFound):
		return newProblem(http.StatusNotFound, ProblemNotFound, "not_found")
	case errors.Is(err, play.ErrTakebacksOff):
		return newProblem(http.StatusConflict, ProblemTakebacksOff, "takebacks_off")
	case errors.Is(err, play.ErrHintsOff):
		return newProblem(http.StatusConflict, ProblemHintsOff, "hints_off")
	case errors.Is(err, play.ErrTakebackConflict):
		return newProblem(http.StatusConflict, ProblemTakebackConflict, "takeback_conflict")
	case errors.Is(err, play.ErrNothingToTakeBack):
		return newProblem(http.StatusUnprocessableEntity, ProblemNothingToTakeBack, "nothing_to_take_back")
	case errors.Is(err, play.ErrBadLog):
		return newProblem(http.StatusUnprocessableEntity, ProblemBadLog, "bad_game_log")
	case errors.Is(err, engine.ErrGameOver):
		return newProblem(http.StatusConflict, ProblemGameOver, "game_over")
	case errors.Is(err, engine.ErrBadCommand):
		return newProblem(http.StatusUnprocessableEntity, ProblemMalformedMove, "malformed_move")
	case errors.Is(err, play.ErrInvalid), errors.Is(err, projections.ErrInvalid), errors.Is(err, events.ErrInvalid):
		return newProblem(http.StatusBadRequest, ProblemInvalidRequest, "invalid")
	case errors.Is(err, events.ErrOutcomeUnknown):
		// Before the context's errors: a request cancelled while its
		// commit was in flight does not know what it did either.
		return unavailable("outcome_unknown")
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return newProblem(http.StatusServiceUnavailable, ProblemUnavailable, "cancelled")
	case events.Unavailable(err):
		return unavailable("no_database")
	}
	return &Problem{Type: ProblemInternal, Status: http.StatusInternalServerError, about: "internal"}
}

// unavailable is the 503 of a request no primary database answered (a
// replica cut off from it, a fail-over under way; see events.Unavailable):
// the same request can succeed on another replica or a few seconds later,
// which Retry-After says.
func unavailable(id string) *Problem {
	pr := newProblem(http.StatusServiceUnavailable, ProblemUnavailable, id)
	pr.RetryAfter = events.RetryAfterSeconds
	return pr
}

// fromHTTPError maps echo's own errors (router 404/405, body limit 413,
// binding 400/415) to problems. Their English messages are not shown:
// each status has its message in the catalogue.
func fromHTTPError(he *echo.HTTPError) *Problem {
	switch he.Code {
	case http.StatusNotFound:
		return newProblem(he.Code, ProblemNotFound, "no_route")
	case http.StatusMethodNotAllowed:
		return newProblem(he.Code, ProblemMethodNotAllowed, "method_not_allowed")
	case http.StatusRequestEntityTooLarge:
		return newProblem(he.Code, ProblemPayloadTooLarge, "body_too_large")
	case http.StatusUnsupportedMediaType:
		return newProblem(he.Code, ProblemUnsupportedMediaType, "unsupported_media_type")
	case http.StatusUnauthorized:
		return newProblem(he.Code, ProblemUnauthenticated, "unauthenticated")
	}
	if he.Code >= 400 && he.Code < 500 {
		return newProblem(he.Code, ProblemBadRequest, "bad_request")
	}
	return &Problem{Type: ProblemInternal, Status: http.StatusInternalServerError, about: "internal"}
}

// writeProblem sends a problem as application/problem+json, its title
// and detail in the reader's language (Content-Language names it).
func writeProblem(c echo.Context, l *i18n.Localizer, p *Problem) error {
	if p.RequestID == "" {
		p.RequestID = c.Response().Header().Get(echo.HeaderXRequestID)
	}
	if p.Status == http.StatusServiceUnavailable && p.RetryAfter <= 0 {
		// Every 503 says when to ask again (see retryAfterOn503).
		p.RetryAfter = events.RetryAfterSeconds
	}
	p.localize(l)
	body, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("encode problem: %w", err)
	}
	h := c.Response().Header()
	h.Set("Content-Language", l.Lang())
	h.Add(echo.HeaderVary, "Accept-Language")
	if p.Status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="azuld"`)
	}
	if p.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(p.RetryAfter))
	}
	if c.Request().Method == http.MethodHead {
		return c.NoContent(p.Status)
	}
	return c.Blob(p.Status, "application/problem+json", body)
}

// retryAfterOn503 gives every 503 a Retry-After, whoever writes it (a
// problem, a web page, a handler that timed out during a fail-over): a
// client told the server is unavailable must also be told when to ask
// again, or it either gives up or hammers a replica that is failing over.
// A handler's own Retry-After is kept.
func retryAfterOn503(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		res := c.Response()
		res.Before(func() {
			if res.Status == http.StatusServiceUnavailable && res.Header().Get("Retry-After") == "" {
				res.Header().Set("Retry-After", strconv.Itoa(events.RetryAfterSeconds))
			}
		})
		return next(c)
	}
}
