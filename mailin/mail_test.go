package mailin_test

import (
	"context"
	"math/rand/v2"
	"mime"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// TestWholeGameByEmail plays a 2-player Summer Pavilion game only by
// answering azuld's mails through its SMTP listener: from the first mail
// to the game-over mail with the final breakdown.
func TestWholeGameByEmail(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	ctx := context.Background()
	g, err := e.Svc.CreateGame(ctx, ana, play.CreateGame{
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
	inv := e.Relay.Wait(t, "first mail to Ben", func(m outMail) bool { return slices.Contains(m.To, ben.Email) })
	if text := strings.Join(strings.Fields(inv.Text), " "); inv.Kind != compose.KindInvited || !strings.Contains(text, "Ana invites you") || !strings.Contains(text, "Reply “accept”") {
		t.Fatalf("Ben's first mail is %q:\n%s", inv.Kind, inv.Text)
	}
	if g.Status != play.StatusOpen {
		t.Fatalf("the game is %q before Ben accepted", g.Status)
	}
	roots[ben.Email] = inv.Header.Get("Message-Id")
	if err := e.sendClientReply(clientStyles[0], mail.Address{Name: ben.Name, Address: ben.Email}, inv, "accept"); err != nil {
		t.Fatalf("accept by reply: %v", err)
	}
	g = e.WaitVersion(g.ID, g.Version)
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
		first := e.Relay.Wait(t, "start mail to "+p.Name, func(m outMail) bool { return slices.Contains(m.To, p.Email) && m.Kind != compose.KindInvited })
		if first.Kind != kind || !strings.Contains(first.Text, "has started") {
			t.Fatalf("first mail to %s is %q:\n%s", p.Name, first.Kind, first.Text)
		}
		for _, bad := range []string{"take your seat", "when every seat is taken"} {
			if strings.Contains(first.Text, bad) {
				t.Fatalf("first mail to %s says %q:\n%s", p.Name, bad, first.Text)
			}
		}
		if p == ben {
			// Ben's thread began with the invitation.
			if first.Header.Get("In-Reply-To") != roots[ben.Email] {
				t.Fatalf("Ben's start mail refers to %q, not the invitation %q", first.Header.Get("In-Reply-To"), roots[ben.Email])
			}
			continue
		}
		// The first mail is the root of the seat's thread.
		if first.Header.Get("In-Reply-To") != "" || first.Header.Get("References") != "" {
			t.Fatalf("the first mail to %s refers to %q", p.Name, first.Header.Get("References"))
		}
		roots[p.Email] = first.Header.Get("Message-Id")
	}
	for _, m := range e.Relay.All() {
		if m.Kind == compose.KindInvitation {
			t.Fatalf("an invitation was sent for a game that started at once:\n%s", m.Text)
		}
	}

	rng := rand.New(rand.NewPCG(1, 2))
	moves := 0
	for {
		cur, err := e.Svc.Game(context.Background(), g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status == play.StatusFinished {
			g = cur
			break
		}
		seat := cur.ToAct()[0]
		m := e.TurnMail(g.ID, seat, cur.Version)
		if root := roots[players[seat].Email]; m.Header.Get("Message-Id") != root && (m.Header.Get("In-Reply-To") != root || m.Header.Get("References") != root) {
			t.Fatalf("turn mail not threaded on the first mail %s: In-Reply-To %q", root, m.Header.Get("In-Reply-To"))
		}
		if !strings.Contains(strings.Join(strings.Fields(m.Text), " "), "Your board is the one marked “"+players[seat].Name+" (you)”") || !strings.Contains(m.Text, players[seat].Name+" (you)") ||
			strings.Contains(m.Text, "Seat 0") || strings.Contains(m.Text, "seat 1") {
			t.Fatalf("version %d: the turn mail does not name the boards:\n%s", cur.Version, m.Text)
		}
		subject, _ := new(mime.WordDecoder).DecodeHeader(m.Header.Get("Subject"))
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
			if !strings.Contains(m.Text, strconv.Itoa(n+1)+". "+legal[i].Notation) {
				t.Fatalf("version %d: the turn mail does not list %d. %q:\n%s", cur.Version, n+1, legal[i].Notation, m.Text)
			}
			answer = strconv.Itoa(n + 1)
		}
		if answer == "" || moves%4 == 3 {
			answer = legal[i].Notation
		}
		if passes && len(numbered) == 0 && !strings.Contains(m.Text, "You cannot place a tile now") {
			t.Fatalf("version %d: the seat can only pass, and the turn mail does not say so:\n%s", cur.Version, m.Text)
		}
		if passes && len(numbered) > 0 && !strings.Contains(m.Text, "Or pass, keeping up to four tiles") {
			t.Fatalf("version %d: the turn mail lists passes but does not describe passing:\n%s", cur.Version, m.Text)
		}
		// Answer as the mail programs players use do.
		style := clientStyles[moves%len(clientStyles)]
		if err := e.sendClientReply(style, mail.Address{Name: players[seat].Name, Address: players[seat].Email}, m, answer); err != nil {
			t.Fatalf("version %d: reply: %v", cur.Version, err)
		}
		e.WaitVersion(g.ID, cur.Version)
		recs, err := e.Svc.Events(context.Background(), g.ID, cur.Version, 1)
		if err != nil || recs[0].Meta.Channel != "email" || recs[0].Meta.Notation != legal[i].Notation {
			t.Fatalf("version %d: appended %+v (%v), want %q by email (%s reply %q)", cur.Version, recs, err, legal[i].Notation, style, answer)
		}
		moves++
	}
	if g.State.Final() == nil {
		t.Fatal("no final result")
	}
	for _, p := range []play.Player{ana, ben} {
		over := e.Relay.Wait(t, "game over to "+p.Name, func(m outMail) bool { return m.Kind == compose.KindGameOver && slices.Contains(m.To, p.Email) })
		for _, fp := range g.State.Final().Players {
			if !strings.Contains(over.Text, strconv.Itoa(fp.Score)) {
				t.Fatalf("game-over mail lacks score %d:\n%s", fp.Score, over.Text)
			}
		}
	}
	// A reply to the game-over mail changes nothing and is answered.
	over := e.Relay.Wait(t, "game over to Ana", func(m outMail) bool { return m.Kind == compose.KindGameOver && slices.Contains(m.To, ana.Email) })
	if err := e.SendReply(ana.Email, mailtest.ReplyTo(t, over), over.Header.Get("Message-Id"), "<after-the-end@example.org>", "1"); err != nil {
		t.Fatal(err)
	}
	e.Relay.Wait(t, "refusal after the end", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindRefused) && slices.Contains(m.To, ana.Email) && strings.Contains(m.Text, "over")
	})
	if v := e.EventCount(g.ID); v != g.Version {
		t.Fatalf("a reply after the end changed the log: version %d, want %d", v, g.Version)
	}
	// Every accepted move was confirmed.
	accepted := 0
	for _, m := range e.Relay.All() {
		if m.Kind == compose.KindAccepted {
			accepted++
		}
	}
	if accepted == 0 || moves < 20 {
		t.Fatalf("%d moves, %d confirmations", moves, accepted)
	}
	t.Logf("%d moves by email, %d mails sent", moves, len(e.Relay.All()))
}

