package notify_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/azuld/azuld/internal/mailtest"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// TestMailsTellWhatHappened plays games through the API and reads the
// mails the players get: a turn mail first tells what the others played
// since the reader's last move, with their names; after a round's end,
// how it was scored for everyone; the game-over mail the last round's
// scoring. All of it before the table.
func TestMailsTellWhatHappened(t *testing.T) {
	t.Parallel()
	for _, ruleset := range []string{"azul-mini", "summer-pavilion"} {
		t.Run(ruleset, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			ana, ben := e.Register("Ana"), e.Register("Ben")
			g, err := mailtest.CreateAccepted(context.Background(), e.Svc, ana, play.CreateGame{
				Ruleset: ruleset, Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}, Seed: strings.Repeat("7c", 32),
			}, "")
			if err != nil {
				t.Fatal(err)
			}
			names := []string{ana.Name, ben.Name}
			heading := compose.Title(ruleset) + ", 2 players"
			rng := rand.New(rand.NewPCG(3, 4))
			moves, roundEnds := 0, 0
			for {
				before := g
				res, err := moveRandom(context.Background(), e.Svc, g.ID, rng)
				if err != nil {
					t.Fatal(err)
				}
				g = res.Game
				moves++
				mover := before.ToAct()[0]
				if g.Status == play.StatusFinished {
					break
				}
				seat := g.ToAct()[0]
				roundEnded := g.State.View().Round > before.State.View().Round
				if moves != 1 && !(roundEnded && roundEnds < 2) {
					continue
				}
				m := e.TurnMail(g.ID, seat, g.Version)
				text := strings.Join(strings.Fields(m.Text), " ")
				board := strings.Index(text, heading)
				if board < 0 {
					t.Fatalf("version %d: no table in the turn mail:\n%s", g.Version, m.Text)
				}
				if moves == 1 {
					// The first line tells the other's move, with the name.
					since := strings.Index(text, "Since your last move: "+names[mover]+" took ")
					if since < 0 || since > board || !strings.HasPrefix(text, "Hello "+names[seat]+", Since your last move:") {
						t.Fatalf("the turn mail after %s's first move does not tell it first:\n%s", names[mover], m.Text)
					}
					t.Logf("the first turn mail to %s:\n%s", names[seat], m.Text)
					continue
				}
				roundEnds++
				round := before.State.View().Round
				scored := strings.Index(text, fmt.Sprintf("ound %d was scored:", round))
				if scored < 0 || scored > board {
					t.Fatalf("version %d: round %d's end is not told before the table:\n%s", g.Version, round, m.Text)
				}
				// Every seat's score, under its name, the reader's marked.
				for s, sc := range g.State.Scores() {
					name := names[s]
					if s == seat {
						name += " (you)"
					}
					want := fmt.Sprintf("%s: %d points (", name, sc)
					if sc == 1 {
						want = name + ": 1 point ("
					}
					if !strings.Contains(text[scored:board], want) {
						t.Fatalf("version %d: round %d's scoring lacks %q:\n%s", g.Version, round, want, m.Text)
					}
				}
				item := map[string]string{"azul-mini": " to the wall: +", "summer-pavilion": "passed, keeping "}[ruleset]
				if strings.Count(text[scored:board], item) < 2 {
					t.Fatalf("version %d: round %d's scoring does not say what each scored (%q):\n%s", g.Version, round, item, m.Text)
				}
				if strings.Contains(text, "seat 0") || strings.Contains(text, "seat 1") {
					t.Fatalf("version %d: the mail speaks of seats, not players:\n%s", g.Version, m.Text)
				}
				t.Logf("the turn mail to %s after round %d:\n%s", names[seat], round, m.Text)
			}
			if roundEnds == 0 {
				t.Fatal("no round ended")
			}
			for seat, p := range []play.Player{ana, ben} {
				over := e.Relay.Wait(t, "game over to "+p.Name, func(m outMail) bool { return m.Kind == compose.KindGameOver && slices.Contains(m.To, p.Email) })
				text := strings.Join(strings.Fields(over.Text), " ")
				if !strings.Contains(text, "was scored:") || strings.Index(text, "was scored:") > strings.Index(text, "Final result:") {
					t.Fatalf("the game-over mail to %s does not tell the last round's scoring:\n%s", p.Name, over.Text)
				}
				if seat == 0 {
					t.Logf("the game-over mail to %s:\n%s", p.Name, over.Text)
				}
			}
		})
	}
}
