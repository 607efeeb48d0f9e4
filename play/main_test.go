package play_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine/rulesets"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/internal/pgtest"
	"github.com/azuld/azuld/migrations"
	"github.com/azuld/azuld/play"
)

// pg hands every test a migrated database of its own.
var pg *pgtest.Harness

func TestMain(m *testing.M) {
	os.Exit(pgtest.Main(m, pgtest.Options{Template: migrations.Up}, &pg))
}

// env is one test's database and the services on it.
type env struct {
	pool  *pgxpool.Pool
	store *events.Store
	svc   *play.Service
}

// newEnv opens a fresh database and a service on it; snapshotEvery is
// passed through (negative disables snapshots). As in azuld, the
// service's follower of the log writes the read models the appends leave
// out (the turn inbox, the results, the ratings); caughtUp waits for it.
func newEnv(t *testing.T, snapshotEvery int) *env {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), pg.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store := events.NewStore(pool)
	e := &env{pool: pool, store: store, svc: newService(pool, store, snapshotEvery)}
	ctx, cancel := context.WithCancel(context.Background())
	followed := make(chan error, 1)
	go func() {
		followed <- e.svc.Follow(ctx, play.FollowOptions{Consumer: readModelsConsumer, PollInterval: 10 * time.Millisecond, RetryAfter: 50 * time.Millisecond})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-followed; err != nil {
			t.Errorf("follow the log: %v", err)
		}
	})
	return e
}

// readModelsConsumer is the checkpoint of the tests' follower of the log.
const readModelsConsumer = "test.read_models"

// caughtUp waits until the follower of the log has handled every append
// so far: the turn inbox, the results and the ratings are then written.
func (e *env) caughtUp(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := events.NewConsumer(e.pool, readModelsConsumer).WaitCaughtUp(ctx, 5*time.Millisecond); err != nil {
		t.Fatalf("the follower of the log did not catch up: %v", err)
	}
}

func newService(pool *pgxpool.Pool, store *events.Store, snapshotEvery int) *play.Service {
	return play.New(play.Config{Pool: pool, Store: store, Rules: rulesets.All(), SnapshotEvery: snapshotEvery})
}

// register creates a player.
func (e *env) register(t *testing.T, name string) play.Player {
	t.Helper()
	p, token, err := e.svc.RegisterPlayer(context.Background(), name, name+"@example.org", play.Preferences{})
	var input *play.InputError
	if errors.As(err, &input) && input.Code == "email_taken" {
		// One account per address: a second player of the same name
		// gets an address of its own.
		p, token, err = e.svc.RegisterPlayer(context.Background(), name, name+"+"+uuid.NewString()+"@example.org", play.Preferences{})
	}
	if err != nil {
		t.Fatalf("register %s: %v", name, err)
	}
	if token == "" {
		t.Fatal("no token")
	}
	return p
}

// viewJSON is a game's state JSON, the form compared across loads.
// The players' names are left out: a command's result is not named (the
// command path reads no names), a game read for display is.
func viewJSON(t *testing.T, g *play.Game) string {
	t.Helper()
	v := g.View()
	v.Seats = slices.Clone(v.Seats)
	for i := range v.Seats {
		if v.Seats[i].PlayerID != "" {
			v.Seats[i].Name = ""
		}
	}
	v.Players = slices.Clone(v.Players)
	for i := range v.Players {
		if seat := v.Players[i].Seat; seat >= 0 && seat < len(v.Seats) && v.Seats[seat].PlayerID != "" {
			v.Players[i].Name = ""
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// createAccepted is CreateGame followed by every invited player's
// acceptance (a join): the game as a test of a running game needs it.
func (e *env) createAccepted(ctx context.Context, creator play.Player, req play.CreateGame, key string) (*play.Game, error) {
	g, err := e.svc.CreateGame(ctx, creator, req, key)
	if err != nil {
		return nil, err
	}
	for _, id := range g.Awaiting() {
		if g, err = e.svc.Join(ctx, g.ID, play.Player{ID: id}, nil); err != nil {
			return nil, err
		}
	}
	return g, nil
}
