package api

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/account"
	"github.com/azuld/azuld/api/web"
	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// problemLanguages are the languages every problem is read in: the four
// of players and the pseudo-locale, which shows text that bypassed the
// catalogue.
var problemLanguages = append(slices.Clone(i18n.Languages), i18n.Pseudo)

// allowedWords may stand outside the catalogue's ⟦ ⟧ in a problem: the
// API's own names (fields, headers, paths, values) quoted in details are
// inside the message, so nothing is allowed here but what a client sent.
var allowedWords = []string{"xyz", "fr", "Mars", "Olympus", "bogus", "nope", "application", "xml", "x", "number", "array"}

// problemCase provokes one problem.
type problemCase struct {
	name   string
	status int
	typ    string
	// call sends the request with an Accept-Language header; nil: the
	// problem is built directly (those no request of a test can cause).
	call func(lang header) response
	// direct is the problem for cases without a request.
	direct error
}

// problemCases are requests that provoke every problem type and the
// details of the API's own checks, on one game.
func problemCases(t *testing.T, env *testEnv) []problemCase {
	ana, ben, cy := env.register(t, "Ana"), env.register(t, "Ben"), env.register(t, "Cy")
	g := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seed: strings.Repeat("5a", 32), Visibility: play.VisibilityPublic,
		Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	// Rated, so without take-backs.
	rated := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	base := "/v1/games/" + g.ID
	mover, waiter := ana, ben
	if g.ToAct[0] == 1 {
		mover, waiter = ben, ana
	}
	legal := mover.getGame(g.ID).LegalMoves[0].Move
	open := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {}}})
	other := 1 - g.ToAct[0]
	colour := absentColour(t, env, g.ID, 0)
	anon := env.anonymous(t)
	xml := header{"Content-Type", "application/xml"}
	big := `{"ruleset":"` + strings.Repeat("x", DefaultBodyLimit) + `"}`
	req := func(c *client, method, path string, body any, extra ...header) func(header) response {
		return func(lang header) response { return c.call(method, path, body, append(extra, lang)...) }
	}
	tooMany := make([]play.SeatSpec, maxSeats+1)
	eve := env.register(t, "Eve")
	nobody := "00000000-0000-4000-8000-000000000000"
	inbound := header{"Authorization", "Bearer " + testInboundSecret}
	manyTypes := "/events?type=" + strings.Repeat("a,", maxTypeFilters+1)
	return []problemCase{
		{"list status", 400, ProblemBadRequest, req(anon, "GET", "/v1/games?status=x", nil), nil},
		{"query integer", 400, ProblemBadRequest, req(anon, "GET", "/v1/games?limit=0", nil), nil},
		{"unknown rule set in a list", 400, ProblemBadRequest, req(anon, "GET", "/v1/games?ruleset=nope", nil), nil},
		{"unknown JSON field", 400, ProblemBadRequest, req(ana, "POST", "/v1/games", []byte(`{"bogus":1}`)), nil},
		{"JSON syntax", 400, ProblemBadRequest, req(ana, "POST", "/v1/games", []byte(`{"ruleset":`+"\n"+`}`)), nil},
		{"JSON field type", 400, ProblemBadRequest, req(ana, "POST", "/v1/games", []byte(`{"ruleset":1}`)), nil},
		{"JSON body needed", 400, ProblemBadRequest, req(ana, "POST", "/v1/me/tokens", []byte(` `)), nil},
		{"seat of legal moves", 400, ProblemBadRequest, req(anon, "GET", base+"/legal-moves?seat=5", nil), nil},
		{"If-Match", 400, ProblemBadRequest, req(mover, "POST", base+"/moves", legal, header{"If-Match", "soon"}), nil},
		{"unknown language", 400, ProblemInvalidRequest, req(ana, "PATCH", "/v1/me", map[string]string{"language": "fr"}), nil},
		{"unknown time zone", 400, ProblemInvalidRequest, req(ana, "PATCH", "/v1/me", map[string]string{"time_zone": "Mars/Olympus"}), nil},
		{"nothing to change", 400, ProblemInvalidRequest, req(ana, "PATCH", "/v1/me", map[string]string{}), nil},
		{"bad name", 400, ProblemInvalidRequest, req(anon, "POST", "/v1/players", map[string]string{"name": " "}), nil},
		{"bad address", 400, ProblemInvalidRequest, req(anon, "POST", "/v1/players", map[string]string{"name": "Dora", "email": "dora"}), nil},
		{"registration language", 400, ProblemInvalidRequest, req(anon, "POST", "/v1/players", map[string]string{"name": "Dora", "language": "fr"}), nil},
		{"too many seats", 400, ProblemInvalidRequest, req(ana, "POST", "/v1/games", map[string]any{"ruleset": "azul-mini", "seats": tooMany}), nil},
		{"unknown rule set", 400, ProblemInvalidRequest, req(ana, "POST", "/v1/games", map[string]any{"ruleset": "nope"}), nil},
		{"invalid game", 400, ProblemInvalidRequest, req(ana, "POST", "/v1/games", map[string]any{"ruleset": "azul-mini", "seed": "x", "seats": []map[string]string{{"player": "me"}, {}}}), nil},
		{"JSON not an object", 400, ProblemBadRequest, req(ana, "POST", "/v1/games", []byte(`[1]`)), nil},
		{"JSON incomplete", 400, ProblemBadRequest, req(ana, "POST", "/v1/games", []byte(`{"ruleset":"a"`)), nil},
		{"JSON trailing", 400, ProblemBadRequest, req(ana, "POST", "/v1/games", []byte(`{} {}`)), nil},
		{"Idempotency-Key too long", 400, ProblemBadRequest, req(ana, "POST", "/v1/games", map[string]any{}, header{"Idempotency-Key", strings.Repeat("k", maxIdempotencyKey+1)}), nil},
		{"Idempotency-Key characters", 400, ProblemBadRequest, req(ana, "POST", "/v1/games", map[string]any{}, header{"Idempotency-Key", "a b"}), nil},
		{"list player", 400, ProblemBadRequest, req(anon, "GET", "/v1/games?player=x", nil), nil},
		{"cursor", 400, ProblemBadRequest, req(anon, "GET", "/v1/games?cursor="+strings.Repeat("c", 300), nil), nil},
		{"events format", 400, ProblemBadRequest, req(anon, "GET", base+"/events?format=x", nil), nil},
		{"type filters", 400, ProblemBadRequest, req(anon, "GET", base+manyTypes, nil), nil},
		{"diff range", 400, ProblemBadRequest, req(anon, "GET", base+"/diff?from=1", nil), nil},
		{"take-back moves", 400, ProblemBadRequest, req(ana, "POST", base+"/takebacks", map[string]int{"moves": 99}), nil},
		{"take-back seat", 400, ProblemBadRequest, req(ana, "POST", base+"/takebacks", map[string]int{"seat": 99}), nil},
		{"Last-Event-ID", 400, ProblemBadRequest, req(anon, "GET", base+"/stream", nil, header{"Last-Event-ID", "x"}), nil},
		{"seats differ", 400, ProblemBadRequest, req(mover, "POST", base+"/moves?seat=0", map[string]any{"seat": 1, "notation": "x"}), nil},
		{"notation fields", 400, ProblemBadRequest, req(mover, "POST", base+"/moves", map[string]any{"notation": "x", "bogus": 1}), nil},
		{"erasure with a body", 400, ProblemBadRequest, req(eve, "DELETE", "/v1/me", []byte(`{}`)), nil},
		{"analysis version", 400, ProblemBadRequest, req(ana, "GET", base+"/analysis", nil), nil},
		{"time zone form", 400, ProblemInvalidRequest, req(ana, "PATCH", "/v1/me", map[string]string{"time_zone": "Europe/Amsterdam\n"}), nil},
		{"token name", 400, ProblemInvalidRequest, req(ana, "POST", "/v1/me/tokens", map[string]string{"name": ""}), nil},
		{"webhook", 400, ProblemInvalidRequest, req(ana, "POST", "/v1/webhooks", map[string]string{"url": "ftp://x"}), nil},
		{"inbound mail without a body", 400, ProblemInvalidRequest, req(anon, "POST", "/v1/inbound/email", nil, inbound), nil},
		{"no token", 401, ProblemUnauthenticated, req(anon, "GET", "/v1/me", nil), nil},
		{"whose legal moves", 401, ProblemUnauthenticated, req(anon, "GET", base+"/legal-moves", nil), nil},
		{"not your game", 403, ProblemForbidden, req(cy, "POST", base+"/moves", legal), nil},
		{"not your seat", 403, ProblemForbidden, req(mover, "POST", base+"/moves?seat="+fmt.Sprint(other), legal), nil},
		{"join a full game", 403, ProblemForbidden, req(cy, "POST", base+"/join", nil), nil},
		{"join your own game", 403, ProblemForbidden, req(ana, "POST", "/v1/games/"+open.ID+"/join", nil), nil},
		{"join a taken seat", 403, ProblemForbidden, req(cy, "POST", "/v1/games/"+open.ID+"/join?seat=0", nil), nil},
		{"CSRF", 403, ProblemForbidden, nil, web.ErrCSRF},
		{"analysis of a running game", 403, ProblemForbidden, req(ana, "GET", base+"/analysis?version=1", nil), nil},
		{"not your turn", 403, ProblemNotYourTurn, req(waiter, "POST", base+"/moves", legal), nil},
		{"game id", 404, ProblemNotFound, req(anon, "GET", "/v1/games/xyz", nil), nil},
		{"no such game", 404, ProblemNotFound, req(anon, "GET", "/v1/games/00000000-0000-4000-8000-000000000000", nil), nil},
		{"no such route", 404, ProblemNotFound, req(anon, "GET", "/v1/nothing", nil), nil},
		{"no such token", 404, ProblemNotFound, req(ana, "DELETE", "/v1/me/tokens/00000000-0000-4000-8000-000000000000", nil), nil},
		{"no such take-back", 404, ProblemNotFound, req(anon, "GET", base+"/takebacks/99", nil), nil},
		{"take-back id", 404, ProblemNotFound, req(anon, "GET", base+"/takebacks/x", nil), nil},
		{"no such session", 404, ProblemNotFound, req(ana, "DELETE", "/v1/me/sessions/"+nobody, nil), nil},
		{"no such webhook", 404, ProblemNotFound, req(ana, "DELETE", "/v1/webhooks/"+nobody, nil), nil},
		{"stop link", 404, ProblemNotFound, req(anon, "GET", "/v1/mail/stop?token=x", nil), nil},
		{"inbound secret", 401, ProblemUnauthenticated, req(anon, "POST", "/v1/inbound/email", "From: a@b\r\n\r\nx"), nil},
		{"method", 405, ProblemMethodNotAllowed, req(anon, "PUT", "/v1/games", nil), nil},
		{"stale version", 409, ProblemVersionConflict, req(mover, "POST", base+"/moves", legal, header{"If-Match", `"1"`}), nil},
		{"body too large", 413, ProblemPayloadTooLarge, req(ana, "POST", "/v1/games", []byte(big)), nil},
		{"JSON only", 415, ProblemUnsupportedMediaType, req(ana, "POST", "/v1/games", []byte(`{}`), xml), nil},
		{"move media type", 415, ProblemUnsupportedMediaType, req(mover, "POST", base+"/moves", []byte(`{}`), xml), nil},
		{"illegal move", 422, ProblemIllegalMove, req(mover, "POST", base+"/moves", map[string]any{"type": "take", "factory": 0, "color": colour, "line": 1}), nil},
		{"malformed move", 422, ProblemMalformedMove, req(mover, "POST", base+"/moves", map[string]any{"type": "place", "star": 1}), nil},
		{"no move", 422, ProblemMalformedMove, req(mover, "POST", base+"/moves", []byte(`{"seat":0}`)), nil},
		{"move not an object", 422, ProblemMalformedMove, req(mover, "POST", base+"/moves", map[string]any{"move": 1}), nil},
		{"notation not a string", 422, ProblemMalformedMove, req(mover, "POST", base+"/moves", map[string]any{"notation": 1}), nil},
		{"notation too long", 422, ProblemMalformedMove, req(mover, "POST", base+"/moves", strings.Repeat("F1 ", maxNotation)), nil},
		{"nothing to take back", 422, ProblemNothingToTakeBack, req(ana, "POST", base+"/takebacks", nil), nil},
		{"take-backs off", 409, ProblemTakebacksOff, req(ana, "POST", "/v1/games/"+rated.ID+"/takebacks", nil), nil},
		{"hints off", 409, ProblemHintsOff, req(ana, "GET", "/v1/games/"+rated.ID+"/hint", nil), nil},
		{"rated with a seed", 400, ProblemInvalidRequest, req(ana, "POST", "/v1/games", play.CreateGame{Ruleset: "azul-mini", Seed: strings.Repeat("5a", 32),
			Rated: ptr(true), Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}}}), nil},
		{"visibility", 400, ProblemInvalidRequest, req(ana, "POST", "/v1/games", play.CreateGame{Ruleset: "azul-mini", Visibility: "friends",
			Seats: []play.SeatSpec{{Player: "me"}, {Bot: "random"}}}), nil},
		{"watch", 400, ProblemBadRequest, req(anon, "GET", "/v1/games?watch=yes", nil), nil},
		{"watch filters", 400, ProblemBadRequest, req(anon, "GET", "/v1/games?watch=1&status=open", nil), nil},
		{"bad game log", 422, ProblemBadLog, req(ana, "POST", "/v1/games/import", "not a log"), nil},
		// What no request of a test provokes on demand.
		{"idempotency key", 422, ProblemIdempotencyMismatch, nil, fmt.Errorf("move: %w", events.ErrIdempotencyMismatch)},
		{"game over", 409, ProblemGameOver, nil, engine.ErrGameOver},
		{"take-back conflict", 409, ProblemTakebackConflict, nil, fmt.Errorf("%w: take-back 4 is pending", play.ErrTakebackConflict)},
		{"rate limit", 429, ProblemRateLimited, nil, limits.Refuse(limits.Rule{Name: limits.Registrations, Limit: 5, Period: time.Hour}, limits.Decision{RetryAfter: 754 * time.Second})},
		{"rate limit, one", 429, ProblemRateLimited, nil, limits.Refuse(limits.Rule{Name: limits.Moves, Limit: 1, Period: time.Minute}, limits.Decision{RetryAfter: time.Second})},
		{"rate limit, odd period", 429, ProblemRateLimited, nil, limits.Refuse(limits.Rule{Name: limits.MailTo, Limit: 30, Period: 10 * time.Minute}, limits.Decision{RetryAfter: 3*time.Hour + 4*time.Minute})},
		{"too many tokens", 400, ProblemInvalidRequest, nil, play.Invalid(play.ErrInvalid, "too_many_tokens", "", "Count", 10)},
		{"verification limit", 429, ProblemVerificationLimit, nil, newProblem(429, ProblemVerificationLimit, "verification_limit")},
		{"already verified", 409, ProblemAlreadyVerified, nil, newProblem(409, ProblemAlreadyVerified, "already_verified")},
		{"no mail", 503, ProblemNoMail, nil, newProblem(503, ProblemNoMail, "no_mail")},
		{"rematch, game not over", 409, ProblemNotFinished, nil, newProblem(409, ProblemNotFinished, "rematch_not_finished")},
		{"join, seat kept for another", 403, ProblemForbidden, nil, newProblem(403, ProblemForbidden, "join_reserved", "Seat", num(1))},
		{"join, every free seat kept", 403, ProblemForbidden, nil, newProblem(403, ProblemForbidden, "join_all_reserved")},
		{"join, not the seat kept", 403, ProblemForbidden, nil, newProblem(403, ProblemForbidden, "join_not_your_reserved", "Seat", num(0), "Yours", num(2))},
		{"decline, nothing kept", 403, ProblemForbidden, nil, newProblem(403, ProblemForbidden, "decline_nothing")},
		{"list, invited", 400, ProblemBadRequest, nil, newProblem(400, ProblemBadRequest, "list_invited")},
		{"no address", 409, ProblemAlreadyVerified, nil, newProblem(409, ProblemAlreadyVerified, "no_address")},
		{"no accounts", 503, ProblemUnavailable, nil, newProblem(503, ProblemUnavailable, "no_accounts")},
		{"no notifier", 503, ProblemUnavailable, nil, errNoNotifier()},
		{"no streams", 503, ProblemUnavailable, nil, newProblem(503, ProblemUnavailable, "no_streams")},
		{"no inbound mail", 503, ProblemUnavailable, nil, newProblem(503, ProblemUnavailable, "inbound_off")},
		{"unreadable mail", 400, ProblemInvalidRequest, nil, newProblem(400, ProblemInvalidRequest, "inbound_unreadable")},
		{"analysis after the end", 400, ProblemInvalidRequest, nil, newProblem(400, ProblemInvalidRequest, "analysis_last", "Version", num(40), "Last", num(40))},
		{"body over the limit", 413, ProblemPayloadTooLarge, nil, newProblem(413, ProblemPayloadTooLarge, "body_limit", "Limit", num(65536))},
		{"body unreadable", 400, ProblemBadRequest, nil, newProblem(400, ProblemBadRequest, "body_unreadable")},
		{"content type unreadable", 415, ProblemUnsupportedMediaType, nil, newProblem(415, ProblemUnsupportedMediaType, "content_type_unreadable", "Type", ";;")},
		{"echo: bad request", 400, ProblemBadRequest, nil, echo.NewHTTPError(http.StatusBadRequest, "bad")},
		{"echo: too large", 413, ProblemPayloadTooLarge, nil, echo.ErrStatusRequestEntityTooLarge},
		{"echo: media type", 415, ProblemUnsupportedMediaType, nil, echo.ErrUnsupportedMediaType},
		{"echo: unauthorized", 401, ProblemUnauthenticated, nil, echo.ErrUnauthorized},
		{"no player", 404, ProblemNotFound, nil, play.Invalid(play.ErrNotFound, "no_player", "")},
		{"one token", 400, ProblemInvalidRequest, nil, play.Invalid(play.ErrInvalid, "too_many_tokens", "", "Count", 1)},
		{"invalid, a sentinel of events", 400, ProblemInvalidRequest, nil, fmt.Errorf("x: %w", events.ErrInvalid)},
		{"conflict", 409, ProblemVersionConflict, nil, events.ErrConflict},
		{"no database", 503, ProblemUnavailable, nil, newProblem(503, ProblemUnavailable, "no_database")},
		{"cancelled", 503, ProblemUnavailable, nil, context.Canceled},
		{"internal", 500, ProblemInternal, nil, errors.New("a server fault")},
	}
}

