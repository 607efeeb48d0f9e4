package notify_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/eventually"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/presence"
)

// testClock is the wall clock moved on by the test.
type testClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}

// presenceEnv is an env whose notifier holds turn mails back for players
// at the table, on clock.
func presenceEnv(t *testing.T) (*env, *presence.Store, *testClock) {
	t.Helper()
	clock := &testClock{}
	var store *presence.Store
	e := newEnvWithConfig(t, 2, func(cfg *notify.Config) {
		store = presence.New(cfg.Pool, clock.now)
		cfg.Presence, cfg.Now, cfg.AwayDelay = store, clock.now, 3*time.Minute
	})
	return e, store, clock
}

// newBotGame is an Azul Mini game of p against the greedy bot, whose
// opening mail to p the test waits for.
func (e *env) newBotGame(p play.Player) *play.Game {
	e.T.Helper()
	g, err := e.Svc.CreateGame(context.Background(), p, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Bot: "greedy"}}}, "")
	if err != nil {
		e.T.Fatal(err)
	}
	e.Relay.Wait(e.T, "the opening mail", func(m outMail) bool { return m.Game == g.ID })
	return g
}

// playAgainstBot makes moves of seat 0 by the API, each once the bot has
// answered the last, and returns the game with seat 0 to act again.
func (e *env) playAgainstBot(g *play.Game, p play.Player, moves int) *play.Game {
	e.T.Helper()
	ctx := context.Background()
	for range moves {
		g = e.waitToAct(g.ID, 0)
		seat := 0
		legal := slices.DeleteFunc(g.LegalMoves(seat), func(m engine.Move) bool { return strings.HasPrefix(m.Notation, "resign") })
		if _, err := e.Svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: p.ID}, Seat: &seat, Move: legal[0].JSON, Channel: "api"}); err != nil {
			e.T.Fatal(err)
		}
	}
	return e.waitToAct(g.ID, 0)
}

// waitToAct waits until a seat must act in a running game.
func (e *env) waitToAct(gameID string, seat int) *play.Game {
	e.T.Helper()
	var g *play.Game
	eventually.True(e.T, 30*time.Second, func() bool {
		var err error
		g, err = e.Svc.Game(context.Background(), gameID)
		if err != nil {
			e.T.Fatal(err)
		}
		if g.Status != play.StatusActive {
			e.T.Fatalf("the game ended (%s)", g.Status)
		}
		return slices.Contains(g.ToAct(), seat)
	}, "seat %d never got to act", seat)
	return g
}

// settled waits until the follower has handled every event and every
// mail job has run: sent, dropped, or snoozed (scheduled again).
func (e *env) settled(t *testing.T) {
	t.Helper()
	e.CaughtUp(t)
	var open int
	eventually.True(t, 30*time.Second, func() bool {
		if err := e.Pool.QueryRow(context.Background(), `SELECT count(*) FROM river_job WHERE kind = 'azuld_mail'
			AND (state IN ('available', 'running', 'retryable') OR (state = 'scheduled' AND scheduled_at <= now()))`).Scan(&open); err != nil {
			t.Fatal(err)
		}
		return open == 0
	}, "%d mail jobs still to run", eventually.Last(func() any { return open }))
}

// wakeSnoozed runs the snoozed mail jobs now, as when their time comes.
func (e *env) wakeSnoozed(t *testing.T) int64 {
	t.Helper()
	tag, err := e.Pool.Exec(context.Background(), `UPDATE river_job SET scheduled_at = now(), state = 'available' WHERE kind = 'azuld_mail' AND state = 'scheduled'`)
	if err != nil {
		t.Fatal(err)
	}
	return tag.RowsAffected()
}

// turnMails counts the turn mails of a game the relay has.
func (e *env) turnMails(gameID string) int {
	n := 0
	for _, m := range e.Relay.All() {
		if m.Game == gameID && m.Kind == compose.KindTurn {
			n++
		}
	}
	return n
}

// TestNoTurnMailAtTheTable: Ana plays a bot live, the game's stream open:
// none of her turns brings a mail. She closes the page: the turn waiting
// for her brings its mail once she has been away the delay, and only
// once.
func TestNoTurnMailAtTheTable(t *testing.T) {
	t.Parallel()
	e, store, clock := presenceEnv(t)
	ctx := context.Background()
	ana := e.Register("Ana")
	g := e.newBotGame(ana)
	before := e.turnMails(g.ID)

	stream, err := store.Open(ctx, g.ID, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	g = e.playAgainstBot(g, ana, 4)
	e.settled(t)
	if n := e.turnMails(g.ID) - before; n != 0 {
		t.Fatalf("%d turn mails to Ana while she played at the table", n)
	}
	// Her turns wait, checked again when their time comes: still there,
	// still none.
	if woken := e.wakeSnoozed(t); woken == 0 {
		t.Fatal("no turn mail waits for Ana")
	}
	e.settled(t)
	if n := e.turnMails(g.ID) - before; n != 0 {
		t.Fatalf("%d turn mails to Ana at the table", n)
	}

	// She leaves; a moment later she is not yet away long enough.
	if err := stream.Close(ctx); err != nil {
		t.Fatal(err)
	}
	clock.advance(time.Minute)
	e.wakeSnoozed(t)
	e.settled(t)
	if n := e.turnMails(g.ID) - before; n != 0 {
		t.Fatalf("%d turn mails a minute after Ana left", n)
	}
	// Away for the delay: the turn that is hers now is mailed, once; the
	// turns she played are not.
	clock.advance(3 * time.Minute)
	e.wakeSnoozed(t)
	e.settled(t)
	m := e.Relay.Wait(t, "the turn mail once Ana is away", func(m outMail) bool { return m.Game == g.ID && m.Kind == compose.KindTurn && m.Version == g.Version })
	if n := e.turnMails(g.ID) - before; n != 1 {
		t.Fatalf("%d turn mails after Ana left, want 1 (the last: %s)", n, m.Header.Get("Message-Id"))
	}
	if woken := e.wakeSnoozed(t); woken != 0 {
		e.settled(t)
		if n := e.turnMails(g.ID) - before; n != 1 {
			t.Fatalf("%d turn mails after the waiting ones ran again", n)
		}
	}
}

// TestNoTurnMailJustAfterMoving: a player who moved by the API a minute
// ago, page closed, gets no mail for the bot's answer yet; the mail comes
// when the delay since the move has passed.
func TestNoTurnMailJustAfterMoving(t *testing.T) {
	t.Parallel()
	e, _, clock := presenceEnv(t)
	ana := e.Register("Ana")
	g := e.newBotGame(ana)
	before := e.turnMails(g.ID)
	g = e.playAgainstBot(g, ana, 1)
	e.settled(t)
	clock.advance(time.Minute)
	e.wakeSnoozed(t)
	e.settled(t)
	if n := e.turnMails(g.ID) - before; n != 0 {
		t.Fatalf("%d turn mails a minute after Ana moved", n)
	}
	clock.advance(3 * time.Minute)
	e.wakeSnoozed(t)
	e.settled(t)
	e.Relay.Wait(t, "the turn mail after the delay", func(m outMail) bool { return m.Game == g.ID && m.Kind == compose.KindTurn && m.Version == g.Version })
	if n := e.turnMails(g.ID) - before; n != 1 {
		t.Fatalf("%d turn mails after the delay, want 1", n)
	}
}
