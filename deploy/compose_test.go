package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/smtp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// maxMoves stops a game that does not end (a bug).
const maxMoves = 1000

// TestComposeSmoke brings docker-compose.yml up as a user would, plays a
// whole game through the REST API (one move by answering the turn mail
// through azuld's SMTP listener) with a restart of azuld in the middle,
// reads the mails in mailpit, and finds the game again after down and up
// (the named volume); down -v at the end removes everything.
func TestComposeSmoke(t *testing.T) {
	if !enabled(t) {
		return
	}
	t.Parallel()
	s := newStack(t, "docker-compose.yml")
	s.up()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := newClient(s.http)
	c.mailpit = s.mailpit
	waitReady(t, s.http+"/readyz", time.Minute)

	ana, ben := c.register(ctx, t, "Ana"), c.register(ctx, t, "Ben")
	seats := [2]player{ana, ben}
	g, err := c.createGame(ctx, ana, ben)
	if err != nil {
		t.Fatal(err)
	}

	// Both hear of the start (the seat to move in its first turn mail):
	// the relay (mailpit) is wired.
	waitMails(t, s.mailpit, time.Minute, func(ms []mail) bool {
		k := count(t, ms, g.ID)
		return k["started"] == 1 && k["turn"] >= 1
	})

	restarted := false
	moves := 0
	for ; ; moves++ {
		if moves > maxMoves {
			t.Fatalf("no end after %d moves", moves)
		}
		cur, err := c.game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status == "finished" {
			g = cur
			break
		}
		if moves == 10 && !restarted {
			// The seat to act answers its turn mail through azuld's SMTP
			// listener (move 1 of the mail), then azuld restarts.
			replyByMail(ctx, t, s, c, cur, seats)
			s.must("restart", "azuld")
			waitReady(t, s.http+"/readyz", 2*time.Minute)
			restarted = true
			continue
		}
		if _, _, err := c.playOne(ctx, cur, seats, randomPick); err != nil {
			t.Fatalf("move %d: %v", moves+1, err)
		}
	}
	if !restarted {
		t.Fatalf("the game ended after %d moves, before the restart", moves)
	}
	t.Logf("game %s finished after %d moves, version %d", g.ID, moves, g.Version)

	// Both seats get the end; every mail came once.
	ms := waitMails(t, s.mailpit, time.Minute, func(ms []mail) bool { return count(t, ms, g.ID)["over"] == 2 })
	kinds := count(t, ms, g.ID)
	// Ben was invited and accepted by the API at once (his invitation
	// mail, if its job ran only after that, is dropped: there is nothing
	// to answer); then the seat not to move gets the start mail, the one
	// to move a turn mail that says so.
	if kinds["invited"] > 1 || kinds["started"] != 1 || kinds["invitation"] != 0 || kinds["over"] != 2 || kinds["turn"] == 0 {
		t.Errorf("mails of the game by kind: %v; want at most 1 invited, 1 started, no invitation, 2 over, some turns", kinds)
	}
	// Every subject names the game (each kind says what it wants; the
	// threading headers keep the game one conversation).
	for _, m := range ms {
		if game, _ := m.kind(); game == g.ID && !strings.Contains(m.Subject, "Azul Mini with ") {
			t.Errorf("subject %q does not name the game", m.Subject)
		}
	}
	t.Logf("mails: %v", kinds)

	before, err := c.events(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	s.must("down")
	s.up()
	waitReady(t, s.http+"/readyz", time.Minute)
	after, err := c.game(ctx, g.ID)
	if err != nil {
		t.Fatalf("after down and up: %v", err)
	}
	if after.Status != "finished" || after.Version != g.Version {
		t.Fatalf("after down and up the game is %s at %d, was finished at %d", after.Status, after.Version, g.Version)
	}
	again, err := c.events(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(before) || len(again) == 0 || again[len(again)-1] != before[len(before)-1] {
		t.Fatalf("event log after down and up: %d events, was %d", len(again), len(before))
	}

	s.must("down", "--volumes")
	out, err := docker(ctx, "volume", "ls", "--quiet", "--filter", "label=com.docker.compose.project="+s.project)
	if err != nil || strings.TrimSpace(out) != "" {
		t.Fatalf("volumes left after down -v: %q %v", out, err)
	}
}

// replyByMail waits for the turn mail of the seat to act in g, checks its
// link to the game, answers it with "1" over SMTP to the published port
// (azuld's listener, or the replicas' proxy), as the seat's player, and
// waits until the move is in the game's log, made by email.
func replyByMail(ctx context.Context, t *testing.T, s *stack, c *client, g gameView, seats [2]player) {
	t.Helper()
	seat := g.ToAct[0]
	want := fmt.Sprintf("azuld.%s.%d.%d.turn@", g.ID, g.Version, seat)
	var turn mail
	waitMails(t, s.mailpit, time.Minute, func(ms []mail) bool {
		for _, m := range ms {
			if strings.Contains(m.MessageID, want) {
				turn = m
				return true
			}
		}
		return false
	})
	var full struct {
		MessageID string `json:"MessageID"`
		Subject   string `json:"Subject"`
		ReplyTo   []struct {
			Address string `json:"Address"`
		} `json:"ReplyTo"`
		Text string `json:"Text"`
	}
	resp, err := http.Get(s.mailpit + "/api/v1/message/" + turn.ID)
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&full)
	resp.Body.Close()
	if err != nil || len(full.ReplyTo) != 1 || !strings.Contains(full.Text, "1. ") {
		t.Fatalf("turn mail %s: reply-to %v, err %v, text:\n%s", turn.ID, full.ReplyTo, err, full.Text)
	}
	// The game's link goes to the published HTTP port: AZUL_BASE_URL was
	// left to its default.
	if link := fmt.Sprintf("http://localhost:%d/games/%s", s.port, g.ID); !strings.Contains(full.Text, link) {
		t.Fatalf("turn mail %s has no link to %s:\n%s", turn.ID, link, full.Text)
	}
	from := seats[seat].Email
	msg := "From: " + from + "\r\nTo: " + full.ReplyTo[0].Address + "\r\nSubject: Re: " + full.Subject +
		"\r\nIn-Reply-To: <" + strings.Trim(full.MessageID, "<>") + ">\r\nMessage-ID: <reply-" + g.ID + "-" + strconv.FormatInt(g.Version, 10) + "@example.org>" +
		"\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n1\r\n\r\n> It is your turn\r\n"
	if err := smtp.SendMail(s.smtp, nil, from, []string{full.ReplyTo[0].Address}, []byte(msg)); err != nil {
		t.Fatalf("reply by mail to %s: %v", s.smtp, err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		log, err := c.events(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(log) > int(g.Version) {
			if ch := log[g.Version].Meta.Channel; ch != "email" {
				t.Fatalf("the move after version %d came by %q, want email", g.Version, ch)
			}
			t.Logf("seat %d moved by answering its turn mail (version %d -> %d)", seat, g.Version, log[len(log)-1].Version)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reply to %s did not move the game within a minute", full.MessageID)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