// TestRepliesThatChangeNothing sends malformed, forged, unknown-token,
// duplicate and stale replies: the log stays as it is, and only the
// player's own mistakes are answered.
func TestRepliesThatChangeNothing(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ana, ben := e.Register("Ana"), e.Register("Ben")
	g := e.NewPavilion(ana, ben, nil)
	seat := g.ToAct()[0]
	p := map[int]play.Player{0: ana, 1: ben}[seat]
	other := map[int]play.Player{0: ben, 1: ana}[seat]
	turn := e.TurnMail(g.ID, seat, g.Version)
	addr := mailtest.ReplyTo(t, turn)
	inReplyTo := turn.Header.Get("Message-Id")
	version := g.Version

	// Malformed: refused by the listener for good, nothing changes.
	if err := mailtest.SendRaw(e.Inbound, p.Email, addr, "this is not a mail header block\r\n\r\n1\r\n"); err == nil || !strings.HasPrefix(err.Error(), "5") {
		t.Fatalf("malformed mail: %v, want a 5xx refusal", err)
	}
	// Forged: another player's address.
	if err := e.SendReply(other.Email, addr, inReplyTo, "", "1"); err != nil {
		t.Fatal(err)
	}
	// Unknown token: refused in the SMTP session.
	if err := e.SendReply(p.Email, "play+"+strings.Repeat("a", 32)+"@"+domain, inReplyTo, "", "1"); err == nil || !strings.HasPrefix(err.Error(), "550") {
		t.Fatalf("unknown address: %v, want 550", err)
	}
	// Not a move: refused with the rule and the moves.
	if err := e.SendReply(p.Email, addr, inReplyTo, "<bad.1@example.org>", "place the moon on the sun"); err != nil {
		t.Fatal(err)
	}
	refused := e.Relay.Wait(t, "refusal", func(m outMail) bool { return strings.HasPrefix(m.Kind, compose.KindRefused) })
	if !slices.Contains(refused.To, p.Email) || !strings.Contains(refused.Text, "1") {
		t.Fatalf("refusal to %v:\n%s", refused.To, refused.Text)
	}
	if e.EventCount(g.ID) != version {
		t.Fatal("a bad reply changed the game")
	}

	// A good move, delivered twice with the same Message-ID: applied once.
	if err := e.SendReply(p.Email, addr, inReplyTo, "<twice@example.org>", "1"); err != nil {
		t.Fatal(err)
	}
	after := e.WaitVersion(g.ID, version)
	if err := e.SendReply(p.Email, addr, inReplyTo, "<twice@example.org>", "1"); err != nil {
		t.Fatal(err)
	}
	// Stale: a number answering the old mail, now that the game moved on
	// and it is the seat's turn again.
	for !slices.Contains(after.ToAct(), seat) {
		after = e.MoveFirst(after, ana, ben).Game
	}
	if err := e.SendReply(p.Email, addr, inReplyTo, "<stale@example.org>", "2"); err != nil {
		t.Fatal(err)
	}
	stale := e.Relay.Wait(t, "refusal of the stale reply", func(m outMail) bool {
		return strings.HasPrefix(m.Kind, compose.KindRefused) && strings.Contains(m.Text, "moved on")
	})
	if stale.Version != after.Version {
		t.Fatalf("the stale refusal lists the moves of version %d, want %d", stale.Version, after.Version)
	}
	if got := e.EventCount(g.ID); got != after.Version {
		t.Fatalf("duplicate or stale reply changed the log: %d events, want %d", got, after.Version)
	}
	// Neither the forger nor the unknown address was answered.
	for _, m := range e.Relay.All() {
		if slices.Contains(m.To, other.Email) && strings.HasPrefix(m.Kind, compose.KindRefused) {
			t.Fatalf("the forger was answered: %s", m.Kind)
		}
	}
	// "stop" stops the mails of that game for the player.
	if err := e.SendReply(p.Email, addr, inReplyTo, "<stop@example.org>", "stop"); err != nil {
		t.Fatal(err)
	}
	var stopped bool
	if err := e.Pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM mail_stops WHERE game_id = $1 AND seat = $2)`, g.ID, seat).Scan(&stopped); err != nil || !stopped {
		t.Fatalf("stop reply: %v %v", stopped, err)
	}
}
