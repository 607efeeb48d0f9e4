package notify_test

import (
	"context"
	"math/rand/v2"
	"mime"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// newPavilion creates a 2-player Summer Pavilion game of ana (seat 0) and
// ben (seat 1), created by ana.
func (e *env) newPavilion(ana, ben play.Player, tc *play.TimeControl) *play.Game {
	e.t.Helper()
	g, err := createAccepted(context.Background(), e.svc, ana, play.CreateGame{
		Ruleset: "summer-pavilion", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}},
		Seed: strings.Repeat("5a", 32), TimeControl: tc,
	}, "")
	if err != nil {
		e.t.Fatal(err)
	}
	return g
}

// waitOpeningMails waits for the mails of a new game from newPavilion,
// which starts as it is created: one mail to each player (the turn mail
// to the seat to move, which also tells of the start; the start mail to
// the other), the first within limit.
func (e *env) waitOpeningMails(g *play.Game, ana, ben play.Player, limit time.Duration) {
	e.t.Helper()
	toAct := g.ToAct()[0]
	for seat, p := range []play.Player{ana, ben} {
		kind := compose.KindStarted
		if seat == toAct {
			kind = compose.KindTurn
		}
		e.relay.waitWithin(e.t, limit, kind+" to "+p.Name, func(m outMail) bool { return m.kind == kind && slices.Contains(m.to, p.Email) })
	}
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
		return m.kind == compose.KindTurn && m.game == gameID && m.seat == seat && m.version == version
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
// answering azuld's mails through its SMTP listener: from the first mail
// to the game-over mail with the final breakdown.
func TestWholeGameByEmail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.register("Ana"), e.register("Ben")
	ctx := context.Background()
	g, err := e.svc.CreateGame(ctx, ana, play.CreateGame{
		Ruleset: "summer-pavilion", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}, Seed: strings.Repeat("5a", 32),
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	players := map[int]play.Player{0: ana, 1: ben}
	roots := map[string]string{}

	// Ben's first mail is the invitation to the seat Ana named for him:
	// it says who invites him and how to answer. He accepts by reply,
	// and the game starts.
	inv := e.relay.wait(t, "first mail to Ben", func(m outMail) bool { return slices.Contains(m.to, ben.Email) })
	if text := strings.Join(strings.Fields(inv.text), " "); inv.kind != compose.KindInvited || !strings.Contains(text, "Ana invites you") || !strings.Contains(text, "Reply “accept”") {
		t.Fatalf("Ben's first mail is %q:\n%s", inv.kind, inv.text)
	}
	if g.Status != play.StatusOpen {
		t.Fatalf("the game is %q before Ben accepted", g.Status)
	}
	roots[ben.Email] = inv.header.Get("Message-Id")
	if err := e.sendClientReply(clientStyles[0], mail.Address{Name: ben.Name, Address: ben.Email}, inv, "accept"); err != nil {
		t.Fatalf("accept by reply: %v", err)
	}
	g = e.waitVersion(g.ID, g.Version)
	if g.Status != play.StatusActive || g.Seats[1].PlayerID != ben.ID {
		t.Fatalf("after Ben's reply the game is %q, seat 1 %+v", g.Status, g.Seats[1])
	}

	// The game starts as Ben accepts: each player gets one mail, which
	// says so, and no invitation to take a seat already taken.
	for seat, p := range []play.Player{ana, ben} {
		kind := compose.KindStarted
		if seat == g.ToAct()[0] {
			kind = compose.KindTurn
		}
		first := e.relay.wait(t, "start mail to "+p.Name, func(m outMail) bool { return slices.Contains(m.to, p.Email) && m.kind != compose.KindInvited })
		if first.kind != kind || !strings.Contains(first.text, "has started") {
			t.Fatalf("first mail to %s is %q:\n%s", p.Name, first.kind, first.text)
		}
		for _, bad := range []string{"take your seat", "when every seat is taken"} {
			if strings.Contains(first.text, bad) {
				t.Fatalf("first mail to %s says %q:\n%s", p.Name, bad, first.text)
			}
		}
		if p == ben {
			// Ben's thread began with the invitation.
			if first.header.Get("In-Reply-To") != roots[ben.Email] {
				t.Fatalf("Ben's start mail refers to %q, not the invitation %q", first.header.Get("In-Reply-To"), roots[ben.Email])
			}
			continue
		}
		// The first mail is the root of the seat's thread.
		if first.header.Get("In-Reply-To") != "" || first.header.Get("References") != "" {
			t.Fatalf("the first mail to %s refers to %q", p.Name, first.header.Get("References"))
		}
		roots[p.Email] = first.header.Get("Message-Id")
	}
	for _, m := range e.relay.all() {
		if m.kind == compose.KindInvitation {
			t.Fatalf("an invitation was sent for a game that started at once:\n%s", m.text)
		}
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
		if root := roots[players[seat].Email]; m.header.Get("Message-Id") != root && (m.header.Get("In-Reply-To") != root || m.header.Get("References") != root) {
			t.Fatalf("turn mail not threaded on the first mail %s: In-Reply-To %q", root, m.header.Get("In-Reply-To"))
		}
		if !strings.Contains(strings.Join(strings.Fields(m.text), " "), "Your board is the one marked “"+players[seat].Name+" (you)”") || !strings.Contains(m.text, players[seat].Name+" (you)") ||
			strings.Contains(m.text, "Seat 0") || strings.Contains(m.text, "seat 1") {
			t.Fatalf("version %d: the turn mail does not name the boards:\n%s", cur.Version, m.text)
		}
		subject, _ := new(mime.WordDecoder).DecodeHeader(m.header.Get("Subject"))
		if want := "Your turn in Azul: Summer Pavilion with " + players[1-seat].Name + " (game " + compose.ShortID(g.ID) + ")"; subject != want && subject != strings.Replace(want, "in", "in a new game of", 1) {
			t.Fatalf("version %d: turn mail subject %q, want %q", cur.Version, subject, want)
		}
		legal := cur.LegalMoves(seat)
		numbered, passes := compose.Numbered(legal)
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
		// Alternate the reply forms: the number, the notation. A pass is
		// not numbered when there are several: the mail describes passing
		// once, and the pass is written in notation.
		answer := ""
		if n := slices.IndexFunc(numbered, func(mv engine.Move) bool { return mv.Notation == legal[i].Notation }); n >= 0 {
			// The mail lists the move under its number.
			if !strings.Contains(m.text, strconv.Itoa(n+1)+". "+legal[i].Notation) {
				t.Fatalf("version %d: the turn mail does not list %d. %q:\n%s", cur.Version, n+1, legal[i].Notation, m.text)
			}
			answer = strconv.Itoa(n + 1)
		}
		if answer == "" || moves%4 == 3 {
			answer = legal[i].Notation
		}
		if passes && len(numbered) == 0 && !strings.Contains(m.text, "You cannot place a tile now") {
			t.Fatalf("version %d: the seat can only pass, and the turn mail does not say so:\n%s", cur.Version, m.text)
		}
		if passes && len(numbered) > 0 && !strings.Contains(m.text, "Or pass, keeping up to four tiles") {
			t.Fatalf("version %d: the turn mail lists passes but does not describe passing:\n%s", cur.Version, m.text)
		}
		// Answer as the mail programs players use do.
		style := clientStyles[moves%len(clientStyles)]
		if err := e.sendClientReply(style, mail.Address{Name: players[seat].Name, Address: players[seat].Email}, m, answer); err != nil {
			t.Fatalf("version %d: reply: %v", cur.Version, err)
		}
		e.waitVersion(g.ID, cur.Version)
		recs, err := e.svc.Events(context.Background(), g.ID, cur.Version, 1)
		if err != nil || recs[0].Meta.Channel != "email" || recs[0].Meta.Notation != legal[i].Notation {
			t.Fatalf("version %d: appended %+v (%v), want %q by email (%s reply %q)", cur.Version, recs, err, legal[i].Notation, style, answer)
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
	// Stale: a number answering the old mail, now that the game moved on
	// and it is the seat's turn again.
	for !slices.Contains(after.ToAct(), seat) {
		after = e.moveFirst(after, ana, ben).Game
	}
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
