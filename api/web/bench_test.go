package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// benchGame is a running Summer Pavilion game against a bot, a few moves
// in, seen by its signed-in player.
func benchGame(b *testing.B) (*env, *browser, string) {
	b.Helper()
	e := newEnv(b, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	form := ana.get("/games/new")
	res := ana.post("/games/new", url.Values{"csrf": {form.csrf(b)}, "key": {"bench"}, "ruleset": {"summer-pavilion"}, "seats": {"2"}, "seat0": {"me"}, "seat1": {"bot"}, "seat1_bot": {"random"}}).must(b, http.StatusSeeOther)
	return e, ana, strings.TrimPrefix(res.Header.Get("Location"), "/games/")
}

// serve runs one request through the server's handler (no network).
func serve(b *testing.B, h http.Handler, req *http.Request, want int) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != want {
		b.Fatalf("status %d, want %d", rec.Code, want)
	}
}

// BenchmarkTablePage renders the table page for its signed-in player:
// session lookup, game load and template.
func BenchmarkTablePage(b *testing.B) {
	e, ana, id := benchGame(b)
	req := httptest.NewRequest(http.MethodGet, "/games/"+id, nil)
	req.AddCookie(&http.Cookie{Name: "azuld_session", Value: ana.cookie("azuld_session")})
	h := e.srv.Handler()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serve(b, h, req, http.StatusOK)
	}
}

// BenchmarkReplayPage renders the replay page at the first version (the
// game folded up to there).
func BenchmarkReplayPage(b *testing.B) {
	e, _, id := benchGame(b)
	req := httptest.NewRequest(http.MethodGet, "/games/"+id+"/replay?version=1", nil)
	h := e.srv.Handler()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serve(b, h, req, http.StatusOK)
	}
}

// BenchmarkStaticModule serves the entry module, and its revalidation.
func BenchmarkStaticModule(b *testing.B) {
	e := newEnv(b, false)
	h := e.srv.Handler()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/static/app.js", nil))
	etag := rec.Header().Get("ETag")
	b.Run("200", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, "/static/app.js", nil)
		for b.Loop() {
			serve(b, h, req, http.StatusOK)
		}
	})
	b.Run("304", func(b *testing.B) {
		req := httptest.NewRequest(http.MethodGet, "/static/app.js", nil)
		req.Header.Set("If-None-Match", etag)
		for b.Loop() {
			serve(b, h, req, http.StatusNotModified)
		}
	})
}

// BenchmarkPageInLanguage renders the lobby and the table page for a
// signed-in player whose account is in English, then in Dutch, side by
// side: a page in another language should cost at most 10 % more.
func BenchmarkPageInLanguage(b *testing.B) {
	e, ana, id := benchGame(b)
	h := e.srv.Handler()
	for _, lang := range benchLangs {
		if _, err := e.pool.Exec(b.Context(), `UPDATE players SET language = $1, time_zone = 'Europe/Amsterdam' WHERE name = 'Ana'`, lang); err != nil {
			b.Fatal(err)
		}
		for _, page := range []string{"/", "/games/" + id} {
			name := "lobby"
			if page != "/" {
				name = "table"
			}
			b.Run(name+"/"+lang, func(b *testing.B) {
				req := httptest.NewRequest(http.MethodGet, page, nil)
				req.AddCookie(&http.Cookie{Name: "azuld_session", Value: ana.cookie("azuld_session")})
				b.ReportAllocs()
				for b.Loop() {
					serve(b, h, req, http.StatusOK)
				}
			})
		}
	}
}

// benchLangs are the languages BenchmarkPageInLanguage compares: English
// and Dutch twice, interleaved, so the noise of a shared machine shows.
var benchLangs = []string{"en", "nl", "en", "nl", "de", "it"}
