package events_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/events"
)

// Appending with an expected version: of two writers that read the same
// version, the second is refused with a *ConflictError and writes nothing;
// a command sent again with its idempotency key gets its first result.
func ExampleStore_Append() {
	ctx := context.Background()
	pool, done := exampleDatabase(ctx)
	defer done()
	store := events.NewStore(pool)

	game := uuid.NewString()
	first := events.AppendRequest{
		StreamID: game, ExpectedVersion: 0,
		Events:           []events.NewEvent{{Type: "game.created", Schema: 1, Data: []byte(`{"ruleset":"azul-mini"}`)}},
		Meta:             events.Meta{Actor: events.Actor{Kind: "system"}, Channel: "api"},
		IdempotencyScope: "example", IdempotencyKey: "create-1", RequestHash: "h1",
	}
	res, err := store.Append(ctx, first)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("appended version", res.Records[0].Version)

	// The same command again: nothing new is written.
	again, err := store.Append(ctx, first)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("replayed:", again.Replayed, "version", again.Records[0].Version)

	// A writer that still believes the stream is empty loses.
	stale := events.AppendRequest{StreamID: game, ExpectedVersion: 0,
		Events: []events.NewEvent{{Type: "game.created", Schema: 1, Data: []byte(`{}`)}},
		Meta:   events.Meta{Actor: events.Actor{Kind: "system"}}}
	_, err = store.Append(ctx, stale)
	var conflict *events.ConflictError
	fmt.Println("conflict:", errors.As(err, &conflict), "actual version", conflict.Actual)

	recs, err := store.Load(ctx, game, 0, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("events in the stream:", len(recs), recs[0].Type)
	// Output:
	// appended version 1
	// replayed: true version 1
	// conflict: true actual version 1
	// events in the stream: 1 game.created
}

// exampleDatabase is a migrated database of its own on the test binary's
// PostgreSQL, dropped by the returned function.
func exampleDatabase(ctx context.Context) (*pgxpool.Pool, func()) {
	url, drop, err := pg.Database(ctx, "ExampleStore_Append")
	if err != nil {
		log.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	return pool, func() {
		pool.Close()
		if err := drop(ctx); err != nil {
			log.Print(err)
		}
	}
}
