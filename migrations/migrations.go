// Package migrations holds azuld's database schema as numbered
// golang-migrate SQL files (NNNNNN_name.up.sql / .down.sql), embedded in
// the binary. `azuld migrate` and the server's start-up apply them with Up.
//
// The schema:
//
//   - 000001 event store: events (append-only: UPDATE, DELETE and
//     TRUNCATE are refused by triggers; the primary key (stream_id,
//     version) serialises the appends of a game), streams (one row per
//     game), idempotency_keys, snapshots, consumer_checkpoints. See the
//     events package.
//   - 000002 players and game_secrets, which are not event-sourced.
//   - 000003 read models: games, game_seats, turn_inbox, results.
//   - 000005, 000006 river's job queue (the notification outbox), river's
//     own migrations copied verbatim with its bookkeeping rows.
//   - 000007 play by mail and webhooks: mail_tokens, mail_stops, webhooks,
//     inbound_mails, deliveries. See the notify package.
//   - 000008 the server's rights: the group role azuld_app (see AppRole)
//     may SELECT, INSERT, UPDATE and DELETE every table, now and (by
//     default privileges) those later migrations create, but only SELECT
//     and INSERT events. Indexes for the daily clean-up.
//   - 000009 the web client: web_sessions, signin_links. See api/web.
//   - 000010 game_analyses: the search bot's analyses of finished games'
//     positions (see notify's analysis job).
//   - 000017 names out of the event log: the names that game.created's
//     seats and game.joined carried are removed from the stored events
//     (once, by the owner, each removal recorded in the owner-only
//     names_removed_audit), from games.seats and game_seats, and the
//     snapshots that held them are dropped. See docs/erasure.md.
//   - 000018 compact idempotency keys: each stored as the SHA-256 of its
//     scope and key with the SHA-256 of its request hash (the rows of
//     before converted), deleted a week on by the daily clean-up. (The
//     same release stores an append's meta on its first event only; the
//     schema does not change for it.) See the events package.
//   - 000019 ratings: ratings, rating_history and rating_apply, the rating
//     update the read models run (see projections and docs/ratings.md).
//   - 000020 game settings: games.rated and games.visibility, from the
//     settings in game.created (old games: rated, public), and the index
//     of the watch list (running public games).
//   - 000021 profiles: players.hide_games, a player's choice to hide their
//     game lists on their public profile (see docs/ratings.md).
//   - 000022 table talk: game_mutes (a player's choice not to be sent a
//     game's messages) and message_reports (players' reports of messages,
//     listed by azuld reports). The messages are game.message events.
//   - 000023 table talk by mail: talk_mailed, per game and player the
//     version up to which messages were mailed and when the last message
//     mail left (see notify's talk mails).
//   - 000025 watch order (000024 is not used): games.watch_best, the best rating among a
//     running game's seats when it started, so the watch list reads one
//     index instead of every running game (see projections).
//   - 000027 invitation links: invitation_key (the key a game's link
//     token is derived from) and invitation_links (the SHA-256 of each
//     game's token); see play's invitations.
//   - 000028 one account per address: a unique index on lower(email)
//     (duplicates left by older versions keep the address on the
//     confirmed, else oldest, account) and server_secrets, whose
//     limits_salt keys the rate-limit counters.
//   - 000029 presence: who has a game's live stream open and when they
//     were last seen at its table, which holds a turn mail back (see the
//     presence package).
//
// Several processes may call Up at once: golang-migrate holds an advisory
// lock while it migrates.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"

	"github.com/golang-migrate/migrate/v4"
	pgxmigrate "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

//go:embed *.sql
var files embed.FS

// Up applies every migration not applied yet. An up-to-date database is
// not an error.
func Up(ctx context.Context, databaseURL string) error {
	return run(ctx, databaseURL, "migrate up", (*migrate.Migrate).Up)
}

// Down reverts every migration, leaving only golang-migrate's own
// version table. It destroys all data.
func Down(ctx context.Context, databaseURL string) error {
	return run(ctx, databaseURL, "migrate down", (*migrate.Migrate).Down)
}

// Version is the number of the latest migration applied (0 for none), and
// whether a failed migration left the database dirty.
func Version(ctx context.Context, databaseURL string) (version uint, dirty bool, err error) {
	err = run(ctx, databaseURL, "read the migration version", func(m *migrate.Migrate) error {
		v, d, err := m.Version()
		if errors.Is(err, migrate.ErrNilVersion) {
			return nil
		}
		version, dirty = v, d
		return err
	})
	return version, dirty, err
}

// Latest is the number of the newest migration embedded in the binary.
func Latest() (uint, error) {
	src, err := iofs.New(files, ".")
	if err != nil {
		return 0, fmt.Errorf("read the embedded migrations: %w", err)
	}
	defer src.Close()
	v, err := src.First()
	if err != nil {
		return 0, fmt.Errorf("read the embedded migrations: %w", err)
	}
	for {
		next, err := src.Next(v)
		if err != nil {
			return v, nil
		}
		v = next
	}
}

// run opens a migrator on databaseURL (a URL or a keyword/value connection
// string), runs step and closes it. golang-migrate takes no context: a
// cancelled ctx asks it to stop after the migration in progress.
func run(ctx context.Context, databaseURL, what string, step func(*migrate.Migrate) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	cfg, err := pgx.ParseConfig(databaseURL)
	if err != nil {
		return fmt.Errorf("%s: parse the database URL: %w", what, err)
	}
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	m, err := newMigrator(ctx, db)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer m.Close()

	stop := context.AfterFunc(ctx, func() {
		select {
		case m.GracefulStop <- true:
		default:
		}
	})
	defer stop()

	err = step(m)
	if errors.Is(err, migrate.ErrNoChange) {
		err = nil
	}
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func newMigrator(ctx context.Context, db *sql.DB) (*migrate.Migrate, error) {
	if err := db.PingContext(ctx); err != nil {
		return nil, fmt.Errorf("connect to the database: %w", err)
	}
	src, err := iofs.New(files, ".")
	if err != nil {
		return nil, fmt.Errorf("read the embedded migrations: %w", err)
	}
	driver, err := pgxmigrate.WithInstance(db, &pgxmigrate.Config{})
	if err != nil {
		_ = src.Close()
		return nil, fmt.Errorf("open the migration driver: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", driver)
	if err != nil {
		_ = src.Close()
		_ = driver.Close()
		return nil, fmt.Errorf("set up the migrations: %w", err)
	}
	return m, nil
}
