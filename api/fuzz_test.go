package api

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/play"
)

var fuzzMethods = []string{
	http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete,
	http.MethodPatch, http.MethodHead, http.MethodOptions, "BREW",
}

var fuzzContentTypes = []string{
	"", "application/json", "text/plain", "application/json; charset=utf-8",
	"application/problem+json", "multipart/form-data; boundary=x", "text/plain; charset=\"", "application/xml",
}

// FuzzHandlers sends random requests (method, path, query, body, content
// type, token, If-Match, Idempotency-Key, Last-Event-ID) to the handlers
// over a real database with a game in progress. No input may produce a
// 500 or reach the panic handler; every error must be a problem. In the
// path, {game} stands for the active game and {open} for a game with a
// free seat.
func FuzzHandlers(f *testing.F) {
	env := newTestEnv(f)
	ana := env.register(f, "Ana")
	active := ana.createGame(play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: "me"}}})
	open := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion", Seats: []play.SeatSpec{{Player: "me"}, {}}})
	first := active.LegalMoves[0]

	seeds := []struct {
		method     uint8
		path       string
		body       string
		ct, auth   uint8
		ifMatch    string
		idempotent string
	}{
		{0, "/v1/games/{game}", "", 0, 1, "", ""},
		{0, "/v1/games/{game}/legal-moves?seat=1", "", 0, 0, "", ""},
		{1, "/v1/games/{game}/moves", string(first.Move), 1, 1, "", "k1"},
		{1, "/v1/games/{game}/moves", first.Notation, 2, 1, `"3"`, ""},
		{1, "/v1/games/{game}/moves?seat=9", `{"notation":"F1 red 1","seat":1}`, 1, 1, "*", ""},
		{1, "/v1/games/{game}/moves", `{"type":"take","factory":"center","color":"red","line":"floor"}`, 1, 1, "W/\"99\"", "\x00"},
		{1, "/v1/games/{game}/moves", `{"type":"tile","line":2,"column":4}`, 1, 2, "", ""},
		{1, "/v1/games/{game}/moves", `{"move":{"type":"take"},"seat":0}`, 1, 1, "", ""},
		{1, "/v1/games/{game}/moves", "\xff\xfe", 2, 1, "", ""},
		{1, "/v1/games/{open}/join", `{"seat":1}`, 1, 1, "", ""},
		{1, "/v1/games/{open}/join", `{"seat":-3}`, 1, 1, "", ""},
		{1, "/v1/games", `{"ruleset":"azul-mini","seats":[{"player":"me"},{"bot":"random"}],"seed":"00"}`, 1, 1, "", "c1"},
		{1, "/v1/games", `{"ruleset":"summer-pavilion","options":{"wild_order":["a"]},"seats":[{},{},{},{},{}]}`, 1, 1, "", ""},
		{1, "/v1/games", `{"ruleset":"azul-mini","seats":[{"player":"00000000-0000-0000-0000-000000000000"},{}],"time_control":{"per_move":"-5h"}}`, 1, 1, "", ""},
		{1, "/v1/players", `{"name":"B\u0000b","email":"b@example.org"}`, 1, 0, "", ""},
		{1, "/v1/players", `{"name":"` + strings.Repeat("x", 70000) + `"}`, 1, 0, "", ""},
		{0, "/v1/games?status=open&player=me&ruleset=azul-mini&limit=2&cursor=abc", "", 0, 1, "", ""},
		{0, "/v1/games?cursor=%00%ff", "", 0, 0, "", ""},
		{0, "/v1/games/{game}/events?after=-1&limit=99999999999999999999", "", 0, 0, "", ""},
		{0, "/v1/games/{game}/state?version=9223372036854775807", "", 0, 0, "", ""},
		{0, "/v1/games/{game}/stream", "", 0, 0, "", "5"},
		{0, "/v1/me/turns", "", 0, 3, "", ""},
		{3, "/v1/games/{game}", "", 0, 1, "", ""},
		{5, "/v1/games/{game}/moves", "", 0, 1, "", ""},
		{6, "/v1/players", "", 0, 0, "", ""},
		{0, "/v1/games/../../etc/passwd", "", 0, 0, "", ""},
		{0, "/v1/games/%zz", "", 0, 0, "", ""},
		{0, "/metrics", "", 0, 0, "", ""},
		{1, "/v1/games/{game}/takebacks", `{"moves":2,"seat":1}`, 1, 1, "", ""},
		{1, "/v1/games/{game}/takebacks/3/accept", "", 0, 1, "", ""},
		{1, "/v1/games/{game}/takebacks/99999999999999999999/decline", "", 0, 1, "", ""},
		{0, "/v1/games/{game}/events?type=tiles_taken,,game.created&seat=1&format=jsonl", "", 0, 0, "", ""},
		{0, "/v1/games/{game}/diff?from=1&to=3", "", 0, 0, "", ""},
		{0, "/v1/games/{game}/rounds", "", 0, 0, "", ""},
		{0, "/v1/games/{game}/verify", "", 0, 0, "", ""},
		{0, "/v1/games/{game}/export", "", 0, 0, "", ""},
		{1, "/v1/games/import", `{"game_id":"x","version":1,"type":"game.created","schema":1,"data":{"config":{"ruleset":"azul-mini"}}}`, 1, 1, "", ""},
		{1, "/v1/webhooks", `{"url":"https://bot.example.org/azul","secret":"0123456789abcdef"}`, 1, 1, "", ""},
		{1, "/v1/webhooks", `{"url":"javascript:alert(1)"}`, 1, 1, "", ""},
		{0, "/v1/webhooks", "", 0, 1, "", ""},
		{3, "/v1/webhooks/not-a-uuid", "", 0, 1, "", ""},
		{1, "/v1/inbound/email?to=play%2Babc@mail.test", "From: a@example.org\r\nTo: play+abc@mail.test\r\nMessage-ID: <x@y>\r\n\r\n3\r\n", 2, 3, "Bearer " + testInboundSecret, ""},
		{1, "/v1/inbound/email", "not a mail\x00\xff", 2, 3, "Bearer " + testInboundSecret, ""},
		{1, "/v1/inbound/email", "From: a@b\r\n\r\nstop", 2, 3, "Basic Zm9vOndyb25n", ""},
		{0, "/v1/mail/stop?token=abcdefgh", "", 0, 0, "", ""},
		{1, "/v1/mail/stop?token=%00", "List-Unsubscribe=One-Click", 2, 0, "", ""},
	}
	for _, s := range seeds {
		f.Add(s.method, s.path, []byte(s.body), s.ct, s.auth, s.ifMatch, s.idempotent)
	}

	f.Fuzz(func(t *testing.T, method uint8, target string, body []byte, ct, auth uint8, ifMatch, key string) {
		target = strings.NewReplacer("{game}", active.ID, "{open}", open.ID).Replace(target)
		path, query, _ := strings.Cut(target, "?")
		req := &http.Request{
			Method:     fuzzMethods[int(method)%len(fuzzMethods)],
			URL:        &url.URL{Path: path, RawQuery: query},
			Proto:      "HTTP/1.1",
			ProtoMajor: 1, ProtoMinor: 1,
			Header:        http.Header{},
			Body:          io.NopCloser(bytes.NewReader(body)),
			ContentLength: int64(len(body)),
			RemoteAddr:    "192.0.2.1:1234",
			Host:          "azuld.test",
			RequestURI:    target,
		}
		if c := fuzzContentTypes[int(ct)%len(fuzzContentTypes)]; c != "" {
			req.Header.Set("Content-Type", c)
		}
		switch auth % 4 {
		case 1:
			req.Header.Set("Authorization", "Bearer "+ana.token)
		case 2:
			req.Header.Set("Authorization", "Bearer azt_"+key)
		case 3:
			req.Header.Set("Authorization", ifMatch)
		}
		if ifMatch != "" {
			req.Header.Set("If-Match", ifMatch)
			req.Header.Set("If-None-Match", ifMatch)
		}
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
			req.Header.Set("Last-Event-ID", key)
		}
		// Streams run until the client leaves: leave soon.
		timeout := 10 * time.Second
		if strings.HasSuffix(path, "/stream") {
			timeout = 300 * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req = req.WithContext(ctx)

		rec := httptest.NewRecorder()
		env.srv.Handler().ServeHTTP(rec, req)

		if rec.Code >= 500 && !(rec.Code == http.StatusServiceUnavailable && ctx.Err() != nil) {
			t.Fatalf("%s %q: status %d: %s", req.Method, target, rec.Code, rec.Body.Bytes())
		}
		if n := counterValue(t, env.metrics, "azuld_http_panics_total", nil); n != 0 {
			t.Fatalf("%s %q reached the panic handler", req.Method, target)
		}
		if rec.Code >= 400 && req.Method != http.MethodHead {
			if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Fatalf("%s %q: status %d with content type %q", req.Method, target, rec.Code, ct)
			}
		}
	})
}
