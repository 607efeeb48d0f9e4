package play

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/projections"
	"github.com/azuld/azuld/ttlcache"
)

// Config wires a Service.
type Config struct {
	// Catalogue describes the audit log when a caller gives no reader;
	// nil: the embedded one.
	Catalogue *i18n.Catalogue
	Pool      *pgxpool.Pool
	Store     *events.Store
	Rules     engine.Registry
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Now defaults to time.Now.
	Now func() time.Time
	// SnapshotEvery is how many events may pass between snapshots
	// (default DefaultSnapshotEvery; negative disables snapshots).
	SnapshotEvery int
	// CacheBytes bounds the memory of the recently played games kept
	// folded for moves, by their estimated size (0: DefaultCacheBytes;
	// negative: no cache).
	CacheBytes int64
	// CacheSize also bounds the number of those games (0: no bound but
	// CacheBytes; negative: no cache).
	CacheSize int
	// SeedCacheEntries is how many games' secret seeds are kept (0:
	// DefaultSeedCacheEntries; negative: none, every move reads it).
	SeedCacheEntries int
	// BotJobs says that job workers move the bot seats: the outbox
	// enqueues a job for every bot seat that must act (
	// see Game.BotToAct), so no command moves a bot itself and no request
	// waits for one. Unset, as for a Service used alone, the random and
	// greedy bots move within the command that brings their turn, since
	// nothing else would move them.
	BotJobs bool
	// InvitationTTL is how long an invitation to a reserved seat waits
	// for its answer (0: DefaultInvitationTTL).
	InvitationTTL time.Duration
}

// Service is the command path.
type Service struct {
	pool          *pgxpool.Pool
	store         *events.Store
	rules         engine.Registry
	log           *slog.Logger
	now           func() time.Time
	snapshotEvery int
	// snapshotFormat changes whenever the aggregate's or any engine's
	// state format changes, so stale snapshots are simply not found.
	snapshotFormat int
	cache          *gameCache
	botJobs        bool
	// words is the message catalogue the audit log is described with
	// when the caller gives no reader (loaded on first use).
	words     *i18n.Catalogue
	wordsOnce sync.Once
	wordsErr  error
	// invitationTTL is how long invitations wait (see RunInvitations).
	invitationTTL time.Duration

	// seeds caches the immutable secret seed of recently played games.
	seeds *seedCache
	// watch keeps the watch list's recent pages.
	watch *ttlcache.Cache[watchPage]
	// invite holds the invitation links' key once read.
	invite invitationKey
	// ownMail is the mail domain no player's address may be at (see
	// ReserveMailDomain).
	ownMail atomic.Pointer[reservedMail]
	// hintSlots bounds the hints searched at once (see Hint).
	hintSlots chan struct{}
}

// DefaultSnapshotEvery is how many events pass between snapshots unless
// Config.SnapshotEvery says otherwise.
const DefaultSnapshotEvery = 64

// aggregateFormat is the version of the snapshot envelope written here.
// 2: seats carry no names and may have been left (game.seat_left).
// 3: the game's settings (rated, visibility, take-backs); a snapshot
// without them would read as an unrated private game.
// 4: the state version (the last event that is not table talk) and the
// chat setting.
const aggregateFormat = 4

