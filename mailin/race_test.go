package mailin_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azuld/azuld/api"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// raceInboundSecret authenticates the provider's POST in TestSameMailAtOnce.
const raceInboundSecret = "inbound-secret-of-the-race"

// TestSameMailAtOnce delivers one reply (one Message-ID) several times at
// once over azuld's SMTP listener and over POST /v1/inbound/email, as a
// provider that retries while the MX also holds a copy would: the move is
// applied once and confirmed once, every delivery is acknowledged (250,
// 200), and no copy is answered with a refusal. It runs with a reply by
// number (which names the version it answers) and by notation.
func TestSameMailAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv, err := api.New(api.Config{Service: e.Svc, Pool: e.Pool, Notifier: e.N, Inbound: e.In, InboundSecret: raceInboundSecret})
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(srv.Handler())
	t.Cleanup(func() { srv.Close(); web.Close() })

	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	players := map[int]play.Player{0: ana, 1: ben}
	for round, form := range []string{"number", "notation"} {
		cur, err := e.Svc.Game(context.Background(), g.ID)
		if err != nil {
			t.Fatal(err)
		}
		seat := cur.ToAct()[0]
		p := players[seat]
		var lastJob int64
		if err := e.Pool.QueryRow(context.Background(), `SELECT coalesce(max(id), 0) FROM river_job`).Scan(&lastJob); err != nil {
			t.Fatal(err)
		}
		turn := e.TurnMail(g.ID, seat, cur.Version)
		to := mailtest.ReplyTo(t, turn)
		answer := "1"
		if form == "notation" {
			answer = cur.LegalMoves(seat)[0].Notation
		}
		raw := fmt.Sprintf("From: %s <%s>\r\nTo: %s\r\nSubject: Re: your turn\r\nMessage-ID: <race.%d@example.org>\r\nIn-Reply-To: %s\r\nReferences: %s\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n%s\r\n\r\nOn Mon, 23 Nov 2026 at 10:00, azuld <azuld@mail.test> wrote:\r\n> It is your turn.\r\n",
			p.Name, p.Email, to, round, turn.Header.Get("Message-Id"), turn.Header.Get("Message-Id"), answer)

		const each = 4
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, 2*each)
		for range each {
			wg.Add(2)
			go func() {
				defer wg.Done()
				<-start
				if err := mailtest.SendRaw(e.Inbound, p.Email, to, raw); err != nil {
					errs <- fmt.Errorf("SMTP: %w", err)
				}
			}()
			go func() {
				defer wg.Done()
				<-start
				req, _ := http.NewRequest(http.MethodPost, web.URL+"/v1/inbound/email?to="+url.QueryEscape(to), strings.NewReader(raw))
				req.Header.Set("Authorization", "Bearer "+raceInboundSecret)
				req.Header.Set("Content-Type", "message/rfc822")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- fmt.Errorf("HTTP: %w", err)
					return
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK || !strings.Contains(string(body), `"applied"`) && !strings.Contains(string(body), `"duplicate"`) {
					errs <- fmt.Errorf("HTTP: %d %s", res.StatusCode, body)
				}
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("%s reply: %v", form, err)
		}

		// Exactly one command was appended.
		recs, err := e.Svc.Events(context.Background(), g.ID, cur.Version, 0)
		if err != nil {
			t.Fatal(err)
		}
		commands := map[string]bool{}
		for _, r := range recs {
			commands[r.Meta.CommandID] = true
		}
		if len(commands) != 1 || recs[0].Meta.Channel != "email" {
			t.Fatalf("%s reply: %d events of %d commands appended, want one command by email", form, len(recs), len(commands))
		}
		// Every delivery has returned, so every answer is enqueued once
		// the follower of the log has caught up: one confirmation, no
		// refusal.
		e.CaughtUp(t)
		var accepted, refused int
		if err := e.Pool.QueryRow(context.Background(), `
			SELECT count(*) FILTER (WHERE args->>'mail' = $2), count(*) FILTER (WHERE args->>'mail' = $3)
			FROM river_job WHERE kind = 'azuld_mail' AND args->>'game_id' = $1 AND id > $4`,
			g.ID, compose.KindAccepted, compose.KindRefused, lastJob).Scan(&accepted, &refused); err != nil {
			t.Fatal(err)
		}
		if accepted != 1 || refused != 0 {
			t.Fatalf("%s reply: %d confirmations and %d refusals enqueued, want 1 and 0", form, accepted, refused)
		}
		e.Relay.WaitWithin(t, 30*time.Second, "confirmation", func(m outMail) bool {
			return m.Kind == compose.KindAccepted && m.Seat == seat && m.Version > cur.Version
		})
	}
}
