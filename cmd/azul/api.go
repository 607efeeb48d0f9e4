package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/internal/apiclient"
)

// response is what every generated ...WithResponse method returns.
type response interface{ StatusCode() int }

// problemError is a problem+json answer of the API.
type problemError struct {
	p apiclient.Problem
	// body is the problem as sent, for --json.
	body []byte
	// instead, when set, is what to tell the user rather than the
	// problem: what to do about it, in the terms of this command.
	instead string
	// l is the reader's view of the catalogue; say writes a move in
	// their words (nil: as the server sent it).
	l   *i18n.Localizer
	say func(string) string
}

// Problem type URIs the exit codes depend on (api/problem.go).
const problemBase = "https://azuld.dev/problems/"

func (e *problemError) Error() string {
	if e.instead != "" {
		return e.instead
	}
	var b strings.Builder
	rule := deref(e.p.Rule)
	detail := e.detail()
	// A broken rule is said by the catalogue in the reader's language
	// when it has the rule; the server's detail otherwise (which it
	// writes in the language the request asked for).
	if rule != "" && e.l != nil && e.l.Catalogue().Has("rule."+rule) {
		detail = e.l.T("rule." + rule)
	}
	// The server writes its detail as a whole sentence in the reader's
	// language; the title only names the kind of problem, so it is said
	// only when there is no detail.
	// A broken rule keeps its title ("The move breaks a rule"): the
	// rule's sentence says which, not that the move was refused.
	switch {
	case detail == "":
		b.WriteString(e.p.Title)
	case rule != "":
		b.WriteString(e.p.Title + ": " + detail)
	default:
		b.WriteString(detail)
	}
	if rule != "" {
		ref := deref(e.p.Ref)
		if e.l == nil {
			b.WriteString(" (" + rule + ")")
		} else if ref != "" {
			b.WriteString(" " + e.l.T("cli.problem.rule_ref", "Rule", rule, "Ref", ref))
		} else {
			b.WriteString(" " + e.l.T("cli.problem.rule", "Rule", rule))
		}
	}
	if e.p.LegalMoves != nil && len(*e.p.LegalMoves) > 0 {
		b.WriteString("; ")
		if e.l != nil {
			b.WriteString(e.l.T("cli.problem.legal_moves", "Moves", groupMoves(*e.p.LegalMoves, e.say)))
		} else {
			b.WriteString(groupMoves(*e.p.LegalMoves, e.say))
		}
	}
	return b.String()
}

// sentinels are the general errors the server's details begin with,
// before the specific part ("not found: game …"); the problem's title
// already says them, in words of its own.
var sentinels = []string{
	"not found", "forbidden", "invalid request", "unknown or missing token",
	"not this seat's turn", "the game is over", "malformed command",
	"nothing to take back", "the game log is refused",
}

// detail is the problem's detail without what its title already says.
func (e *problemError) detail() string {
	d := strings.TrimSpace(deref(e.p.Detail))
	for again := true; again; {
		again = false
		for _, s := range sentinels {
			if rest, ok := strings.CutPrefix(d, s); ok && (rest == "" || strings.HasPrefix(rest, ": ")) {
				d, again = strings.TrimPrefix(rest, ": "), true
			}
		}
	}
	if strings.EqualFold(strings.TrimSuffix(d, "."), e.p.Title) {
		return ""
	}
	return d
}

// groupMoves lists moves in notation compactly, on one line: moves that
// differ only in their last word are joined ("F2 red 1/2/3/floor").
func groupMoves(moves []apiclient.LegalMove, say func(string) string) string {
	var groups []string
	prefix := "\x00"
	for _, m := range moves {
		notation := m.Notation
		if say != nil {
			notation = say(notation)
		}
		head, last := "", notation
		if i := strings.LastIndexByte(notation, ' '); i >= 0 {
			head, last = notation[:i], notation[i+1:]
		}
		if head == prefix && len(groups) > 0 {
			groups[len(groups)-1] += "/" + last
			continue
		}
		prefix = head
		groups = append(groups, notation)
	}
	return strings.Join(groups, ", ")
}

// code is the exit code of a problem.
func (e *problemError) code() int {
	switch strings.TrimPrefix(string(e.p.Type), problemBase) {
	case "illegal-move", "malformed-move", "not-your-turn", "version-conflict", "game-over",
		"takeback-conflict", "nothing-to-take-back", "takebacks-off", "hints-off", "idempotency-key-reused":
		return exitRefused
	case "unauthenticated", "forbidden":
		return exitNotAllow
	case "bad-request", "invalid-request":
		return exitUsage
	}
	return exitFailure
}

