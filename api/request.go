package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/api/web"
	"github.com/azuld/azuld/engine/jsonstrict"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// authenticate returns the player of the request's bearer token, or of
// its web session cookie when it sends no Authorization (a state-changing
// request with the cookie must carry the page's X-CSRF-Token).
func (s *Server) authenticate(c echo.Context) (play.Player, error) {
	if r, ok := c.Get(callerKey).(caller); ok && (r.p != nil || r.err != nil) {
		// Looked up already (by the game check): once per request, so
		// the call counts once against the limits.
		if r.err != nil {
			return play.Player{}, r.err
		}
		if !r.limited {
			r.limited = true
			c.Set(callerKey, r)
			if err := s.limitAccount(c, limits.APICalls, *r.p); err != nil {
				return play.Player{}, err
			}
		}
		return *r.p, nil
	}
	p, err := s.authenticated(c)
	c.Set(playerKey, p.ID)
	return p, err
}

func (s *Server) authenticated(c echo.Context) (play.Player, error) {
	token, ok := bearerToken(c.Request())
	if !ok && c.Request().Header.Get(echo.HeaderAuthorization) == "" && web.HasSession(c.Request()) {
		p, found, err := s.web.Authenticate(c.Request())
		if err != nil {
			return p, err
		}
		if found {
			c.Set(sessionKey, true)
			return p, s.limitAccount(c, limits.APICalls, p)
		}
	}
	if !ok {
		return play.Player{}, newProblem(http.StatusUnauthorized, ProblemUnauthenticated, "unauthenticated")
	}
	p, err := s.verifyToken(c, token)
	if err != nil {
		return play.Player{}, err
	}
	return p, s.limitAccount(c, limits.APICalls, p)
}

// optionalPlayer authenticates the request when it carries a token. A
// token that is sent but wrong is an error, never silently ignored; a
// session cookie that is no longer valid reads as a visitor.
func (s *Server) optionalPlayer(c echo.Context) (*play.Player, error) {
	if r, ok := c.Get(callerKey).(caller); ok {
		return r.p, r.err
	}
	p, limited, err := s.lookUpPlayer(c)
	c.Set(callerKey, caller{p: p, err: err, limited: limited})
	return p, err
}

// lookUpPlayer is optionalPlayer's look-up; limited says whether the
// call was counted against the account's limit (a token's was).
func (s *Server) lookUpPlayer(c echo.Context) (*play.Player, bool, error) {
	if c.Request().Header.Get(echo.HeaderAuthorization) == "" {
		if !web.HasSession(c.Request()) {
			return nil, false, nil
		}
		p, found, err := s.web.Authenticate(c.Request())
		if err != nil || !found {
			return nil, false, err
		}
		c.Set(playerKey, p.ID)
		c.Set(sessionKey, true)
		return &p, false, nil
	}
	p, err := s.authenticate(c)
	if err != nil {
		return nil, true, err
	}
	return &p, true, nil
}

// sessionKey marks a request whose caller was authenticated by a web
// session cookie (a page's script), not by a token.
const sessionKey = "azuld.session"

// channelOf is how an authenticated request came, for the events it
// appends: "web" when a page's session authenticated it, "cli" for the
// command line (its User-Agent), "api" for any other token holder. It is
// read after authenticate, from the way the caller was authenticated, so
// a token sent alongside a cookie counts as the API.
func channelOf(c echo.Context) string {
	if viaSession, _ := c.Get(sessionKey).(bool); viaSession {
		return "web"
	}
	if strings.HasPrefix(c.Request().Header.Get("User-Agent"), "azul-cli") {
		return "cli"
	}
	return "api"
}

// bearerToken reads "Authorization: Bearer <token>" (scheme
// case-insensitive).
func bearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get(echo.HeaderAuthorization)
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// gameID reads and checks the {id} path parameter. A malformed id names
// no game: 404, like an unknown one.
func gameID(c echo.Context) (string, error) {
	id := c.Param("id")
	if u, err := uuid.Parse(id); err != nil || len(id) != 36 || u.String() != strings.ToLower(id) {
		return "", newProblem(http.StatusNotFound, ProblemNotFound, "game_id", "ID", truncate(id, 64))
	}
	return strings.ToLower(id), nil
}

// readBody reads the request body within the body limit.
func readBody(c echo.Context) ([]byte, error) {
	if c.Request().Body == nil {
		return nil, nil
	}
	body, err := io.ReadAll(c.Request().Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, newProblem(http.StatusRequestEntityTooLarge, ProblemPayloadTooLarge,
				"body_limit", "Limit", num(tooLarge.Limit))
		}
		return nil, newProblem(http.StatusBadRequest, ProblemBadRequest, "body_unreadable")
	}
	return body, nil
}

// mediaType is the request's content type without parameters, lower case
// ("" when absent).
func mediaType(c echo.Context) (string, error) {
	ct := c.Request().Header.Get(echo.HeaderContentType)
	if ct == "" {
		return "", nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", newProblem(http.StatusUnsupportedMediaType, ProblemUnsupportedMediaType, "content_type_unreadable", "Type", truncate(ct, 64))
	}
	return mt, nil
}

// isJSONType accepts application/json and its +json relatives.
func isJSONType(mt string) bool {
	return mt == "" || mt == echo.MIMEApplicationJSON || strings.HasSuffix(mt, "+json")
}

