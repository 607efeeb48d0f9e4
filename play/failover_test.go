package play_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/play"
)

// appendMarker is in the message of a move's append alone (its meta, with
// the command's id): the append is one statement in its own transaction,
// so the instant it reaches the server is the instant a cut leaves the
// outcome unknown.
var appendMarker = []byte(`"command_id":`)

// TestMoveWhoseCommitIsUnconfirmed cuts the connection after a move's
// statement reached the server and before its answer came back. Without a
// key the move reports the unknown outcome and the service forgets the
// game it cached; with a key it is tried again and answered with its
// first result. Either way the move is in the log once.
func TestMoveWhoseCommitIsUnconfirmed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	proxy, proxied := pgtest.ProxyFor(t, pg.NewDatabase(t))
	cfg, err := pgxpool.ParseConfig(proxied)
	if err != nil {
		t.Fatal(err)
	}
	events.ConfigurePool(cfg, proxied)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e := &env{pool: pool, store: events.NewStore(pool)}
	e.svc = newService(pool, e.store, 0)
	g, ana, ben := twoPlayerGame(t, e)

	cut := proxy.CutAfter(appendMarker)
	_, err = e.svc.Move(ctx, playerMove(g, ana, string(g.LegalMoves(0)[0].JSON)))
	<-cut
	if !errors.Is(err, events.ErrOutcomeUnknown) || !events.Unavailable(err) {
		t.Fatalf("a move whose commit was cut off: %v, want ErrOutcomeUnknown", err)
	}
	if cached, ok := play.Cached(e.svc, g.ID); ok {
		t.Fatalf("the game is still cached at version %d after an unknown outcome", cached.Version)
	}
	after, err := e.svc.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Version <= g.Version {
		t.Fatalf("version %d: the move's commit reached the server and should be in the log", after.Version)
	}

	seat := after.ToAct()[0]
	mover := ana
	if after.Seats[seat].PlayerID == ben.ID {
		mover = ben
	}
	req := playerMove(after, mover, string(after.LegalMoves(seat)[0].JSON))
	req.IdempotencyKey = "key-after-cut"
	cut = proxy.CutAfter(appendMarker)
	res, err := e.svc.Move(ctx, req)
	<-cut
	if err != nil {
		t.Fatalf("a keyed move whose commit was cut off: %v, want its first result", err)
	}
	if !res.Replayed || res.Version <= after.Version {
		t.Fatalf("keyed move after a cut: version %d, replayed %v; want the first attempt's result", res.Version, res.Replayed)
	}
	recs, err := e.store.Load(ctx, g.ID, after.Version, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 || recs[len(recs)-1].Version != res.Version {
		t.Fatalf("the log has %d events after version %d, ending elsewhere than the answered version %d", len(recs), after.Version, res.Version)
	}
	for _, r := range recs {
		if r.Meta.CommandID != recs[0].Meta.CommandID {
			t.Fatalf("events of two commands after version %d: the move was applied twice", after.Version)
		}
	}
}
