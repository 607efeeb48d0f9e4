package play_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// withOldNames writes the names into a log's game.created seats and
// game.joined, as logs were written before names left the log.
func withOldNames(t *testing.T, recs []events.Record, names map[string]string) []events.Record {
	t.Helper()
	out := make([]events.Record, len(recs))
	copy(out, recs)
	for i, rec := range out {
		var fields map[string]any
		switch rec.Type {
		case play.EvGameCreated:
			if err := json.Unmarshal(rec.Data, &fields); err != nil {
				t.Fatal(err)
			}
			for _, s := range fields["seats"].([]any) {
				seat := s.(map[string]any)
				if id, ok := seat["player_id"].(string); ok {
					seat["name"] = names[id]
				}
			}
		case play.EvSeatJoined:
			if err := json.Unmarshal(rec.Data, &fields); err != nil {
				t.Fatal(err)
			}
			fields["name"] = names[fields["player_id"].(string)]
		default:
			continue
		}
		data, err := json.Marshal(fields)
		if err != nil {
			t.Fatal(err)
		}
		out[i].Data = data
	}
	return out
}

func TestNewEventsCarryNoNamesAndOldOnesAreUpcast(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, -1)
	ana, ben := e.register(t, "AnaOldlog"), e.register(t, "BenOldlog")
	g, err := e.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seed: strings.Repeat("12", 32),
		Seats: []play.SeatSpec{{Player: "me"}, {}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if g, err = e.svc.Join(ctx, g.ID, ben, nil); err != nil {
		t.Fatal(err)
	}
	if g.Seats[0].Name != "AnaOldlog" || g.Seats[1].Name != "BenOldlog" {
		t.Fatalf("names are read from players: %+v", g.Seats)
	}
	var buf bytes.Buffer
	if err := e.svc.Export(ctx, g.ID, &buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "Oldlog") || !strings.Contains(buf.String(), ana.ID) {
		t.Fatalf("the log should name players by id only:\n%s", buf.String())
	}

	// A log written before names left the log imports without them, and
	// the fold never takes a name from a payload.
	recs, err := play.ReadRecords(&buf)
	if err != nil {
		t.Fatal(err)
	}
	old := withOldNames(t, recs, map[string]string{ana.ID: "Stale Name", ben.ID: "Other Stale"})
	if !strings.Contains(string(old[0].Data), "Stale Name") {
		t.Fatal("the old log should carry names")
	}
	imported, err := e.svc.ImportGame(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	// Its seats belong to nobody here (TestImportSeatsNobody): no name.
	if imported.Seats[0].Name != "" || imported.Seats[1].Name != "" || !imported.Seats[0].Imported {
		t.Fatalf("the imported game's seats are named: %+v", imported.Seats)
	}
	var stored int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1 AND data::text LIKE '%Stale%'`, imported.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != 0 {
		t.Fatalf("%d imported events kept a name", stored)
	}
	if v, err := e.svc.Verify(ctx, imported.ID); err != nil || v.Result != play.VerifyPass {
		t.Fatalf("the imported game verifies %+v, %v", v, err)
	}
	// The audit log of the old log names the seats.
	log, err := e.svc.AuditLog(ctx, imported.ID, play.LogQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if d := log[1].Description; !strings.Contains(d, "seat 1 joined") {
		t.Fatalf("the join reads %q", d)
	}
}

func TestDeleteAccountUnknownPlayer(t *testing.T) {
	t.Parallel()
	e := newEnv(t, -1)
	for _, id := range []string{"", "not-a-uuid", "7f0c6c4e-3b3a-4b64-9a51-111111111111"} {
		if err := e.svc.DeleteAccount(context.Background(), id); !errors.Is(err, play.ErrNotFound) {
			t.Fatalf("DeleteAccount(%q): %v, want ErrNotFound", id, err)
		}
	}
}

// A player holding several seats leaves them all; a search time-control
// bot is stood in for by greedy (which moves at once); leaving again
// changes nothing; the game goes on to its end with the bots.
func TestLeaveGamesEverySeatOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, 8)
	ana, ben := e.register(t, "Ana"), e.register(t, "Ben")
	g, err := e.createAccepted(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seed: strings.Repeat("34", 32),
		Seats:       []play.SeatSpec{{Player: "me"}, {Player: ben.ID}, {Player: "me"}},
		TimeControl: &play.TimeControl{PerMove: play.Duration(time.Hour), Bot: "search"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	seats, err := e.svc.LeaveGames(ctx, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(seats) != 2 {
		t.Fatalf("left seats %+v, want Ana's two", seats)
	}
	after, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, seat := range []int{0, 2} {
		if s := after.Seats[seat]; s.PlayerID != "" || s.Bot != "greedy" || s.Left != play.LeftToBot {
			t.Fatalf("seat %d after leaving: %+v", seat, s)
		}
	}
	if after.Seats[1].Name != "Ben" {
		t.Fatalf("Ben's seat: %+v", after.Seats[1])
	}
	if _, err := e.svc.LeaveGames(ctx, ana.ID); err != nil {
		t.Fatal(err)
	}
	again, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if again.Version != after.Version {
		t.Fatalf("leaving again appended: version %d → %d", after.Version, again.Version)
	}
	// Ben plays on against the two bots to the end.
	for range 400 {
		cur, err := e.svc.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status == play.StatusFinished {
			if v, err := e.svc.Verify(ctx, g.ID); err != nil || v.Result != play.VerifyPass {
				t.Fatalf("the finished game verifies %+v, %v", v, err)
			}
			log, err := e.svc.AuditLog(ctx, g.ID, play.LogQuery{Types: []string{play.EvSeatLeft}})
			if err != nil || len(log) != 2 || !strings.Contains(log[0].Description, "greedy bot plays the seat") {
				t.Fatalf("the audit log of the leaving: %+v, %v", log, err)
			}
			return
		}
		moves := cur.LegalMoves(1)
		if len(moves) == 0 {
			t.Fatalf("Ben has no move at version %d (to act %v)", cur.Version, cur.ToAct())
		}
		if _, err := e.svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: ben.ID},
			Move: moves[0].JSON, Channel: "api"}); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("the game did not end")
}

// TestForfeitRetriesWhenAnotherMoveCameFirst: the seat's resignation is
// decided on a game another move has since moved on (the bot that holds
// the seat meanwhile, or another player, moved first); it is tried again
// on the game as it is, and the game ends, forfeited by that seat.
func TestForfeitRetriesWhenAnotherMoveCameFirst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, 8)
	ana, ben := e.register(t, "Ana"), e.register(t, "Ben")
	g, err := e.createAccepted(ctx, ana, play.CreateGame{Ruleset: "azul-mini",
		Seats:       []play.SeatSpec{{Player: "me"}, {Player: ben.ID}},
		TimeControl: &play.TimeControl{PerMove: play.Duration(time.Hour), OnTimeout: "forfeit"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	stale, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	first := stale.ToAct()[0]
	mover := ana.ID
	if first == 1 {
		mover = ben.ID
	}
	if _, err := e.svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: mover},
		Move: stale.LegalMoves(first)[0].JSON, Channel: "api"}); err != nil {
		t.Fatal(err)
	}
	after, err := play.Forfeit(e.svc, ctx, stale, 1-first)
	if err != nil {
		t.Fatalf("forfeit on a stale game: %v", err)
	}
	if after.Status != play.StatusFinished || after.Version <= stale.Version+1 {
		t.Fatalf("after the forfeit: %s at version %d (stale %d)", after.Status, after.Version, stale.Version)
	}
	final := after.State.Final()
	if final == nil || len(final.Winners) != 1 || final.Winners[0] != first {
		t.Fatalf("the forfeit's result: %+v", final)
	}
}
