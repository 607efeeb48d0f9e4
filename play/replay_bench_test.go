package play_test

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/play"
)

// benchGame is a finished four-player Summer Pavilion game of bots on a
// database of its own.
func benchGame(b *testing.B) (*play.Service, *play.Game, []events.Record) {
	b.Helper()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, pg.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	store := events.NewStore(pool)
	svc := newService(pool, store, 0)
	owner, _, err := svc.RegisterPlayer(ctx, "Ana", "ana@example.org", play.Preferences{})
	if err != nil {
		b.Fatal(err)
	}
	seats := []play.SeatSpec{{Bot: "random"}, {Bot: "random"}, {Bot: "random"}, {Bot: "random"}}
	g, err := svc.CreateGame(ctx, owner, play.CreateGame{Ruleset: "summer-pavilion", Seats: seats}, "")
	if err != nil || g.Status != play.StatusFinished {
		b.Fatalf("bot game: %v", err)
	}
	recs, err := store.Load(ctx, g.ID, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	return svc, g, recs
}

// BenchmarkVerify4pPavilion re-derives every event of a finished
// four-player game from its seed (pure: no database).
func BenchmarkVerify4pPavilion(b *testing.B) {
	_, _, recs := benchGame(b)
	reg := rulesets.All()
	for b.Loop() {
		if v := play.VerifyRecords(reg, recs); v.Result != play.VerifyPass {
			b.Fatalf("verify: %+v", v)
		}
	}
	b.ReportMetric(float64(len(recs)), "events/game")
}

// BenchmarkVerifyStored4pPavilion is GET /verify without HTTP: read the
// log from PostgreSQL, then verify.
func BenchmarkVerifyStored4pPavilion(b *testing.B) {
	svc, g, _ := benchGame(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := svc.Verify(ctx, g.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExport4pPavilion reads the log and writes it as JSON lines.
func BenchmarkExport4pPavilion(b *testing.B) {
	svc, g, _ := benchGame(b)
	ctx := context.Background()
	for b.Loop() {
		if err := svc.Export(ctx, g.ID, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAuditLog4pPavilion is the audit trail of a whole game: read,
// fold and describe every event, mark undone ones.
func BenchmarkAuditLog4pPavilion(b *testing.B) {
	svc, g, _ := benchGame(b)
	ctx := context.Background()
	for b.Loop() {
		if _, err := svc.AuditLog(ctx, g.ID, play.LogQuery{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImport4pPavilion parses an export, folds and verifies it, and
// stores it as a new game in one transaction.
func BenchmarkImport4pPavilion(b *testing.B) {
	svc, g, _ := benchGame(b)
	ctx := context.Background()
	var buf bytes.Buffer
	if err := svc.Export(ctx, g.ID, &buf); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		recs, err := play.ReadRecords(bytes.NewReader(buf.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := svc.ImportGame(ctx, recs); err != nil {
			b.Fatal(err)
		}
	}
}
