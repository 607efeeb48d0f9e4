package play_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// finishedBotGame plays a bots-only game to the end and exports it.
func finishedBotGame(t *testing.T, e *env, ruleset string) (*play.Game, []events.Record) {
	t.Helper()
	ctx := context.Background()
	owner := e.register(t, "Ana")
	g, err := e.svc.CreateGame(ctx, owner, play.CreateGame{Ruleset: ruleset, Seats: []play.SeatSpec{{Bot: "random"}, {Bot: "random"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != play.StatusFinished {
		t.Fatalf("status %s", g.Status)
	}
	var buf bytes.Buffer
	if err := e.svc.Export(ctx, g.ID, &buf); err != nil {
		t.Fatal(err)
	}
	recs, err := play.ReadRecords(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return g, recs
}

// cloneRecords copies records deeply enough to tamper with one.
func cloneRecords(recs []events.Record) []events.Record {
	out := make([]events.Record, len(recs))
	for i, r := range recs {
		r.Data = bytes.Clone(r.Data)
		out[i] = r
	}
	return out
}

func TestVerifyFindsTheFirstTamperedEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	for _, ruleset := range []string{"azul-mini", "summer-pavilion"} {
		g, recs := finishedBotGame(t, e, ruleset)
		if v := play.VerifyRecords(rulesets.All(), recs); v.Result != play.VerifyPass || v.Seed != g.Seed || v.Reveals < 2 {
			t.Fatalf("%s: the untouched export: %+v %+v", ruleset, v, v.Mismatch)
		}

		// A different draw in the second reveal: the fold may still
		// accept it, the verification does not.
		reveals := 0
		for i, rec := range recs {
			if !strings.Contains(string(rec.Data), `"draw`) && rec.Type != "factories_filled" && rec.Type != "round_started" {
				continue
			}
			if reveals++; reveals < 2 {
				continue
			}
			tampered := cloneRecords(recs)
			tampered[i].Data = swapTwoColours(t, tampered[i].Data)
			v := play.VerifyRecords(rulesets.All(), tampered)
			if v.Result != play.VerifyFail || v.Mismatch == nil || v.Mismatch.Version > rec.Version {
				t.Fatalf("%s: a tampered draw at version %d: %+v %+v", ruleset, rec.Version, v, v.Mismatch)
			}
			if v.Mismatch.Version == rec.Version && (len(v.Mismatch.Expected) == 0 || len(v.Mismatch.Stored) == 0) {
				t.Errorf("%s: the mismatch shows what was expected and what is stored: %+v", ruleset, v.Mismatch)
			}
			if _, err := e.svc.ImportGame(ctx, tampered); !errors.Is(err, play.ErrBadLog) {
				t.Fatalf("%s: importing a tampered log: %v", ruleset, err)
			}
			break
		}
		if reveals < 2 {
			t.Fatalf("%s: found %d reveals", ruleset, reveals)
		}

		// Another revealed seed than the committed one.
		tampered := cloneRecords(recs)
		last := &tampered[len(tampered)-1]
		if last.Type != play.EvSeedRevealed {
			t.Fatalf("%s: the last event is %s", ruleset, last.Type)
		}
		last.Data = json.RawMessage(`{"seed":"` + strings.Repeat("ab", 32) + `"}`)
		if v := play.VerifyRecords(rulesets.All(), tampered); v.Result != play.VerifyFail {
			t.Fatalf("%s: a seed that does not match the commitment: %+v", ruleset, v)
		}

		// A log that does not fold is refused whole.
		tampered = cloneRecords(recs)
		tampered[len(tampered)/2].Type = "tiles_vanished"
		if _, err := e.svc.ImportGame(ctx, tampered); !errors.Is(err, play.ErrBadLog) {
			t.Fatalf("%s: importing a log that does not fold: %v", ruleset, err)
		}
	}
	var games int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM games`).Scan(&games); err != nil || games != 2 {
		t.Fatalf("refused imports must write nothing: %d games (%v)", games, err)
	}
}

// swapTwoColours exchanges the first two different colour names in an
// event's JSON, keeping it well-formed.
func swapTwoColours(t *testing.T, data []byte) []byte {
	t.Helper()
	colours := []string{"blue", "yellow", "red", "black", "white", "orange", "green", "purple"}
	text := string(data)
	first, second := "", ""
	firstAt := len(text)
	for _, c := range colours {
		if i := strings.Index(text, `"`+c+`"`); i >= 0 && i < firstAt {
			first, firstAt = c, i
		}
	}
	for _, c := range colours {
		if c != first && strings.Contains(text, `"`+c+`"`) {
			second = c
			break
		}
	}
	if first == "" || second == "" {
		t.Fatalf("no two colours in %s", text)
	}
	return []byte(strings.Replace(text, `"`+first+`"`, `"`+second+`"`, 1))
}

func TestVerifyBeforeTheEndShowsTheCommitmentOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	ana, ben := e.register(t, "Ana"), e.register(t, "Ben")
	g, err := e.createAccepted(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seats: []play.SeatSpec{{Player: "me"}, {Player: ben.ID}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.svc.Verify(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v.Result != play.VerifyCommitted || v.Seed != "" || v.SeedCommitment != g.SeedCommitment {
		t.Fatalf("verify of a running secret game: %+v", v)
	}
	recs, err := e.store.Load(ctx, g.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.ImportGame(ctx, recs); !errors.Is(err, play.ErrBadLog) {
		t.Fatalf("importing a running game with a secret seed: %v", err)
	}
	// A public seed verifies from the start.
	pub, _, _ := twoPlayerGame(t, e)
	if v, err := e.svc.Verify(ctx, pub.ID); err != nil || v.Result != play.VerifyPass {
		t.Fatalf("verify of a running public game: %v %+v", err, v)
	}
}

func FuzzReadRecords(f *testing.F) {
	f.Add([]byte(`{"game_id":"0190c0de-0000-7000-8000-000000000001","version":1,"type":"game.created","schema":1,"data":{},"meta":{"actor":{"kind":"player"}}}` + "\n"))
	f.Add([]byte("\n\n{}\n"))
	f.Add([]byte(`{"version":1,"type":"x","schema":1,"data":[1,2]}` + "\n" + `{"version":3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := play.ReadRecords(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, play.ErrBadLog) {
				t.Fatalf("an error that is not ErrBadLog: %v", err)
			}
			return
		}
		for i, r := range recs {
			if r.Version != int64(i+1) || r.Type == "" || !json.Valid(r.Data) {
				t.Fatalf("accepted a bad record %+v", r)
			}
		}
		// Whatever reads, verifies without panicking.
		_ = play.VerifyRecords(rulesets.All(), recs)
	})
}

func TestRoundsAddUpToTheFinalScores(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 0)
	ctx := context.Background()
	for _, ruleset := range []string{"azul-mini", "summer-pavilion"} {
		g, _ := finishedBotGame(t, e, ruleset)
		rounds, err := e.svc.Rounds(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		start, err := e.svc.GameAt(ctx, g.ID, 2) // after game_started
		if err != nil {
			t.Fatal(err)
		}
		prev := start.State.Scores()
		for i, r := range rounds {
			if r.Round != i+1 || r.FromVersion > r.ToVersion || r.Moves == 0 {
				t.Fatalf("%s: round %d: %+v", ruleset, i+1, r)
			}
			for seat := range r.Scores {
				if r.Gained[seat] != r.Scores[seat]-prev[seat] {
					t.Fatalf("%s: round %d seat %d gained %d, scores %d → %d", ruleset, r.Round, seat, r.Gained[seat], prev[seat], r.Scores[seat])
				}
			}
			prev = r.Scores
		}
		if got, want := mustJSON(t, prev), mustJSON(t, g.State.Scores()); got != want {
			t.Fatalf("%s: the last round ends at %s, the game at %s", ruleset, got, want)
		}
	}
}
