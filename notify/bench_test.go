package notify_test

import (
	"context"
	"testing"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// BenchmarkMoveWithOutbox is the cost the outbox adds to a move: the same
// moves through a command path whose log nobody follows (bare: the
// append's one statement alone), and azuld's, while the follower of the
// log, running beside it, writes the other read models and enqueues the
// jobs (followed). Nothing delivers during the run.
func BenchmarkMoveWithOutbox(b *testing.B) {
	for _, name := range []string{"bare", "followed"} {
		b.Run(name, func(b *testing.B) {
			e := newEnvAt(b, pg.NewDatabase(b), 0)
			var svc *play.Service
			switch name {
			case "bare":
				svc = play.New(play.Config{Pool: e.Pool, Store: events.NewStore(e.Pool), Rules: rulesets.All()})
			default:
				svc = e.Svc
				e.Follow(e.N, notify.FollowOptions{})
			}
			ana, ben := e.Register("Ana"), e.Register("Ben")
			players := map[int]play.Player{0: ana, 1: ben}
			newGame := func() *play.Game {
				g, err := mailtest.CreateAccepted(context.Background(), svc, ana, play.CreateGame{Ruleset: "summer-pavilion", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}}, "")
				if err != nil {
					b.Fatal(err)
				}
				return g
			}
			g := newGame()
			b.ResetTimer()
			for range b.N {
				if g.Status != play.StatusActive {
					b.StopTimer()
					g = newGame()
					b.StartTimer()
				}
				seat := g.ToAct()[0]
				moves := g.LegalMoves(seat)
				m := moves[0]
				if m.Notation == "resign" && len(moves) > 1 {
					m = moves[1]
				}
				res, err := svc.Move(context.Background(), play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: players[seat].ID}, Seat: &seat, Move: m.JSON, Channel: "api"})
				if err != nil {
					b.Fatal(err)
				}
				g = res.Game
			}
		})
	}
}
