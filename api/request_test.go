package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/azuld/azuld/events"
)

func newContext(method, target, contentType, body string) echo.Context {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set(echo.HeaderContentType, contentType)
	}
	return echo.New().NewContext(req, httptest.NewRecorder())
}

func TestParseVersionTag(t *testing.T) {
	t.Parallel()
	good := map[string]int64{`12`: 12, `"12"`: 12, `W/"7"`: 7, ` "0" `: 0}
	for in, want := range good {
		if v, ok := parseVersionTag(in); !ok || v != want {
			t.Errorf("parseVersionTag(%q) = %d, %v; want %d", in, v, ok, want)
		}
	}
	for _, in := range []string{``, `"`, `"-1"`, `abc`, `"12`, `1e3`, `"1", "2"`, `99999999999999999999`} {
		if _, ok := parseVersionTag(in); ok {
			t.Errorf("parseVersionTag(%q) accepted", in)
		}
	}
}

func TestNoneMatch(t *testing.T) {
	t.Parallel()
	c := newContext(http.MethodGet, "/", "", "")
	c.Request().Header.Set("If-None-Match", `"3", "5"`)
	if !noneMatch(c, 5) || noneMatch(c, 4) {
		t.Error("If-None-Match list not read")
	}
	c.Request().Header.Set("If-None-Match", `*`)
	if !noneMatch(c, 9) {
		t.Error("* must match any version")
	}
}

func TestIdempotencyKeyValidation(t *testing.T) {
	t.Parallel()
	for key, ok := range map[string]bool{
		"0f8c2d8e-5b9a-4a7e-9e8e-3c9d1b2a4f6e": true,
		"retry-1":                              true,
		"has space":                            false,
		"nul\x00byte":                          false,
		"é":                                    false,
		strings.Repeat("k", 201):               false,
	} {
		c := newContext(http.MethodPost, "/", "", "")
		c.Request().Header.Set("Idempotency-Key", key)
		got, err := idempotencyKey(c)
		if (err == nil) != ok || (ok && got != key) {
			t.Errorf("idempotencyKey(%q) = %q, %v", key, got, err)
		}
	}
}

func TestParseMoveBodyForms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, ct, body string
		move           string // canonical JSON of the move, or ""
		notation       string
		seat           int // -1: none
	}{
		{"move json", "application/json", `{"type":"take","factory":2,"color":"red","line":3}`, `{"color":"red","factory":2,"line":3,"type":"take"}`, "", -1},
		{"move json with seat", "application/json", `{"type":"tile","line":2,"column":4,"seat":1}`, `{"column":4,"line":2,"type":"tile"}`, "", 1},
		{"notation json", "application/json; charset=utf-8", `{"notation":"F2 red 3"}`, "", "F2 red 3", -1},
		{"legal move posted back", "application/json", `{"seat":0,"move":{"type":"pass"},"notation":"pass"}`, `{"type":"pass"}`, "", 0},
		{"text plain", "text/plain", "  C blue floor\n", "", "C blue floor", -1},
		{"no content type, text", "", "F1 orange", "", "F1 orange", -1},
		{"no content type, json", "", `{"notation":"F1 orange","seat":2}`, "", "F1 orange", 2},
		{"curl -d default type, json", "application/x-www-form-urlencoded", `{"notation":"F1 orange"}`, "", "F1 orange", -1},
		{"curl -d default type, text", "application/x-www-form-urlencoded", `F1 orange`, "", "F1 orange", -1},
	}
	for _, c := range cases {
		mb, err := parseMoveBody(newContext(http.MethodPost, "/", c.ct, c.body))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.move != "" {
			var got, want any
			_ = json.Unmarshal(mb.Move, &got)
			_ = json.Unmarshal([]byte(c.move), &want)
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			if string(gb) != string(wb) {
				t.Errorf("%s: move %s, want %s", c.name, mb.Move, c.move)
			}
		} else if mb.Move != nil {
			t.Errorf("%s: unexpected move %s", c.name, mb.Move)
		}
		if mb.Notation != c.notation {
			t.Errorf("%s: notation %q, want %q", c.name, mb.Notation, c.notation)
		}
		if (c.seat < 0) != (mb.Seat == nil) || (mb.Seat != nil && *mb.Seat != c.seat) {
			t.Errorf("%s: seat %v, want %d", c.name, mb.Seat, c.seat)
		}
	}
}

func TestParseMoveBodyRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, ct, body string
		status         int
	}{
		{"empty", "application/json", "", http.StatusUnprocessableEntity},
		{"not an object", "application/json", `[1,2]`, http.StatusBadRequest},
		{"null", "application/json", `null`, http.StatusBadRequest},
		{"broken json", "application/json", `{"type":`, http.StatusBadRequest},
		{"no move", "application/json", `{"seat":1}`, http.StatusUnprocessableEntity},
		{"bad seat", "application/json", `{"notation":"F1 red","seat":-1}`, http.StatusBadRequest},
		{"seat not a number", "application/json", `{"notation":"F1 red","seat":"one"}`, http.StatusBadRequest},
		{"notation not a string", "application/json", `{"notation":5}`, http.StatusUnprocessableEntity},
		{"notation with extra fields", "application/json", `{"notation":"F1 red","line":3}`, http.StatusBadRequest},
		{"move not an object", "application/json", `{"move":"F1 red"}`, http.StatusUnprocessableEntity},
		{"long notation", "text/plain", strings.Repeat("F1 red ", 50), http.StatusUnprocessableEntity},
		{"invalid utf-8", "text/plain", "F1 \xff", http.StatusUnprocessableEntity},
		{"xml", "application/xml", `<move/>`, http.StatusUnsupportedMediaType},
		{"bad content type", "text/", "x", http.StatusUnsupportedMediaType},
	}
	for _, c := range cases {
		_, err := parseMoveBody(newContext(http.MethodPost, "/", c.ct, c.body))
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if p := toProblem(err); p.Status != c.status {
			t.Errorf("%s: status %d (%s), want %d", c.name, p.Status, p.Detail, c.status)
		}
	}
}

func TestUnmarshalStrict(t *testing.T) {
	t.Parallel()
	var v registerRequest
	if err := unmarshalStrict([]byte(`{"name":"Ana","nmae":"x"}`), &v); err == nil {
		t.Error("an unknown field must be refused")
	}
	if err := unmarshalStrict([]byte(`{"name":"Ana"} {}`), &v); err == nil {
		t.Error("trailing data must be refused")
	}
	if err := unmarshalStrict([]byte(`{"name":"Ana","email":"ana@example.org"}`), &v); err != nil || v.Name != "Ana" {
		t.Errorf("a good body was refused: %v", err)
	}
}

func TestGameIDValidation(t *testing.T) {
	t.Parallel()
	for id, ok := range map[string]bool{
		"0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f":          true,
		"0192F5E4-8A4B-7C3D-9E2F-1A2B3C4D5E6F":          true,
		"0192f5e48a4b7c3d9e2f1a2b3c4d5e6f":              false,
		"{0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f}":        false,
		"urn:uuid:0192f5e4-8a4b-7c3d-9e2f-1a2b3c4d5e6f": false,
		"x": false,
	} {
		c := newContext(http.MethodGet, "/", "", "")
		c.SetParamNames("id")
		c.SetParamValues(id)
		got, err := gameID(c)
		if (err == nil) != ok || (ok && got != strings.ToLower(id)) {
			t.Errorf("gameID(%q) = %q, %v", id, got, err)
		}
	}
}

func TestValidRequestID(t *testing.T) {
	t.Parallel()
	if !validRequestID("abc-123_X.y") || validRequestID("") || validRequestID("a b") ||
		validRequestID(strings.Repeat("a", 65)) || validRequestID("line\nbreak") {
		t.Error("request id validation is wrong")
	}
	if id := newRequestID(); len(id) != 32 || !validRequestID(id) {
		t.Errorf("generated request id %q", id)
	}
}

func TestDrainReportsNews(t *testing.T) {
	t.Parallel()
	ch := make(chan events.Notice, 4)
	if drain(ch, events.Notice{Version: 5}, 5) {
		t.Error("a notice of the version already sent is no news")
	}
	ch <- events.Notice{Version: 4}
	ch <- events.Notice{Version: 6}
	if !drain(ch, events.Notice{Version: 3}, 5) || len(ch) != 0 {
		t.Error("a later version among the pending notices is news, and all are drained")
	}
	if !drain(ch, events.Notice{Version: 0}, 5) {
		t.Error("a resync notice (version 0) is always news")
	}
	close(ch)
	if drain(ch, events.Notice{Version: 2}, 5) {
		t.Error("a closed channel adds nothing")
	}
}
