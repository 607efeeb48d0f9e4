package loadgen

import (
	"fmt"
	"testing"
	"time"

	"github.com/azuld/azuld/mail/compose"
)

// turnMail is a turn mail as azuld writes it, for a game, version and seat.
func turnMail(game string, version int64, seat int) []byte {
	id := compose.MessageID(compose.Sender{Domain: "mail.test"}, game, version, seat, compose.KindTurn)
	return fmt.Appendf(nil, "From: azuld <play@mail.test>\r\nTo: x@load.test\r\nMessage-ID: %s\r\nSubject: your turn\r\n\r\nbody\r\n", id)
}

// A player waiting for its turn mail gets its own: not a mail of another
// game, version or seat, nor another kind of mail of its game; a mail
// that came first is kept for the player who waits for it next, and a
// mail addressed to another player than the seat's is counted.
func TestMailboxMatchesTheTurn(t *testing.T) {
	rec := newRecorder([]string{FeelMail})
	mb := &mailbox{rec: rec, waiting: map[mailKey]*mailWaiter{}, arrived: map[mailKey]mailArrival{}}
	ack := time.Now()
	done, _ := mb.expect(mailKey{game: "g-a", version: 7, seat: 1}, "a1@load.test", ack)
	for _, raw := range [][]byte{
		turnMail("g-b", 7, 1), turnMail("g-a", 6, 1), turnMail("g-a", 7, 0),
		[]byte("Message-ID: " + compose.MessageID(compose.Sender{Domain: "mail.test"}, "g-a", 7, 1, compose.KindGameOver) + "\r\n\r\nover\r\n"),
	} {
		mb.arrive(ack.Add(time.Millisecond), []string{"a1@load.test"}, raw)
	}
	select {
	case <-done:
		t.Fatal("another mail taken for the turn")
	default:
	}
	mb.arrive(ack.Add(40*time.Millisecond), []string{"a1@load.test"}, turnMail("g-a", 7, 1))
	select {
	case <-done:
	default:
		t.Fatal("the turn mail not taken")
	}
	// Mail of game b came before anyone waited: taken at once, addressed
	// to someone else.
	done, _ = mb.expect(mailKey{game: "g-b", version: 7, seat: 1}, "b1@load.test", ack)
	<-done
	f := rec.feel[FeelMail]
	if len(f.all) != 2 || f.all[0] != 40*time.Millisecond || f.all[1] != time.Millisecond || f.mismatched != 1 {
		t.Errorf("samples %v, mismatched %d", f.all, f.mismatched)
	}
	// A wait given up counts a missing mail; one the run's end cut does not.
	_, giveUp := mb.expect(mailKey{game: "g-c", version: 3, seat: 0}, "c0@load.test", ack)
	giveUp(true)
	_, giveUp = mb.expect(mailKey{game: "g-c", version: 5, seat: 0}, "c0@load.test", ack)
	giveUp(false)
	if f.missing != 1 || len(mb.arrived) != 2 || mb.mails != 5 {
		t.Errorf("missing %d, %d kept, %d mails", f.missing, len(mb.arrived), mb.mails)
	}
}

// The stream's messages measure the moves: a web move by the state of its
// version, a bot's move by its first event; what the stream showed before
// the answer was read counts as early.
func TestFollowerMeasures(t *testing.T) {
	rec := newRecorder([]string{FeelWeb, FeelBot})
	f := &follower{rec: rec, state: 4, any: 4, changed: make(chan struct{}, 1)}
	ack := time.Now()
	f.expect(FeelWeb, 6, ack)
	f.expect(FeelBot, 7, ack)
	f.seen("event", 6, ack.Add(time.Millisecond))
	f.seen("state", 6, ack.Add(3*time.Millisecond))
	f.seen("event", 7, ack.Add(20*time.Millisecond))
	f.expect(FeelWeb, 7, ack.Add(30*time.Millisecond))
	web, bot := rec.feel[FeelWeb], rec.feel[FeelBot]
	if len(web.all) != 1 || web.all[0] != 3*time.Millisecond {
		t.Errorf("web %v", web.all)
	}
	if len(bot.all) != 1 || bot.all[0] != 20*time.Millisecond {
		t.Errorf("bot %v", bot.all)
	}
	f.seen("state", 7, ack.Add(50*time.Millisecond))
	f.expect(FeelWeb, 7, ack.Add(60*time.Millisecond))
	if len(web.all) != 3 || web.all[1] != 20*time.Millisecond || web.all[2] != 0 || web.early != 1 {
		t.Errorf("web %v early %d", web.all, web.early)
	}
}
