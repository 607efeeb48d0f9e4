package play_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/projections"
)

// TestImportSeatsNobody: an import keeps no id of the players its log
// names, anywhere in the log (payloads, actors, the command ids the
// server made); one opaque id stands for each player, so the game still
// verifies and folds to the same state; and its seats are nobody's.
func TestImportSeatsNobody(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, -1)
	ana, ben := e.register(t, "Ana"), e.register(t, "Ben")
	g, err := e.svc.CreateGame(ctx, ana, play.CreateGame{Ruleset: "azul-mini", Seed: strings.Repeat("4d", 32),
		Seats: []play.SeatSpec{{Player: "me"}, {}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Join(ctx, g.ID, ben, nil); err != nil {
		t.Fatal(err)
	}
	// Ben leaves (a command id that holds his id); Ana resigns.
	if err := e.svc.DeleteAccount(ctx, ben.ID); err != nil {
		t.Fatal(err)
	}
	seat := 0
	if _, err := e.svc.Move(ctx, play.MoveRequest{GameID: g.ID, Actor: events.Actor{Kind: "player", PlayerID: ana.ID}, Seat: &seat,
		Notation: "resign", Channel: "api"}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := e.svc.Export(ctx, g.ID, &buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "leave:"+ben.ID) {
		t.Fatal("the export has no leave command id")
	}
	recs, err := play.ReadRecords(&buf)
	if err != nil {
		t.Fatal(err)
	}
	imported, err := e.svc.ImportGame(ctx, recs)
	if err != nil {
		t.Fatal(err)
	}
	var stored int
	if err := e.pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1
		AND (data::text LIKE '%'||$2||'%' OR meta::text LIKE '%'||$2||'%' OR data::text LIKE '%'||$3||'%' OR meta::text LIKE '%'||$3||'%')`,
		imported.ID, ana.ID, ben.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != 0 {
		t.Fatalf("%d imported events name a player of this server", stored)
	}
	copied, err := e.store.Load(ctx, imported.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// One opaque id for each player: Ana's seat 0 and her moves.
	anaNow := imported.Seats[0].PlayerID
	for _, rec := range copied {
		if id := rec.Meta.Actor.PlayerID; id != "" && rec.Meta.Actor.Seat != nil && *rec.Meta.Actor.Seat == 0 && id != anaNow {
			t.Errorf("version %d is moved by %s, seat 0 is %s", rec.Version, id, anaNow)
		}
	}
	// Ben's seat is the bot's since he left.
	if s := imported.Seats[1]; s.Bot == "" || s.PlayerID != "" || s.Imported {
		t.Errorf("the seat Ben left: %+v", s)
	}
	for _, s := range imported.Seats[:1] {
		if !s.Imported || !projections.ImportedPlayer(s.PlayerID) || s.Name != "" || s.PlayerID == ana.ID || s.PlayerID == ben.ID {
			t.Errorf("imported seat %+v", s)
		}
	}
	if projections.ImportedPlayer(ana.ID) || projections.ImportedPlayer(g.ID) {
		t.Error("an account's or a game's id reads as imported")
	}
	if imported.CreatedBy != anaNow || imported.Private() {
		t.Errorf("the import is created by %s (private %v)", imported.CreatedBy, imported.Private())
	}
	if v, err := e.svc.Verify(ctx, imported.ID); err != nil || v.Result != play.VerifyPass {
		t.Fatalf("the import verifies %+v, %v", v, err)
	}
	orig, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := comparableView(t, imported), comparableView(t, orig); a != b {
		t.Fatalf("the import folds to another state:\n%s\n%s", a, b)
	}
	// A forged seat flag in game.created is not the log's to say.
	forged := append([]events.Record(nil), recs...)
	forged[0].Data = bytes.Replace(forged[0].Data, []byte(`"seat":0,`), []byte(`"seat":0,"imported":true,`), 1)
	again, err := e.svc.ImportGame(ctx, forged)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Seats[0].Imported || again.Seats[0].PlayerID == anaNow {
		t.Errorf("a second import: %+v", again.Seats)
	}
}
