package notify_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// newPavilion creates a 2-player Summer Pavilion game of ana (seat 0) and
// ben (seat 1), created by ana.
func (e *env) newPavilion(ana, ben play.Player, tc *play.TimeControl) *play.Game {
	e.t.Helper()
	g, err := e.svc.CreateGame(context.Background(), ana, play.CreateGame{
		Ruleset: "summer-pavilion", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}},
		Seed: strings.Repeat("5a", 32), TimeControl: tc,
	}, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

// waitOpeningMails waits for the mails of a new game from newPavilion:
// ben's invitation (the first within limit), the start mail to each and
// the first turn mail.
func (e *env) waitOpeningMails(g *play.Game, ana, ben play.Player, limit time.Duration) {
	e.t.Helper()
	e.relay.waitWithin(e.t, limit, "invitation", func(m outMail) bool { return m.kind == compose.KindInvitation && slices.Contains(m.to, ben.Email) })
	for _, p := range []play.Player{ana, ben} {
		e.relay.wait(e.t, "start", func(m outMail) bool { return m.kind == compose.KindStarted && slices.Contains(m.to, p.Email) })
	}
	e.turnMail(g.ID, g.ToAct()[0], g.Version)
}

// moveFirst plays, through the API channel, the first legal move of the
// seat to act in g, a game from newPavilion.
func (e *env) moveFirst(g *play.Game, ana, ben play.Player) *play.MoveResult {
	e.t.Helper()
	seat := g.ToAct()[0]
	p := map[int]play.Player{0: ana, 1: ben}[seat]
	res, err := e.svc.Move(context.Background(), play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: p.ID}, Seat: &seat, Move: g.LegalMoves(seat)[0].JSON, Channel: "api"})
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// turnMail waits for the "your turn" mail of a seat at a version.
func (e *env) turnMail(gameID string, seat int, version int64) outMail {
	e.t.Helper()
	return e.relay.wait(e.t, "turn (seat "+strconv.Itoa(seat)+", version "+strconv.FormatInt(version, 10)+")", func(m outMail) bool {
		return m.kind == compose.KindTurn && m.seat == seat && m.version == version
	})
}

// waitVersion polls until the game passes a version.
func (e *env) waitVersion(gameID string, after int64) *play.Game {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		g, err := e.svc.Game(context.Background(), gameID)
		if err != nil {
			e.t.Fatal(err)
		}
		if g.Version > after {
			return g
		}
		time.Sleep(5 * time.Millisecond)
	}
	e.t.Fatalf("game %s stayed at version %d", gameID, after)
	return nil
}

// TestWholeGameByEmail plays a 2-player Summer Pavilion game only by
// answering azuld's mails through its SMTP listener: from the invitation
// to the game-over mail with the final breakdown.
func TestWholeGameByEmail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.register("Ana"), e.register("Ben")
	g := e.newPavilion(ana, ben, nil)
	players := map[int]play.Player{0: ana, 1: ben}

	inv := e.relay.wait(t, "invitation", func(m outMail) bool { return m.kind == compose.KindInvitation })
	if !slices.Equal(inv.to, []string{ben.Email}) || !strings.Contains(inv.text, "Ana") {
		t.Fatalf("invitation to %v: %q", inv.to, inv.text)
	}
	for _, p := range []play.Player{ana, ben} {
		e.relay.wait(t, "game started to "+p.Name, func(m outMail) bool { return m.kind == compose.KindStarted && slices.Contains(m.to, p.Email) })
	}

	rng := rand.New(rand.NewPCG(1, 2))
	moves := 0
	for {
		cur, err := e.svc.Game(context.Background(), g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status == play.StatusFinished {
			g = cur
			break
		}
		seat := cur.ToAct()[0]
		m := e.turnMail(g.ID, seat, cur.Version)
		if m.header.Get("In-Reply-To") != compose.ThreadRoot(e.n.Sender(), g.ID) {
			t.Fatalf("turn mail not threaded: In-Reply-To %q", m.header.Get("In-Reply-To"))
		}
		legal := cur.LegalMoves(seat)
		// Resigning would end the game early: choose among the other moves.
		var playable []int
		for j, m := range legal {
			if m.Notation != "resign" {
				playable = append(playable, j)
			}
		}
		if len(playable) == 0 {
			t.Fatalf("version %d: seat %d may only resign", cur.Version, seat)
		}
		i := playable[rng.IntN(len(playable))]
		// The mail lists the move under its number.
		if !strings.Contains(m.text, legal[i].Notation) {
			t.Fatalf("version %d: the turn mail does not list %q:\n%s", cur.Version, legal[i].Notation, m.text)
		}
		// Alternate the reply forms: the number, the notation.
		answer := strconv.Itoa(i + 1)
		if moves%4 == 3 {
			answer = legal[i].Notation
		}
		if err := e.sendReply(players[seat].Name+" <"+players[seat].Email+">", replyTo(t, m), m.header.Get("Message-Id"), "", answer); err != nil {
			t.Fatalf("version %d: reply: %v", cur.Version, err)
		}
		e.waitVersion(g.ID, cur.Version)
		recs, err := e.svc.Events(context.Background(), g.ID, cur.Version, 1)
		if err != nil || recs[0].Meta.Channel != "email" || recs[0].Meta.Notation != legal[i].Notation {
			t.Fatalf("version %d: appended %+v (%v), want %q by email", cur.Version, recs, err, legal[i].Notation)
		}
		moves++
	}
	if g.State.Final() == nil {
		t.Fatal("no final result")
	}
	for _, p := range []play.Player{ana, ben} {
		over := e.relay.wait(t, "game over to "+p.Name, func(m outMail) bool { return m.kind == compose.KindGameOver && slices.Contains(m.to, p.Email) })
		for _, fp := range g.State.Final().Players {
			if !strings.Contains(over.text, strconv.Itoa(fp.Score)) {
				t.Fatalf("game-over mail lacks score %d:\n%s", fp.Score, over.text)
			}
		}
	}
	// A reply to the game-over mail changes nothing and is answered.
	over := e.relay.wait(t, "game over to Ana", func(m outMail) bool { return m.kind == compose.KindGameOver && slices.Contains(m.to, ana.Email) })
	if err := e.sendReply(ana.Email, replyTo(t, over), over.header.Get("Message-Id"), "<after-the-end@example.org>", "1"); err != nil {
		t.Fatal(err)
	}
	e.relay.wait(t, "refusal after the end", func(m outMail) bool {
		return strings.HasPrefix(m.kind, compose.KindRefused) && slices.Contains(m.to, ana.Email) && strings.Contains(m.text, "over")
	})
	if v := e.eventCount(g.ID); v != g.Version {
		t.Fatalf("a reply after the end changed the log: version %d, want %d", v, g.Version)
	}
	// Every accepted move was confirmed.
	accepted := 0
	for _, m := range e.relay.all() {
		if m.kind == compose.KindAccepted {
			accepted++
		}
	}
	if accepted == 0 || moves < 20 {
		t.Fatalf("%d moves, %d confirmations", moves, accepted)
	}
	t.Logf("%d moves by email, %d mails sent", moves, len(e.relay.all()))
}

