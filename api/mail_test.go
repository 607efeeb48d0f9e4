package api

import (
	"bytes"
	"context"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

func TestWebhookRoutes(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	ana, ben := env.register(t, "Ana"), env.register(t, "Ben")
	var created notify.Webhook
	ana.call(http.MethodPost, "/v1/webhooks", map[string]string{"url": "https://bot.example.org/azul"}).mustStatus(t, http.StatusCreated).decode(t, &created)
	if created.ID == "" || !strings.HasPrefix(created.Secret, "whsec_") {
		t.Fatalf("created %+v", created)
	}
	for _, bad := range []string{`{"url":"ftp://x.org/"}`, `{"url":"https://x.org/","secret":"short"}`, `{"url":"https://u:p@x.org/"}`, `{"nope":1}`, `[]`} {
		p := ana.call(http.MethodPost, "/v1/webhooks", []byte(bad)).mustStatus(t, http.StatusBadRequest).problem(t)
		if p.Detail == "" {
			t.Errorf("%s: no detail", bad)
		}
	}
	env.anonymous(t).call(http.MethodGet, "/v1/webhooks", nil).mustStatus(t, http.StatusUnauthorized).problem(t)
	var list struct{ Webhooks []notify.Webhook }
	ana.call(http.MethodGet, "/v1/webhooks", nil).mustStatus(t, http.StatusOK).decode(t, &list)
	if len(list.Webhooks) != 1 || list.Webhooks[0].Secret != "" {
		t.Fatalf("list %+v", list)
	}
	ben.call(http.MethodDelete, "/v1/webhooks/"+created.ID, nil).mustStatus(t, http.StatusNotFound).problem(t)
	ana.call(http.MethodDelete, "/v1/webhooks/"+created.ID, nil).mustStatus(t, http.StatusNoContent)
	ana.call(http.MethodDelete, "/v1/webhooks/"+created.ID, nil).mustStatus(t, http.StatusNotFound).problem(t)
}

// captureMailer keeps what the notifier sends (the SMTP path itself is
// tested in the notify package).
type captureMailer struct {
	mu   sync.Mutex
	sent [][]byte
}

func (m *captureMailer) Send(_ context.Context, _ string, _ []string, raw []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, raw)
	return nil
}

// waitMail returns the first sent mail whose headers match.
func (m *captureMailer) waitMail(t *testing.T, match func(mail.Header) bool) mail.Header {
	t.Helper()
	var found mail.Header
	eventually.True(t, 30*time.Second, func() bool {
		m.mu.Lock()
		sent := append([][]byte(nil), m.sent...)
		m.mu.Unlock()
		for _, raw := range sent {
			msg, err := mail.ReadMessage(bytes.NewReader(raw))
			if err == nil && match(msg.Header) {
				found = msg.Header
				return true
			}
		}
		return false
	}, "the mail never came")
	return found
}

