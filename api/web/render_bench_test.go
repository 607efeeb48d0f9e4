package web

import (
	"io"
	"testing"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// BenchmarkRenderLobby executes the lobby's template alone (no database,
// no HTTP) for a player with a full lobby, in each language: the cost of
// the catalogue against English, which the goal bounds at 10 % more.
func BenchmarkRenderLobby(b *testing.B) {
	w, err := New(Config{Service: play.New(play.Config{Rules: rulesets.All()})})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	deadline := now.Add(50 * time.Hour)
	for _, lang := range []string{"en", "nl", "de", "it"} {
		l := w.cat.For(lang, "Europe/Amsterdam")
		lg := func(i int) lobbyGame {
			return lobbyGame{ID: "01a214fd-0635-7ee4-b22b-ac44191d89e0", Ruleset: "summer-pavilion", Title: rulesetTitle(l, "summer-pavilion"),
				Players: "Ana · Bea", Since: now.Add(-time.Duration(i) * time.Hour), Deadline: &deadline, Free: i % 3, CanJoin: i%2 == 0,
				Result: resultLine(l, fakeFinished(), "a")}
		}
		lob := &lobby{}
		for i := range 10 {
			lob.Turns = append(lob.Turns, lg(i))
			lob.Waiting = append(lob.Waiting, lg(i))
			lob.Open = append(lob.Open, lg(i))
			lob.Finished = append(lob.Finished, lg(i))
		}
		p := &page{Name: "lobby", Title: l.T("web.lobby.title"), L: l, Now: now, CSRF: "x", Langs: w.switcherNames(), Path: "/",
			Session: &session{Player: play.Player{Name: "Ana"}}, Lobby: lob}
		t := w.pages[lang]["lobby"]
		b.Run(lang, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := t.ExecuteTemplate(io.Discard, "layout", p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// fakeFinished is a finished game between Ana (a) and Bea (b).
func fakeFinished() projections.GameRow {
	return projections.GameRow{
		Seats: []projections.SeatRow{{Seat: 0, PlayerID: "a", Name: "Ana"}, {Seat: 1, PlayerID: "b", Name: "Bea"}},
		Final: &engine.Final{Reason: "row_completed", Winners: []int{1},
			Players: []engine.FinalPlayer{{Seat: 0, Score: 31, Rank: 2}, {Seat: 1, Score: 40, Rank: 1}}},
	}
}