// sniffedType is the content type a body is read as. A body sent without
// a type, or with the form type that "curl -d" sends by default, is JSON
// when it looks like a JSON object, else text.
func sniffedType(mt string, body []byte) string {
	if mt != "" && mt != echo.MIMEApplicationForm {
		return mt
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] == '{' {
		return echo.MIMEApplicationJSON
	}
	return echo.MIMETextPlain
}

// decodeJSON reads a JSON request body into v. Unknown fields are refused
// so that a misspelt option is an error, not a silent default. An empty
// body is accepted when optional is true.
func decodeJSON(c echo.Context, v any, optional bool) error {
	mt, err := mediaType(c)
	if err != nil {
		return err
	}
	body, err := readBody(c)
	if err != nil {
		return err
	}
	if mt = sniffedType(mt, body); !isJSONType(mt) {
		return newProblem(http.StatusUnsupportedMediaType, ProblemUnsupportedMediaType, "json_only", "Type", truncate(mt, 64))
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if optional {
			return nil
		}
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "json_needed")
	}
	return unmarshalStrict(body, v)
}

// unmarshalStrict decodes exactly one JSON value with no unknown fields.
func unmarshalStrict(body []byte, v any) error {
	if err := jsonstrict.Unmarshal(body, v); errors.Is(err, jsonstrict.ErrTrailing) {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "json_trailing")
	} else if err != nil {
		return jsonProblem(err)
	}
	return nil
}

// jsonProblem describes a JSON decoding error without echoing Go type
// names at clients: the field, the JSON type given, the byte of a syntax
// error.
func jsonProblem(err error) *Problem {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr):
		if typeErr.Field != "" {
			return newProblem(http.StatusBadRequest, ProblemBadRequest, "json_field_type",
				"Field", truncate(typeErr.Field, 64), "Given", truncate(typeErr.Value, 32))
		}
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "json_not_object", "Given", truncate(typeErr.Value, 32))
	case errors.As(err, &syntaxErr):
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "json_syntax", "Offset", num(syntaxErr.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "json_incomplete")
	}
	// encoding/json says an unknown field so (DisallowUnknownFields).
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return newProblem(http.StatusBadRequest, ProblemBadRequest, "json_unknown_field", "Field", truncate(strings.Trim(field, `"`), 64))
	}
	return newProblem(http.StatusBadRequest, ProblemBadRequest, "json_invalid")
}

// queryInt reads an optional integer query parameter within [min, max].
func queryInt(c echo.Context, name string, def, min, max int64) (int64, error) {
	text := c.QueryParam(name)
	if text == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n < min || n > max {
		return 0, newProblem(http.StatusBadRequest, ProblemBadRequest, "query_int", "Name", name, "Min", num(min), "Max", num(max))
	}
	return n, nil
}

// querySeat reads the optional ?seat= parameter.
func querySeat(c echo.Context) (*int, error) {
	if c.QueryParam("seat") == "" {
		return nil, nil
	}
	n, err := queryInt(c, "seat", 0, 0, maxSeats-1)
	if err != nil {
		return nil, err
	}
	seat := int(n)
	return &seat, nil
}

// maxSeats bounds seat numbers in requests (no rule set seats more).
const maxSeats = 8

// maxIdempotencyKey bounds the Idempotency-Key header.
const maxIdempotencyKey = 200

// idempotencyKey reads the Idempotency-Key header: printable ASCII, at
// most 200 characters (a UUID is typical).
func idempotencyKey(c echo.Context) (string, error) {
	key := c.Request().Header.Get("Idempotency-Key")
	if key == "" {
		return "", nil
	}
	if len(key) > maxIdempotencyKey {
		return "", newProblem(http.StatusBadRequest, ProblemBadRequest, "idempotency_key_long", "Max", num(maxIdempotencyKey))
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return "", newProblem(http.StatusBadRequest, ProblemBadRequest, "idempotency_key_chars")
		}
	}
	return key, nil
}

// parseIfMatch reads If-Match as the expected game version: a number,
// plain or as an entity tag ("12", W/"12"). "*" or no header means any.
func parseIfMatch(c echo.Context) (*int64, error) {
	h := strings.TrimSpace(c.Request().Header.Get("If-Match"))
	if h == "" || h == "*" {
		return nil, nil
	}
	v, ok := parseVersionTag(h)
	if !ok {
		return nil, newProblem(http.StatusBadRequest, ProblemBadRequest, "if_match")
	}
	return &v, nil
}

// parseVersionTag reads one version from an entity tag or a bare number.
func parseVersionTag(tag string) (int64, bool) {
	tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
	if len(tag) >= 2 && tag[0] == '"' && tag[len(tag)-1] == '"' {
		tag = tag[1 : len(tag)-1]
	}
	v, err := strconv.ParseInt(tag, 10, 64)
	if err != nil || v < 0 {
		return 0, false
	}
	return v, true
}

// etag is the entity tag of a game version.
func etag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// noneMatch reports whether If-None-Match names the version (the client's
// copy is current).
func noneMatch(c echo.Context, version int64) bool {
	h := c.Request().Header.Get("If-None-Match")
	if h == "" {
		return false
	}
	for _, tag := range strings.Split(h, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" {
			return true
		}
		if v, ok := parseVersionTag(tag); ok && v == version {
			return true
		}
	}
	return false
}

// truncate shortens client text quoted in a problem detail.
func truncate(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