// renderedProblem is one problem as a reader got it.
type renderedProblem struct {
	Problem
	contentLanguage string
}

// TestProblemsInEveryLanguage provokes every problem type, through the
// router where a request can, in each language and in the pseudo-locale:
// the type and status never change, the title and detail are the
// reader's (no English left in Dutch, German or Italian; nothing outside
// ⟦ ⟧ in the pseudo-locale), Content-Language says which, and the
// catalogue misses nothing. The golden files testdata/problems.<lang>.txt
// are what a person reads (go test -run TestProblemsInEveryLanguage
// -update rewrites them).
func TestProblemsInEveryLanguage(t *testing.T) {
	t.Parallel()
	cat, err := i18n.New(i18n.Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnvAt(t, pg.ServerRoleURL(t, pg.NewDatabase(t)), 0, func(c *setup) { c.app.Catalogue = cat })
	cases := problemCases(t, env)
	for _, typ := range problemTypes {
		if !slices.ContainsFunc(cases, func(c problemCase) bool { return c.typ == typ }) {
			t.Errorf("no case provokes %s", typ)
		}
	}

	got := map[string][]renderedProblem{}
	for _, lang := range problemLanguages {
		for _, c := range cases {
			var rp renderedProblem
			if c.call != nil {
				res := c.call(header{"Accept-Language", lang})
				if res.Status != c.status {
					t.Fatalf("%s (%s): status %d, want %d: %s", c.name, lang, res.Status, c.status, res.Body)
				}
				rp.Problem = res.problem(t)
				rp.contentLanguage = res.Header.Get("Content-Language")
			} else {
				p := toProblem(c.direct)
				p.localize(cat.Localizer(lang, nil))
				rp.Problem, rp.contentLanguage = *p, lang
			}
			if rp.Type != c.typ || rp.Status != c.status {
				t.Errorf("%s (%s): %d %s, want %d %s", c.name, lang, rp.Status, rp.Type, c.status, c.typ)
			}
			if rp.contentLanguage != lang {
				t.Errorf("%s (%s): Content-Language %q", c.name, lang, rp.contentLanguage)
			}
			text := rp.Title + "\n" + rp.Detail
			if strings.Contains(text, "[api.") || strings.Contains(text, "[rule.") {
				t.Errorf("%s (%s): a message is missing: %s", c.name, lang, text)
			}
			if c.typ != ProblemInternal && rp.Detail == "" {
				t.Errorf("%s (%s): no detail", c.name, lang)
			}
			if lang == i18n.Pseudo {
				if words := i18n.Bypassed(text, allowedWords...); len(words) > 0 {
					t.Errorf("%s: English outside the catalogue: %v in %q", c.name, words, text)
				}
			}
			got[lang] = append(got[lang], rp)
		}
	}
	// Each language says it in its own words.
	for _, lang := range i18n.Languages[1:] {
		for i, rp := range got[lang] {
			en := got[i18n.Default][i]
			if rp.Title == en.Title || (rp.Detail != "" && rp.Detail == en.Detail) {
				t.Errorf("%s (%s) reads as in English: %q / %q", cases[i].name, lang, rp.Title, rp.Detail)
			}
		}
	}
	if missing := cat.Missing(); len(missing) > 0 {
		t.Errorf("messages missing from the catalogue: %v", missing)
	}
	for _, lang := range problemLanguages {
		var b strings.Builder
		fmt.Fprintf(&b, "# Every problem type of the API as a reader of %s gets it (TestProblemsInEveryLanguage).\n", lang)
		for i, rp := range got[lang] {
			fmt.Fprintf(&b, "\n## %s\n%d %s\ntitle:  %s\n", cases[i].name, rp.Status, strings.TrimPrefix(rp.Type, ProblemBase), rp.Title)
			if rp.Detail != "" {
				fmt.Fprintf(&b, "detail: %s\n", rp.Detail)
			}
		}
		golden(t, "problems."+lang+".txt", b.String())
	}
}

// golden compares text with a file of testdata, or writes it with
// -update.
func golden(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != text {
		t.Errorf("%s differs from what the API writes now (run with -update and read the diff):\n%s", path, text)
	}
}

// engineRuleIDs are the rule ids the engine's rule sets refuse moves
// with, read from their source so that a new rule cannot go unsaid.
func engineRuleIDs(t *testing.T) []string {
	t.Helper()
	re := regexp.MustCompile(`"((?:azul|pavilion)\.[a-z-]+)"|ruleError\("([a-z-]+)"`)
	set := map[string]bool{}
	for _, dir := range []string{"../engine/azul", "../engine/pavilion"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no engine sources in %s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				if m[1] != "" {
					set[m[1]] = true
				} else {
					set["pavilion."+m[2]] = true
				}
			}
		}
	}
	ids := make([]string, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// TestEveryRuleInEveryLanguage renders the illegal-move problem of every
// rule the engine has, in each language: a rule without its sentence
// (rule.<id>) fails here, and the golden files show them all.
func TestEveryRuleInEveryLanguage(t *testing.T) {
	t.Parallel()
	cat, err := i18n.New(i18n.Options{Pseudo: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := engineRuleIDs(t)
	if len(ids) < 30 {
		t.Fatalf("only %d rule ids found: %v", len(ids), ids)
	}
	en := map[string]string{}
	for _, lang := range problemLanguages {
		l := cat.Localizer(lang, nil)
		var b strings.Builder
		fmt.Fprintf(&b, "# The detail of an illegal move, per rule, for a reader of %s (TestEveryRuleInEveryLanguage).\n\n", lang)
		for _, id := range ids {
			p := toProblem(fmt.Errorf("decide: %w", &engine.RuleError{Rule: id, Ref: "docs/rules.md §2", Detail: "English detail"}))
			p.localize(l)
			if p.Rule != id || p.Type != ProblemIllegalMove {
				t.Errorf("%s: problem %+v", id, p)
			}
			if !cat.Has("rule."+id) || p.Detail == "" || strings.Contains(p.Detail, "English detail") {
				t.Errorf("%s (%s): detail %q", id, lang, p.Detail)
			}
			switch lang {
			case i18n.Default:
				en[id] = p.Detail
			case i18n.Pseudo:
				if words := i18n.Bypassed(p.Detail); len(words) > 0 {
					t.Errorf("%s: English outside the catalogue: %v", id, words)
				}
			default:
				if p.Detail == en[id] {
					t.Errorf("%s (%s) reads as in English: %q", id, lang, p.Detail)
				}
			}
			fmt.Fprintf(&b, "%s: %s\n", id, p.Detail)
		}
		if lang != i18n.Pseudo {
			golden(t, "rules."+lang+".txt", b.String())
		}
	}
	if missing := cat.Missing(); len(missing) > 0 {
		t.Errorf("messages missing from the catalogue: %v", missing)
	}
}

// TestLanguageAndZoneChoices: PATCH /v1/me takes only the four languages
// and IANA zones, and refuses the rest in the request's language, listing
// the languages, changing nothing; registration takes its language from
// the body or Accept-Language; a client that sends no Accept-Language
// reads problems in its player's language.
func TestLanguageAndZoneChoices(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana := env.register(t, "Ana")
	before := ana.profile()
	if before.Language != "en" || before.TimeZone != "UTC" {
		t.Fatalf("a player registered without a language: %+v", before)
	}

	// An unknown language: 400 in German, listing the four, nothing changed.
	res := ana.call(http.MethodPatch, "/v1/me", map[string]string{"language": "fr", "name": "Anna"}, header{"Accept-Language", "de-CH, de;q=0.9, en;q=0.5"})
	p := res.mustStatus(t, http.StatusBadRequest).problem(t)
	if p.Type != ProblemInvalidRequest || res.Header.Get("Content-Language") != "de" {
		t.Errorf("unknown language: %s %q", p.Type, res.Header.Get("Content-Language"))
	}
	for _, want := range []string{"Die Sprache fr gibt es hier nicht", "en (English)", "nl (Nederlands)", "de (Deutsch)", "it (Italiano)"} {
		if !strings.Contains(p.Detail, want) {
			t.Errorf("detail %q lacks %q", p.Detail, want)
		}
	}
	if after := ana.profile(); after != before {
		t.Errorf("a refused change changed the profile: %+v, was %+v", after, before)
	}

	// Zones: an IANA name is taken, another is refused in Dutch.
	var prof account.Profile
	ana.call(http.MethodPatch, "/v1/me", map[string]string{"time_zone": "Europe/Amsterdam"}).mustStatus(t, http.StatusOK).decode(t, &prof)
	if prof.TimeZone != "Europe/Amsterdam" {
		t.Errorf("zone not taken: %+v", prof)
	}
	for _, zone := range []string{"Mars/Olympus", "Local", "", "Europe/Amsterdam\n"} {
		res := ana.call(http.MethodPatch, "/v1/me", map[string]string{"time_zone": zone}, header{"Accept-Language", "nl"})
		p := res.mustStatus(t, http.StatusBadRequest).problem(t)
		if !strings.Contains(p.Detail, "IANA") || !strings.Contains(p.Detail, "tijdzone") {
			t.Errorf("zone %q: detail %q", zone, p.Detail)
		}
	}
	if got := ana.profile(); got.TimeZone != "Europe/Amsterdam" {
		t.Errorf("a refused zone changed the profile: %+v", got)
	}

	// Without Accept-Language, the player's own language; with it, the header.
	ana.call(http.MethodPatch, "/v1/me", map[string]string{"language": "nl"}).mustStatus(t, http.StatusOK)
	res = ana.call(http.MethodGet, "/v1/games/xyz", nil)
	if p := res.mustStatus(t, http.StatusNotFound).problem(t); res.Header.Get("Content-Language") != "nl" || !strings.Contains(p.Detail, "Er is geen spel xyz") {
		t.Errorf("no Accept-Language, a Dutch player: %q %q", res.Header.Get("Content-Language"), p.Detail)
	}
	res = ana.call(http.MethodGet, "/v1/games/xyz", nil, header{"Accept-Language", "it"})
	if p := res.problem(t); res.Header.Get("Content-Language") != "it" || !strings.Contains(p.Detail, "Non esiste la partita xyz") {
		t.Errorf("Accept-Language it, a Dutch player: %q %q", res.Header.Get("Content-Language"), p.Detail)
	}
	res = env.anonymous(t).call(http.MethodGet, "/v1/games/xyz", nil, header{"Accept-Language", "fr-FR, ja"})
	if res.Header.Get("Content-Language") != "en" {
		t.Errorf("no language of ours asked for: Content-Language %q", res.Header.Get("Content-Language"))
	}

	// Registration: the body's language, else Accept-Language's best match.
	register := func(body map[string]string, accept string) (*client, response) {
		t.Helper()
		res := env.anonymous(t).call(http.MethodPost, "/v1/players", body, header{"Accept-Language", accept})
		if res.Status != http.StatusCreated {
			return nil, res
		}
		var reg struct {
			Token string `json:"token"`
		}
		res.decode(t, &reg)
		return &client{t: t, env: env, token: reg.Token}, res
	}
	if c, _ := register(map[string]string{"name": "Ilaria"}, "it-IT,it;q=0.9,en;q=0.8"); c == nil || c.profile().Language != "it" {
		t.Error("Accept-Language it-IT did not make an Italian player")
	}
	if c, _ := register(map[string]string{"name": "Dirk", "language": "de", "time_zone": "Europe/Berlin"}, "it"); c == nil ||
		c.profile().Language != "de" || c.profile().TimeZone != "Europe/Berlin" {
		t.Error("the body's language and zone were not taken")
	}
	if c, _ := register(map[string]string{"name": "Xavier"}, "fr"); c == nil || c.profile().Language != "en" {
		t.Error("a language of no catalogue did not default to English")
	}
	for _, body := range []map[string]string{{"name": "Zed", "language": "fr"}, {"name": "Zed", "time_zone": "Mars/Olympus"}, {"name": "Zed", "language": ""}} {
		if c, res := register(body, "en"); c != nil || res.Status != http.StatusBadRequest {
			t.Errorf("registration %v: %d", body, res.Status)
		}
	}
	var n int
	if err := env.pool.QueryRow(context.Background(), `SELECT count(*) FROM players WHERE name = 'Zed'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("refused registrations made %d players (%v)", n, err)
	}
}

// TestEveryProblemMessageExists reads the API's sources for the message
// ids of its problems (newProblem(…, "id") and the codes of
// play.Invalid in play and account) and checks both ways against the
// catalogue: no id the code uses is missing (it would only show at run
// time, as "[api.detail.id]"), and no message is left unused.
func TestEveryProblemMessageExists(t *testing.T) {
	t.Parallel()
	cat, err := i18n.New(i18n.Options{})
	if err != nil {
		t.Fatal(err)
	}
	scan := func(glob string, re *regexp.Regexp, prefix string, into map[string]bool) {
		files, err := filepath.Glob(glob)
		if err != nil || len(files) == 0 {
			t.Fatalf("no sources %s: %v", glob, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range re.FindAllStringSubmatch(string(src), -1) {
				into[prefix+m[1]] = true
			}
		}
	}
	used := map[string]bool{}
	scan("*.go", regexp.MustCompile(`newProblem\([^"]*?"([a-z_]+)"`), "api.detail.", used)
	scan("*.go", regexp.MustCompile(`"api\.detail\.([a-z_]+)"`), "api.detail.", used)
	scan("*.go", regexp.MustCompile(`unavailable\("([a-z_]+)"`), "api.detail.", used)
	for _, dir := range []string{"../play/*.go", "../account/*.go"} {
		scan(dir, regexp.MustCompile(`Invalid\([^,]+,\s*"([a-z_]+)"`), "api.input.", used)
	}
	// validID's codes are "no_"+kind.
	used["api.input.no_token"], used["api.input.no_session"] = true, true
	delete(used, "api.input.no_")
	if len(used) < 60 {
		t.Fatalf("only %d message ids found in the sources: the scan is broken", len(used))
	}
	for id := range used {
		if !cat.Has(id) {
			t.Errorf("the code uses %s, which the catalogue lacks", id)
		}
	}
	for _, id := range cat.IDs() {
		if (strings.HasPrefix(id, "api.detail.") || strings.HasPrefix(id, "api.input.")) && !used[id] {
			t.Errorf("%s is in the catalogue but no code uses it", id)
		}
	}
}
