package web_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/azuld/azuld/limits"
)

// invitePanel is the table page's invitation link, and the decoded QR
// code next to it; "" when the page shows none.
func invitePanel(t *testing.T, p page) (link string, copyButton, qr bool) {
	t.Helper()
	doc := p.doc(t)
	sections := find(doc, func(n *html.Node) bool { id, _ := attr(n, "id"); return n.Data == "section" && id == "invite" })
	if len(sections) == 0 {
		return "", false, false
	}
	for _, in := range find(sections[0], func(n *html.Node) bool { id, _ := attr(n, "id"); return n.Data == "input" && id == "invite-url" }) {
		link, _ = attr(in, "value")
	}
	for _, b := range find(sections[0], func(n *html.Node) bool { return n.Data == "button" && hasClass(n, "copy") }) {
		target, _ := attr(b, "data-copy")
		copyButton = copyButton || target == "invite-url"
	}
	for _, img := range find(sections[0], func(n *html.Node) bool { return n.Data == "img" && hasClass(n, "invite-qr") }) {
		src, _ := attr(img, "src")
		data, ok := strings.CutPrefix(src, "data:image/png;base64,")
		raw, err := base64.StdEncoding.DecodeString(data)
		if !ok || err != nil {
			t.Fatalf("the QR code is not a PNG data: URL: %.80q", src)
		}
		im, err := png.Decode(bytes.NewReader(raw))
		qr = err == nil && im.Bounds().Dx() >= 100
	}
	return link, copyButton, qr
}

// gameSeats reads a game's status and seats through the API.
func gameSeats(t *testing.T, b *browser, id string) (status string, players []string, invitation string) {
	t.Helper()
	var g struct {
		Status string `json:"status"`
		Seats  []struct {
			PlayerID string `json:"player_id"`
		} `json:"seats"`
		InvitationURL string `json:"invitation_url"`
	}
	res := b.get("/v1/games/"+id).must(t, http.StatusOK)
	if err := json.Unmarshal([]byte(res.Body), &g); err != nil {
		t.Fatal(err)
	}
	for _, s := range g.Seats {
		players = append(players, s.PlayerID)
	}
	return g.Status, players, g.InvitationURL
}