func isProblem(err error) bool {
	var pe *problemError
	return errors.As(err, &pe)
}

// mismatchError is an answer the API description does not allow.
type mismatchError struct{ detail string }

func (e *mismatchError) Error() string {
	return "the server's answer does not match its API description (" + e.detail + "): is azul older or newer than the server?"
}

// result checks a generated response: nil when it has the status want
// and its body is what the description says. Otherwise the error says
// why, with its exit code: a problem, a network failure, or a mismatch.
func (a *app) result(res response, err error, want int) error {
	if err != nil {
		return a.transportError(err)
	}
	v := reflect.ValueOf(res).Elem()
	body := v.FieldByName("Body").Bytes()
	status := res.StatusCode()
	if status == want {
		return a.checkBody(v, status, body)
	}
	if status >= 400 {
		if a.strict && jsonField(v, status) == nil {
			return &exitError{code: exitFailure, err: &mismatchError{fmt.Sprintf("status %d is not documented for this request: %s", status, body)}}
		}
		var p apiclient.Problem
		if json.Unmarshal(body, &p) == nil && p.Type != "" && p.Title != "" {
			pe := &problemError{p: p, body: body, l: a.l}
			if strings.TrimPrefix(string(p.Type), problemBase) == "unauthenticated" {
				pe.instead = a.unknownToken()
			}
			if a.jsonOut {
				_ = a.printJSON(body)
			}
			return &exitError{code: pe.code(), err: pe}
		}
	}
	return &exitError{code: exitFailure, err: errors.New(a.l.T("cli.error.status", "Status", status, "Body", firstLine(body)))}
}

// checkBody checks that a JSON body the description documents was read
// into its type; in strict mode also that it has no member the
// description lacks.
func (a *app) checkBody(v reflect.Value, status int, body []byte) error {
	f := jsonField(v, status)
	if f == nil {
		return nil
	}
	hr, _ := v.FieldByName("HTTPResponse").Interface().(*http.Response)
	if hr == nil || !isJSONType(hr.Header.Get("Content-Type")) {
		// A text answer, asked for with Accept: text/plain.
		return nil
	}
	if f.IsNil() {
		return &exitError{code: exitFailure, err: &mismatchError{fmt.Sprintf("the %d answer was not read", status)}}
	}
	if a.strict {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(reflect.New(f.Type().Elem()).Interface()); err != nil {
			return &exitError{code: exitFailure, err: &mismatchError{fmt.Sprintf("%s %s: %v", hr.Request.Method, hr.Request.URL.Path, err)}}
		}
	}
	return nil
}

// jsonField is the field of a generated response that holds the JSON
// body of a status (JSON200, ApplicationproblemJSON404, ...), nil when
// the description documents no JSON body for it.
func jsonField(v reflect.Value, status int) *reflect.Value {
	suffix := "JSON" + strconv.Itoa(status)
	t := v.Type()
	for i := range t.NumField() {
		if strings.HasSuffix(t.Field(i).Name, suffix) {
			f := v.Field(i)
			return &f
		}
	}
	return nil
}

// transportError classifies an error of the generated client: no answer
// (network, exit 4) or an answer it could not read into the documented
// type (a mismatch).
func (a *app) transportError(err error) error {
	var ue *url.Error
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return a.fail(exitFailure, "cli.error.interrupted")
	case errors.As(err, &ue), errors.As(err, &ne):
		return &exitError{code: exitNetwork, err: a.wrapf(err, "cli.error.unreachable", "Server", a.cfg.Server)}
	}
	return &exitError{code: exitFailure, err: &mismatchError{err.Error()}}
}

func firstLine(b []byte) string {
	line, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte("\n"))
	if len(line) > 200 {
		line = line[:200]
	}
	return string(line)
}

// isJSONType reports whether a Content-Type is JSON.
func isJSONType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// unknownToken says what to do when the server does not know the token
// sent (or wants one and none was).
func (a *app) unknownToken() string {
	if a.cfg.Token == "" {
		return a.l.T("cli.error.not_signed_in")
	}
	return a.l.T("cli.error.unknown_token", "Server", a.cfg.Server, "From", a.tokenFrom)
}