func TestInboundEmailAndStopLink(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t)
	sink := &captureMailer{}
	env.startMailWorker(t, sink)

	ana, ben := env.register(t, "Ana"), env.register(t, "Ben")
	g := ana.createGame(play.CreateGame{Ruleset: "summer-pavilion", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.Player.ID}}})
	seat := g.ToAct[0]
	mover := map[int]*client{0: ana, 1: ben}[seat]
	turn := sink.waitMail(t, func(h mail.Header) bool {
		_, v, s, ok := compose.ParseMessageID(h.Get("Message-Id"), "mail.test")
		return ok && v == g.Version && s == seat && strings.Contains(h.Get("Message-Id"), ".turn@")
	})
	replyTo, err := mail.ParseAddress(turn.Get("Reply-To"))
	if err != nil {
		t.Fatal(err)
	}
	raw := "From: " + mover.Player.Email + "\r\nTo: " + replyTo.Address + "\r\nSubject: Re: your turn\r\nMessage-ID: <r1@example.org>\r\nIn-Reply-To: " +
		turn.Get("Message-Id") + "\r\n\r\n1\r\n\r\n> quoted\r\n"
	post := func(body, auth string) response {
		return env.anonymous(t).call(http.MethodPost, "/v1/inbound/email?to="+url.QueryEscape(replyTo.Address), body,
			header{"Authorization", auth}, header{"Content-Type", "message/rfc822"})
	}
	post(raw, "").mustStatus(t, http.StatusUnauthorized).problem(t)
	post(raw, "Bearer wrong").mustStatus(t, http.StatusUnauthorized).problem(t)
	post("\x00\x01 not a message", "Bearer "+testInboundSecret).mustStatus(t, http.StatusBadRequest).problem(t)
	if v := mover.getGame(g.ID).Version; v != g.Version {
		t.Fatalf("refused requests changed the game to version %d", v)
	}
	var out struct{ Outcome string }
	post(raw, "Basic "+basic("provider", testInboundSecret)).mustStatus(t, http.StatusOK).decode(t, &out)
	if out.Outcome != "applied" {
		t.Fatalf("outcome %q", out.Outcome)
	}
	post(raw, "Bearer "+testInboundSecret).mustStatus(t, http.StatusOK).decode(t, &out)
	if out.Outcome != "duplicate" || mover.getGame(g.ID).Version != g.Version+1 {
		t.Fatalf("second delivery: %q, version %d", out.Outcome, mover.getGame(g.ID).Version)
	}

	// The stop link of the mail: GET shows, POST stops.
	link := turn.Get("List-Unsubscribe")
	start, end := strings.Index(link, "<http"), strings.Index(link, ">")
	if start < 0 || end < start {
		t.Fatalf("List-Unsubscribe %q", link)
	}
	u, err := url.Parse(link[start+1 : end])
	if err != nil || u.Path != "/v1/mail/stop" {
		t.Fatalf("stop link %q", link)
	}
	path := u.Path + "?" + u.RawQuery
	stopped := func() bool {
		t.Helper()
		var found bool
		if err := env.pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM mail_stops WHERE game_id = $1 AND seat = $2)`, g.ID, seat).Scan(&found); err != nil {
			t.Fatal(err)
		}
		return found
	}
	var st struct {
		GameID  string `json:"game_id"`
		Seat    int
		Stopped bool
	}
	env.anonymous(t).call(http.MethodGet, path, nil).mustStatus(t, http.StatusOK).decode(t, &st)
	if st.GameID != g.ID || st.Seat != seat || st.Stopped {
		t.Fatalf("GET stop: %+v", st)
	}
	page := env.anonymous(t).call(http.MethodGet, path, nil, header{"Accept", "text/html"}).mustStatus(t, http.StatusOK)
	if !strings.Contains(string(page.Body), "<form method=\"post\">") {
		t.Fatalf("confirm page: %s", page.Body)
	}
	if stopped() {
		t.Fatal("a GET of the stop link stopped the mails")
	}
	env.anonymous(t).call(http.MethodPost, path, "List-Unsubscribe=One-Click", header{"Content-Type", "application/x-www-form-urlencoded"}).
		mustStatus(t, http.StatusOK).decode(t, &st)
	if !st.Stopped {
		t.Fatal("POST did not stop")
	}
	if !stopped() {
		t.Fatal("not stopped")
	}
	env.anonymous(t).call(http.MethodPost, "/v1/mail/stop?token=unknown"+strconv.Itoa(seat), nil).mustStatus(t, http.StatusNotFound).problem(t)
}

func basic(user, pass string) string {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.SetBasicAuth(user, pass)
	return strings.TrimPrefix(r.Header.Get("Authorization"), "Basic ")
}

// startMailWorker runs a notifier that delivers the env's mails to sink,
// one worker polling every 10 ms, until the test ends.
func (env *testEnv) startMailWorker(t *testing.T, sink notify.Mailer) {
	t.Helper()
	worker, err := notify.New(notify.Config{
		Pool: env.pool, Sender: compose.Sender{Domain: "mail.test", BaseURL: "http://azuld.test"},
		Mailer: sink, Workers: 1, FetchPollInterval: 10 * time.Millisecond, Logger: testLogger(t),
	})
	if err != nil {
		t.Fatal(err)
	}
	worker.Attach(env.svc)
	if err := worker.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = worker.Shutdown(context.Background()) })
}