// A private game's invitation link seats strangers, one a free seat, the
// visitor by way of registration; the last seat starts the game, and then
// the link says it is used up.
func TestInvitationLinkSeatsStrangers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, false)
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	form := newGameForm(t, ana, map[string]string{"seats": "3", "seat0": "me", "seat1": "open", "seat2": "open", "visibility": "private"})
	form.Del("rated")
	res := ana.post("/games/new", form).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")

	link, copyButton, qr := invitePanel(t, ana.get("/games/"+id).must(t, http.StatusOK))
	if !copyButton || !qr {
		t.Fatalf("the table page has no copy button (%v) or QR code (%v)", copyButton, qr)
	}
	u, err := url.Parse(link)
	if err != nil || !strings.HasPrefix(u.Path, "/invite/") || len(u.Path) < len("/invite/")+22 {
		t.Fatalf("invitation link %q", link)
	}
	path := u.Path
	if _, _, api := gameSeats(t, ana, id); api != link {
		t.Fatalf("the API's invitation_url %q, the page's %q", api, link)
	}
	// The link is the database's hash only.
	if n := e.count(`SELECT count(*) FROM invitation_links WHERE game_id = $1::uuid AND token_hash <> convert_to($2, 'UTF8')`, id, strings.TrimPrefix(path, "/invite/")); n != 1 {
		t.Fatalf("%d hashed invitation rows", n)
	}

	// A visitor is asked to sign in or register, and told nobody's name.
	bea := e.browser()
	visit := bea.get(path).must(t, http.StatusOK)
	if strings.Contains(visit.Body, "Ana") || !strings.Contains(visit.Body, `href="/register"`) || !strings.Contains(visit.Body, `href="/signin"`) {
		t.Fatalf("the signed-out invitation page:\n%s", visit.Body)
	}
	registered := bea.register("Bea", "bea@example.org")
	back := find(registered.doc(t), func(n *html.Node) bool { id, _ := attr(n, "id"); return id == "to-invitation" })
	if len(back) != 1 {
		t.Fatalf("the registration page does not lead back to the invitation:\n%s", registered.Body)
	}
	if href, _ := attr(back[0], "href"); href != path {
		t.Fatalf("back to %q, want %q", href, path)
	}
	inv := bea.get(path).must(t, http.StatusOK)
	for _, want := range []string{"Ana invites you to a game of", "Unrated", "No time limit", "Take the seat"} {
		if !strings.Contains(inv.Body, want) {
			t.Fatalf("the invitation page does not say %q:\n%s", want, inv.Body)
		}
	}
	// Without the form's token nothing happens.
	bea.post(path, url.Values{"csrf": {"wrong"}}).must(t, http.StatusForbidden)
	if _, seats, _ := gameSeats(t, ana, id); seats[1] != "" {
		t.Fatalf("a forged form took a seat: %v", seats)
	}
	took := bea.post(path, url.Values{"csrf": {inv.csrf(t)}}).must(t, http.StatusSeeOther)
	if took.Header.Get("Location") != "/games/"+id {
		t.Fatalf("after taking the seat: %q", took.Header.Get("Location"))
	}
	status, seats, _ := gameSeats(t, ana, id)
	if status != "open" || seats[1] == "" || seats[2] != "" {
		t.Fatalf("after Bea: %s %v", status, seats)
	}
	// A second click changes nothing and leads to the table.
	bea.post(path, url.Values{"csrf": {inv.csrf(t)}}).must(t, http.StatusSeeOther)
	if _, again, _ := gameSeats(t, ana, id); again[2] != "" {
		t.Fatalf("a second click took another seat: %v", again)
	}
	// Bea, seated now, sees the link too.
	if l, _, _ := invitePanel(t, bea.get("/games/"+id).must(t, http.StatusOK)); l != link {
		t.Fatalf("Bea's table page shows %q", l)
	}

	cy := e.browser()
	cy.register("Cy", "cy@example.org")
	inv = cy.get(path).must(t, http.StatusOK)
	cy.post(path, url.Values{"csrf": {inv.csrf(t)}}).must(t, http.StatusSeeOther)
	if status, seats, invitation := gameSeats(t, ana, id); status != "active" || seats[2] == "" || invitation != "" {
		t.Fatalf("after the last seat: %s %v, link %q", status, seats, invitation)
	}
	if l, _, _ := invitePanel(t, ana.get("/games/"+id).must(t, http.StatusOK)); l != "" {
		t.Fatalf("a started game shows its link %q", l)
	}

	dora := e.browser()
	dora.register("Dora", "dora@example.org")
	full := dora.get(path).must(t, http.StatusOK)
	if !strings.Contains(full.Body, "no free seat any more") || strings.Contains(full.Body, "Take the seat") || strings.Contains(full.Body, "Bea") {
		t.Fatalf("the used-up link:\n%s", full.Body)
	}
	dora.post(path, url.Values{"csrf": {full.csrf(t)}}).must(t, http.StatusForbidden)
	if n := e.count(`SELECT count(*) FROM game_seats WHERE game_id = $1::uuid AND player_id IS NOT NULL`, id); n != 3 {
		t.Fatalf("%d seated players", n)
	}
}

// A wrong token is an HTML error page that changes nothing, counted as a
// failed token: past the limit even the right one is refused for a while.
func TestInvitationLinkRefusesBadTokens(t *testing.T) {
	t.Parallel()
	policy := limits.DefaultPolicy()
	r, _, err := limits.ParseRule(limits.FailedTokens, "3/h")
	if err != nil {
		t.Fatal(err)
	}
	r.Fast = policy[limits.FailedTokens].Fast
	policy[limits.FailedTokens] = r
	e := newEnvOpts(t, envOptions{limits: policy})
	ana := e.browser()
	ana.register("Ana", "ana@example.org")
	res := ana.post("/games/new", newGameForm(t, ana, map[string]string{"seat1": "open"})).must(t, http.StatusSeeOther)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/games/")
	link, _, _ := invitePanel(t, ana.get("/games/"+id).must(t, http.StatusOK))
	path := mustURL(t, link).Path
	token := strings.TrimPrefix(path, "/invite/")

	bea := e.browser()
	page := bea.register("Bea", "bea@example.org")
	csrf := page.csrf(t)
	wrong := []string{"/invite/nothing", "/invite/" + strings.Repeat("A", len(token))}
	for _, p := range wrong {
		res := bea.get(p).must(t, http.StatusNotFound)
		if !strings.Contains(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(res.Body, "This invitation link is not valid") {
			t.Fatalf("GET %s: %s\n%s", p, res.Header.Get("Content-Type"), res.Body)
		}
	}
	bea.post("/invite/"+token[:len(token)-2]+"xx", url.Values{"csrf": {csrf}}).must(t, http.StatusNotFound)
	if status, seats, _ := gameSeats(t, ana, id); status != "open" || seats[1] != "" {
		t.Fatalf("a wrong token changed the game: %s %v", status, seats)
	}
	limited := bea.get(path)
	if limited.Status != http.StatusTooManyRequests || !strings.Contains(limited.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("past the failed token limit: %d %s", limited.Status, limited.Header.Get("Content-Type"))
	}
	if s, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Fatalf("Retry-After %q", limited.Header.Get("Retry-After"))
	}
}
