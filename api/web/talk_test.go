package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The table talk's form (without script) takes a pasted text whole, so
// that the server refuses one over the limit instead of the browser
// cutting it short without a word: the table is shown again with the
// text in the box and the reason, in the reader's language, right under
// it; nothing is written.
func TestTalkFormRefusesLongMessageByTheBox(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	reg := ana.get("/register").must(t, http.StatusOK)
	ana.post("/register", url.Values{"csrf": {reg.csrf(t)}, "name": {"Ana"}, "email": {"ana@example.org"}, "language": {"nl"}}).must(t, http.StatusCreated)
	res := ana.post("/games/new", newGameForm(t, ana, map[string]string{"ruleset": "azul-mini", "seat1": "bot"})).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")

	table := ana.get("/games/"+id).must(t, http.StatusOK)
	area := talkArea(t, table.doc(t))
	if m, ok := attr(area, "maxlength"); ok {
		t.Fatalf("the box cuts a message at %s characters", m)
	}
	if got := text(byID(t, table.doc(t), "talk-count")); got != "Hoogstens 500 tekens." {
		t.Fatalf("the box's limit reads %q", got)
	}

	long := strings.Repeat("lang ", 1000)
	form := url.Values{"csrf": {table.csrf(t)}, "key": {"k-1"}, "text": {long}}
	again := ana.post("/games/"+id+"/messages", form).must(t, http.StatusBadRequest)
	doc := again.doc(t)
	talkForm := find(doc, func(n *html.Node) bool { return n.Data == "form" && hasClass(n, "talk-form") })
	if len(talkForm) != 1 {
		t.Fatalf("the refusal is not the table with its talk form:\n%s", again.Body)
	}
	errs := find(talkForm[0], func(n *html.Node) bool { id, _ := attr(n, "id"); return id == "talk-error" })
	if len(errs) != 1 {
		t.Fatalf("no reason inside the talk form:\n%s", again.Body)
	}
	if got, want := text(errs[0]), "Het bericht heeft 4.999 tekens; een bericht heeft er hoogstens 500. Maak het korter om het te versturen."; got != want {
		t.Fatalf("the reason reads %q, want %q", got, want)
	}
	if got := text(talkArea(t, doc)); got != long {
		t.Fatalf("the box holds %d characters, not the %d sent", len(got), len(long))
	}

	var msgs struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal([]byte(ana.get("/v1/games/"+id+"/messages").must(t, http.StatusOK).Body), &msgs); err != nil || len(msgs.Messages) != 0 {
		t.Fatalf("the refused message was written: %d messages (%v)", len(msgs.Messages), err)
	}
	// A message of the right length is sent as before.
	form.Set("text", "Veel plezier!")
	ana.post("/games/"+id+"/messages", form).must(t, http.StatusSeeOther)
	if err := json.Unmarshal([]byte(ana.get("/v1/games/"+id+"/messages").must(t, http.StatusOK).Body), &msgs); err != nil || len(msgs.Messages) != 1 {
		t.Fatalf("%d messages after a good one (%v)", len(msgs.Messages), err)
	}
}

// talkArea is the talk form's text box.
func talkArea(t *testing.T, doc *html.Node) *html.Node {
	t.Helper()
	return byID(t, doc, "talk-text")
}

// byID is the one element of the page with that id.
func byID(t *testing.T, doc *html.Node, id string) *html.Node {
	t.Helper()
	found := find(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return n.Type == html.ElementNode && v == id })
	if len(found) != 1 {
		t.Fatalf("%d elements #%s", len(found), id)
	}
	return found[0]
}
