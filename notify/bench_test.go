package notify_test

import (
	"context"
	"testing"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// BenchmarkMoveWithOutbox is the cost the outbox adds to a move: the same
// moves through a command path without hooks and with the notifier's hook
// (which reads the seats' players, stops and webhooks and inserts the
// jobs in the append's transaction). Nothing delivers during the run.
func BenchmarkMoveWithOutbox(b *testing.B) {
	for _, withOutbox := range []bool{false, true} {
		name := "bare"
		if withOutbox {
			name = "outbox"
		}
		b.Run(name, func(b *testing.B) {
			e := newEnvWith(b, 0)
			svc := play.New(play.Config{Pool: e.pool, Store: events.NewStore(e.pool), Rules: rulesets.All()})
			if withOutbox {
				svc = e.svc
			}
			ana, ben := e.register("Ana"), e.register("Ben")
			players := map[int]play.Player{0: ana, 1: ben}
			newGame := func() *play.Game {
				g, err := svc.CreateGame(context.Background(), ana, play.CreateGame{Ruleset: "summer-pavilion", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}}, "")
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
