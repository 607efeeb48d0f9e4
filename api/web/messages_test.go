package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// messagesLink is the address of the scripts' messages a table page
// links to.
func messagesLink(t testing.TB, p page) string {
	t.Helper()
	for _, n := range find(p.doc(t), func(n *html.Node) bool { id, _ := attr(n, "id"); return n.Data == "link" && id == "i18n" }) {
		if href, _ := attr(n, "href"); href != "" {
			return href
		}
	}
	t.Fatalf("the page links no messages file:\n%s", p.Body)
	return ""
}

// The table's words are a static file per language, not a block inlined
// in every page: its address carries its content hash and it is cached
// for good; each language has its own; a browser holding it gets 304.
func TestMessagesAreACachedFile(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	token := ana.register("Ana", "ana@example.org").token(t)
	id := ana.createGame(token, `{"ruleset": "azul-mini", "seats": [{"player": "me"}, {"bot": "random"}]}`)

	urls := map[string]string{}
	for _, lang := range []string{"en", "nl", "de", "it"} {
		visitor := e.browser()
		visitor.lang = lang
		for _, path := range []string{"/games/" + id, "/games/" + id + "/replay?version=1"} {
			p := visitor.get(path).must(t, http.StatusOK)
			if strings.Contains(p.Body, `"web.js.`) {
				t.Errorf("%s in %s inlines the scripts' messages", path, lang)
			}
			href := messagesLink(t, p)
			if urls[lang] != "" && urls[lang] != href {
				t.Errorf("%s: the table links %s, the replay %s", lang, urls[lang], href)
			}
			urls[lang] = href
		}
		href := urls[lang]
		if !strings.Contains(href, "/"+lang+".json?v=") {
			t.Errorf("%s: messages at %s, want a versioned file of the language", lang, href)
		}
		res := visitor.get(href).must(t, http.StatusOK)
		if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age=31536000") || !strings.Contains(cc, "immutable") {
			t.Errorf("%s: Cache-Control %q", href, cc)
		}
		if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s: Content-Type %q", href, ct)
		}
		var msgs map[string]any
		if err := json.Unmarshal([]byte(res.Body), &msgs); err != nil {
			t.Fatalf("%s: %v", href, err)
		}
		if _, ok := msgs["game.colour.red"].(string); !ok || msgs["_words"] == nil {
			t.Errorf("%s lacks the colours or the move words", href)
		}
		if lang == "de" && msgs["game.colour.red"] != "rot" {
			t.Errorf("the German file's red is %q", msgs["game.colour.red"])
		}
		if got := visitor.get(href, "If-None-Match", res.Header.Get("ETag")); got.Status != http.StatusNotModified {
			t.Errorf("%s with its ETag: status %d", href, got.Status)
		}
	}
	if urls["en"] == urls["de"] || urls["nl"] == urls["it"] {
		t.Errorf("languages share a messages file: %v", urls)
	}
}