// New returns a Service.
func New(cfg Config) *Service {
	s := &Service{
		pool: cfg.Pool, store: cfg.Store, rules: cfg.Rules,
		log: cfg.Logger, now: cfg.Now, snapshotEvery: cfg.SnapshotEvery,
		cache:   newGameCache(cfg.CacheSize, cfg.CacheBytes),
		seeds:   newSeedCache(cfg.SeedCacheEntries),
		botJobs: cfg.BotJobs,
		words:   cfg.Catalogue, watch: newWatchCache(),
		invitationTTL: cfg.InvitationTTL,
		hintSlots:     make(chan struct{}, hintSlots()),
	}
	if s.invitationTTL <= 0 {
		s.invitationTTL = DefaultInvitationTTL
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.snapshotEvery == 0 {
		s.snapshotEvery = DefaultSnapshotEvery
	}
	s.snapshotFormat = snapshotFormat(cfg.Rules)
	return s
}

// snapshotFormat fingerprints the aggregate format and every engine's
// state format.
func snapshotFormat(reg engine.Registry) int {
	ids := make([]string, 0, len(reg))
	for id := range reg {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	h := fnv.New32a()
	fmt.Fprintf(h, "aggregate:%d", aggregateFormat)
	for _, id := range ids {
		fmt.Fprintf(h, ";%s:%d", id, reg[id].StateFormat())
	}
	return int(h.Sum32() & 0x7fffffff)
}

// Rules returns the registry the service plays with.
func (s *Service) Rules() engine.Registry { return s.rules }

// validUUID reports whether id is a UUID in text form.
func validUUID(id string) bool {
	_, err := uuid.Parse(id)
	return err == nil && len(id) == 36
}

// Game loads the current state of a game, with its players' names.
func (s *Service) Game(ctx context.Context, id string) (*Game, error) {
	g, err := s.load(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	return s.named(ctx, g)
}

// game loads the current state of a game for a command: without names,
// which no command needs.
func (s *Service) game(ctx context.Context, id string) (*Game, error) {
	return s.load(ctx, id, 0)
}

// GameForCommand loads the current state of a game without its players'
// names (Seat.Name is empty): for the jobs that decide a command (a bot's
// move, a deadline) and show nothing, so they read no names.
func (s *Service) GameForCommand(ctx context.Context, id string) (*Game, error) {
	return s.game(ctx, id)
}

// CurrentState returns the current state of a game without its players'
// names, for reads that need the rules' state and the seats (the legal
// moves). A cached copy is brought up to date with the events after its
// version, one read of an index, instead of a snapshot and the events
// after it folded again: the events are immutable and a stream has no
// gaps, so the copy plus what follows it is the game. A game loaded here
// is cached for the move that usually follows.
func (s *Service) CurrentState(ctx context.Context, id string) (*Game, error) {
	g, ok := s.cache.get(id)
	if !ok {
		g, err := s.game(ctx, id)
		if err != nil {
			return nil, err
		}
		s.cache.put(g)
		return g, nil
	}
	// From the copy's own last event: a stream that no longer reaches it
	// (a database restored to an earlier point while azuld ran) makes the
	// copy worthless, and the game is loaded afresh.
	recs, err := s.store.Load(ctx, id, g.Version-1, 0)
	if err != nil {
		return nil, fmt.Errorf("load game %s: %w", id, err)
	}
	if len(recs) == 0 || recs[0].Version != g.Version {
		s.cache.forget(id)
		fresh, err := s.game(ctx, id)
		if err != nil {
			return nil, err
		}
		s.cache.put(fresh)
		return fresh, nil
	}
	if len(recs) > 1 {
		if err := g.foldRecords(s.rules, recs[1:]); err != nil {
			return nil, fmt.Errorf("fold game %s: %w", id, err)
		}
		s.cache.put(g)
	}
	return g, nil
}

// GameAt returns a game as it was after its first version events.
func (s *Service) GameAt(ctx context.Context, id string, version int64) (*Game, error) {
	if version < 1 {
		return nil, fmt.Errorf("%w: version must be at least 1", ErrInvalid)
	}
	g, err := s.load(ctx, id, version)
	if err != nil {
		return nil, err
	}
	if g.Version < version {
		return nil, fmt.Errorf("%w: the game is at version %d", ErrInvalid, g.Version)
	}
	return s.named(ctx, g)
}

// load folds a game from its latest usable snapshot and the events after
// it; upTo > 0 stops after that version.
func (s *Service) load(ctx context.Context, id string, upTo int64) (*Game, error) {
	if !validUUID(id) {
		return nil, fmt.Errorf("%w: game %q", ErrNotFound, id)
	}
	snapshotLimit := upTo
	if snapshotLimit == 0 {
		snapshotLimit = 1 << 62
	}
	g, err := s.snapshotGame(ctx, id, snapshotLimit)
	if err != nil {
		return nil, err
	}
	limit := 0
	if upTo > 0 {
		limit = int(upTo - g.Version)
		if limit <= 0 {
			return g, nil
		}
	}
	recs, err := s.store.Load(ctx, id, g.Version, limit)
	if err != nil {
		return nil, fmt.Errorf("load game %s: %w", id, err)
	}
	if g.Version == 0 && len(recs) == 0 {
		return nil, fmt.Errorf("%w: game %s", ErrNotFound, id)
	}
	if err := g.foldRecords(s.rules, recs); err != nil {
		return nil, fmt.Errorf("fold game %s: %w", id, err)
	}
	return g, nil
}

// snapshotGame is the game from its latest usable snapshot at or before
// version upTo, or an empty game to fold from the start.
func (s *Service) snapshotGame(ctx context.Context, id string, upTo int64) (*Game, error) {
	g := newGame(id)
	if s.snapshotEvery <= 0 {
		return g, nil
	}
	version, data, found, err := s.store.LatestSnapshot(ctx, id, s.snapshotFormat, upTo)
	if err != nil {
		return nil, fmt.Errorf("load snapshot of game %s: %w", id, err)
	}
	if !found {
		return g, nil
	}
	sg, err := s.decodeSnapshot(id, version, data)
	if err != nil {
		s.log.WarnContext(ctx, "ignoring unreadable snapshot", "game", id, "version", version, "err", err)
		return g, nil
	}
	return sg, nil
}

// Events returns a page of a game's event log.
func (s *Service) Events(ctx context.Context, id string, afterVersion int64, limit int) ([]events.Record, error) {
	if !validUUID(id) {
		return nil, fmt.Errorf("%w: game %q", ErrNotFound, id)
	}
	if afterVersion < 0 || limit < 0 {
		return nil, fmt.Errorf("%w: negative page bounds", ErrInvalid)
	}
	recs, err := s.store.Load(ctx, id, afterVersion, limit)
	if err != nil {
		return nil, fmt.Errorf("load events of game %s: %w", id, err)
	}
	if len(recs) == 0 && afterVersion == 0 {
		return nil, fmt.Errorf("%w: game %s", ErrNotFound, id)
	}
	return recs, nil
}

// ListGames lists games from the read model. The watch list as anyone
// sees it is read at most once a second (see watchList).
func (s *Service) ListGames(ctx context.Context, f projections.Filter) ([]projections.GameRow, string, error) {
	if f.Watch && f.Without == "" {
		return s.watchList(ctx, f)
	}
	return projections.ListGames(ctx, s.pool, f)
}

// Turns is a player's turn inbox.
func (s *Service) Turns(ctx context.Context, playerID string) ([]projections.TurnRow, error) {
	return projections.Inbox(ctx, s.pool, playerID)
}

// seed returns a game's secret seed.
func (s *Service) seed(ctx context.Context, gameID string) (engine.Seed, error) {
	if seed, ok := s.seeds.get(gameID); ok {
		return seed, nil
	}
	var text string
	err := s.pool.QueryRow(ctx, `SELECT seed FROM game_secrets WHERE game_id = $1`, gameID).Scan(&text)
	if err != nil {
		return engine.Seed{}, fmt.Errorf("load seed of game %s: %w", gameID, err)
	}
	seed, err := engine.ParseSeed(text)
	if err != nil {
		return engine.Seed{}, fmt.Errorf("stored seed of game %s: %w", gameID, err)
	}
	s.seeds.put(gameID, seed)
	return seed, nil
}

// appendBatch appends events decided against g, with the companion
// statements also (see events.Companion), and the games row in the
// append's own statement, so that a command is one round trip; the other
// read models (the turn inbox, the results) follow from the log (Follow).
// It returns the game after the batch (nil when the idempotency key
// replayed an earlier one).
func (s *Service) appendBatch(ctx context.Context, g *Game, evs []events.NewEvent, meta events.Meta, idemScope, idemKey, requestHash string, also ...events.Companion) (*Game, events.AppendResult, error) {
	req := events.AppendRequest{
		StreamID: g.ID, ExpectedVersion: g.Version, Events: evs, Meta: meta,
		IdempotencyScope: idemScope, IdempotencyKey: idemKey, RequestHash: requestHash,
	}
	// The games row is written from the state after the events as
	// folded here (the database gives their time).
	provisional, err := s.foldNew(g, evs, meta)
	if err != nil {
		return nil, events.AppendResult{}, err
	}
	rows, err := projections.Companions(g.StoredRow(), provisional.Row())
	if err != nil {
		return nil, events.AppendResult{}, fmt.Errorf("update read models: %w", err)
	}
	req.Also = append(rows, also...)
	res, err := s.store.Append(ctx, req)
	if err != nil {
		// A conflict shows the cached copy is stale; an unknown outcome
		// (the connection lost while committing) leaves the game at
		// either version: only the store can tell.
		s.cache.forget(g.ID)
	}
	if err != nil {
		return nil, res, err
	}
	if res.Replayed {
		return nil, res, nil
	}
	after, err := s.Fold(g, res.Records)
	if err != nil {
		return nil, res, err
	}
	s.maybeSnapshot(ctx, after)
	s.cache.put(after)
	return after, res, nil
}

// foldNew folds events about to be appended onto a copy of g, as records
// at the next versions recorded now.
func (s *Service) foldNew(g *Game, evs []events.NewEvent, meta events.Meta) (*Game, error) {
	recs := make([]events.Record, len(evs))
	at := s.now()
	for i, e := range evs {
		recs[i] = events.Record{StreamID: g.ID, Version: g.Version + int64(i) + 1, Type: e.Type, Schema: e.Schema, Data: e.Data, Meta: meta, RecordedAt: at}
	}
	return s.Fold(g, recs)
}

// Fold returns the game after records that follow g (which is left as it
// is).
func (s *Service) Fold(g *Game, recs []events.Record) (*Game, error) {
	after := g.clone()
	if err := after.foldRecords(s.rules, recs); err != nil {
		return nil, err
	}
	return after, nil
}

// GameBefore returns a game as it was before its event at version: after
// version-1 events, or not yet created for version 1.
func (s *Service) GameBefore(ctx context.Context, id string, version int64) (*Game, error) {
	if version <= 1 {
		if !validUUID(id) {
			return nil, fmt.Errorf("%w: game %q", ErrNotFound, id)
		}
		return newGame(id), nil
	}
	return s.GameAt(ctx, id, version-1)
}

// requestHash fingerprints a command for idempotency checks.
func requestHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// isConflict reports a lost optimistic-concurrency race.
func isConflict(err error) bool { return errors.Is(err, events.ErrConflict) }

// MarshalJSON writes a Duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a Go duration string ("72h") or seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var text string
	if err := json.Unmarshal(b, &text); err == nil {
		v, err := time.ParseDuration(text)
		if err != nil {
			return fmt.Errorf("duration %q: %w", text, err)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration must be a string like \"72h\" or a number of seconds")
	}
	*d = Duration(time.Duration(secs * float64(time.Second)))
	return nil
}

// catalogue is the configured message catalogue, or the embedded one.
func (s *Service) catalogue() (*i18n.Catalogue, error) {
	s.wordsOnce.Do(func() { s.words, s.wordsErr = i18n.OrNew(s.words) })
	return s.words, s.wordsErr
}