// TestRepliesThatChangeNothing sends malformed, forged, unknown-token,
// duplicate and stale replies: the log stays as it is, and only the
// player's own mistakes are answered.
func TestRepliesThatChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.register("Ana"), e.register("Ben")
	g := e.newPavilion(ana, ben, nil)
	seat := g.ToAct()[0]
	p := map[int]play.Player{0: ana, 1: ben}[seat]
	other := map[int]play.Player{0: ben, 1: ana}[seat]
	turn := e.turnMail(g.ID, seat, g.Version)
	addr := replyTo(t, turn)
	inReplyTo := turn.header.Get("Message-Id")
	version := g.Version

	// Malformed: refused by the listener for good, nothing changes.
	if err := sendRaw(e.inbound, p.Email, addr, "this is not a mail header block\r\n\r\n1\r\n"); err == nil || !strings.HasPrefix(err.Error(), "5") {
		t.Fatalf("malformed mail: %v, want a 5xx refusal", err)
	}
	// Forged: another player's address.
	if err := e.sendReply(other.Email, addr, inReplyTo, "", "1"); err != nil {
		t.Fatal(err)
	}
	// Unknown token: refused in the SMTP session.
	if err := e.sendReply(p.Email, "play+"+strings.Repeat("a", 32)+"@"+domain, inReplyTo, "", "1"); err == nil || !strings.HasPrefix(err.Error(), "550") {
		t.Fatalf("unknown address: %v, want 550", err)
	}
	// Not a move: refused with the rule and the moves.
	if err := e.sendReply(p.Email, addr, inReplyTo, "<bad.1@example.org>", "place the moon on the sun"); err != nil {
		t.Fatal(err)
	}
	refused := e.relay.wait(t, "refusal", func(m outMail) bool { return strings.HasPrefix(m.kind, compose.KindRefused) })
	if !slices.Contains(refused.to, p.Email) || !strings.Contains(refused.text, "1") {
		t.Fatalf("refusal to %v:\n%s", refused.to, refused.text)
	}
	if e.eventCount(g.ID) != version {
		t.Fatal("a bad reply changed the game")
	}

	// A good move, delivered twice with the same Message-ID: applied once.
	if err := e.sendReply(p.Email, addr, inReplyTo, "<twice@example.org>", "1"); err != nil {
		t.Fatal(err)
	}
	after := e.waitVersion(g.ID, version)
	if err := e.sendReply(p.Email, addr, inReplyTo, "<twice@example.org>", "1"); err != nil {
		t.Fatal(err)
	}
	// Stale: a number answering the old mail, now that the game moved on.
	if err := e.sendReply(p.Email, addr, inReplyTo, "<stale@example.org>", "2"); err != nil {
		t.Fatal(err)
	}
	stale := e.relay.wait(t, "refusal of the stale reply", func(m outMail) bool {
		return strings.HasPrefix(m.kind, compose.KindRefused) && strings.Contains(m.text, "moved on")
	})
	if stale.version != after.Version {
		t.Fatalf("the stale refusal lists the moves of version %d, want %d", stale.version, after.Version)
	}
	if got := e.eventCount(g.ID); got != after.Version {
		t.Fatalf("duplicate or stale reply changed the log: %d events, want %d", got, after.Version)
	}
	// Neither the forger nor the unknown address was answered.
	for _, m := range e.relay.all() {
		if slices.Contains(m.to, other.Email) && strings.HasPrefix(m.kind, compose.KindRefused) {
			t.Fatalf("the forger was answered: %s", m.kind)
		}
	}
	// "stop" stops the mails of that game for the player.
	if err := e.sendReply(p.Email, addr, inReplyTo, "<stop@example.org>", "stop"); err != nil {
		t.Fatal(err)
	}
	var stopped bool
	if err := e.pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM mail_stops WHERE game_id = $1 AND seat = $2)`, g.ID, seat).Scan(&stopped); err != nil || !stopped {
		t.Fatalf("stop reply: %v %v", stopped, err)
	}
}
