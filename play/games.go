package play

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/engine/bots"
	"github.com/azuld/azuld/events"
)

// maxTimeControl bounds a per-move time limit.
const maxTimeControl = 90 * 24 * time.Hour

// CreateGame creates a game. The creator's own seats and bots are taken
// at once; a seat naming another player is an invitation they must
// accept. When every seat is taken the game starts at once.
func (s *Service) CreateGame(ctx context.Context, creator Player, req CreateGame, idempotencyKey string) (*Game, error) {
	for i := range req.Seats {
		// Seats are reserved by a rematch only.
		req.Seats[i].Reserve = ""
	}
	channel := req.Channel
	if channel == "" {
		channel = "api"
	}
	return s.createGame(ctx, creator, req, idempotencyKey, newGameID(), "", channel)
}

// createGame creates a game with the given id; rematchOf names the
// finished game it is the rematch of, channel how the request came. A
// stream that exists already is events.ErrConflict.
func (s *Service) createGame(ctx context.Context, creator Player, req CreateGame, idempotencyKey, id, rematchOf, channel string) (*Game, error) {
	rules, err := s.rules.Get(req.Ruleset)
	if err != nil {
		return nil, fmt.Errorf("%w: unknown ruleset %q (known: %v)", ErrInvalid, req.Ruleset, s.rulesetNames())
	}
	cfg := engine.Config{Ruleset: req.Ruleset, Players: len(req.Seats), Options: req.Options}
	seed, public, err := chooseSeed(req.Seed)
	if err != nil {
		return nil, err
	}
	settings, err := chooseSettings(req, public)
	if err != nil {
		return nil, err
	}
	// Start validates players and options; its events are used only if
	// the game starts now.
	startEvents, err := rules.Start(cfg, seed)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if err := validTimeControl(req.TimeControl); err != nil {
		return nil, err
	}
	seats, err := s.resolveSeats(ctx, creator, req.Seats)
	if err != nil {
		return nil, err
	}
	first, err := CreatedEvent(GameCreation{Config: cfg, Seats: seats, TimeControl: req.TimeControl, Seed: seed, PublicSeed: public,
		Settings: settings, CreatedBy: creator.ID, RematchOf: rematchOf})
	if err != nil {
		return nil, err
	}
	batch := []events.NewEvent{first}
	g := newGame(id)
	if !slices.ContainsFunc(seats, func(s Seat) bool { return !s.taken() }) {
		more, err := EngineEvents(startEvents)
		if err != nil {
			return nil, err
		}
		batch = append(batch, more...)
	}
	reqJSON, _ := json.Marshal(req)
	meta := events.Meta{Actor: events.Actor{Kind: "player", PlayerID: creator.ID}, Channel: channel, CommandID: commandID(idempotencyKey)}
	saveSeed := events.Companion{
		SQL:  `INSERT INTO game_secrets (game_id, seed) SELECT $1::uuid, $2::text WHERE EXISTS (SELECT FROM appended)`,
		Args: []any{g.ID, seed.String()},
	}
	after, res, err := s.appendBatch(ctx, g, batch, meta, "create:"+creator.ID, idempotencyKey, requestHash(string(reqJSON)), saveSeed)
	if err != nil {
		return nil, err
	}
	if res.Replayed {
		return s.Game(ctx, res.Records[0].StreamID)
	}
	s.seeds.put(after.ID, seed)
	if after, err = s.botsAfter(ctx, after); err != nil {
		return nil, err
	}
	return s.named(ctx, after)
}

// newGameID returns a time-ordered UUID (v7), which keeps the events
// index's inserts local.
func newGameID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

// commandID is the idempotency key, or a fresh id.
func commandID(key string) string {
	if key != "" {
		return key
	}
	return uuid.NewString()
}

// chooseSeed parses a public seed or draws a secret one.
func chooseSeed(text string) (engine.Seed, bool, error) {
	if text != "" {
		seed, err := engine.ParseSeed(text)
		if err != nil {
			return seed, false, fmt.Errorf("%w: seed must be 64 hex digits", ErrInvalid)
		}
		return seed, true, nil
	}
	seed, err := engine.NewSeed()
	return seed, false, err
}

// chooseSettings are a new game's settings: those asked for, and the
// defaults for the others. A game with a public seed cannot be rated: its
// bag order is known to anyone who reads the seed.
func chooseSettings(req CreateGame, publicSeed bool) (Settings, error) {
	s := Settings{Rated: !publicSeed}
	if req.Rated != nil {
		if *req.Rated && publicSeed {
			return Settings{}, Invalid(ErrInvalid, "rated_seed",
				"a game with a public seed cannot be rated: its bag order is known (leave rated out, or set it to false)")
		}
		s.Rated = *req.Rated
	}
	switch req.Visibility {
	case "":
		s.Visibility = VisibilityPrivate
		if s.Rated {
			s.Visibility = VisibilityPublic
		}
	case VisibilityPublic, VisibilityPrivate:
		s.Visibility = req.Visibility
	default:
		return Settings{}, Invalid(ErrInvalid, "visibility",
			fmt.Sprintf("visibility must be %q or %q, not %.40q", VisibilityPublic, VisibilityPrivate, req.Visibility),
			"Given", truncateText(req.Visibility, 40))
	}
	s.Takebacks = !s.Rated
	if req.Takebacks != nil {
		s.Takebacks = *req.Takebacks
	}
	switch req.Chat {
	case "", ChatPlayers:
		s.Chat = ChatPlayers
	case ChatPublic:
		s.Chat = ChatPublic
	default:
		return Settings{}, Invalid(ErrInvalid, "chat",
			fmt.Sprintf("chat must be %q or %q, not %.40q", ChatPlayers, ChatPublic, req.Chat),
			"Given", truncateText(req.Chat, 40))
	}
	return s, nil
}

// truncateText cuts s to at most n runes, for messages that repeat input.
func truncateText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func validTimeControl(tc *TimeControl) error {
	if tc == nil {
		return nil
	}
	switch {
	case tc.PerMove < 0 || time.Duration(tc.PerMove) > maxTimeControl:
		return fmt.Errorf("%w: time_control.per_move must be between 0 and %s", ErrInvalid, maxTimeControl)
	case tc.PerMove > 0 && time.Duration(tc.PerMove) < time.Minute:
		return fmt.Errorf("%w: time_control.per_move must be at least 1m", ErrInvalid)
	case tc.OnTimeout != "" && tc.OnTimeout != "bot" && tc.OnTimeout != "forfeit":
		return fmt.Errorf("%w: time_control.on_timeout must be \"bot\" or \"forfeit\"", ErrInvalid)
	case tc.Bot != "" && !bots.Known(tc.Bot):
		return fmt.Errorf("%w: time_control.bot: unknown bot %q (known: %v)", ErrInvalid, tc.Bot, bots.Kinds())
	case tc.RemindBefore < 0 || tc.RemindBefore > tc.PerMove:
		return fmt.Errorf("%w: time_control.remind_before must be between 0 and per_move", ErrInvalid)
	}
	return nil
}

// resolveSeats checks the requested seats and that their players exist.
func (s *Service) resolveSeats(ctx context.Context, creator Player, specs []SeatSpec) ([]Seat, error) {
	seats := make([]Seat, len(specs))
	for i, spec := range specs {
		seats[i].Seat = i
		switch {
		case spec.Player != "" && spec.Bot != "":
			return nil, fmt.Errorf("%w: seat %d names both a player and a bot", ErrInvalid, i)
		case spec.Budget != "" && spec.Bot != bots.Search:
			return nil, fmt.Errorf("%w: seat %d: only a search bot takes a budget", ErrInvalid, i)
		case spec.Bot != "":
			if !bots.Known(spec.Bot) {
				return nil, fmt.Errorf("%w: seat %d: unknown bot %q (known: %v)", ErrInvalid, i, spec.Bot, bots.Kinds())
			}
			seats[i].Bot = spec.Bot
			if spec.Budget != "" {
				d, err := bots.ParseBudget(spec.Budget)
				if err != nil {
					return nil, fmt.Errorf("%w: seat %d: %v", ErrInvalid, i, err)
				}
				seats[i].Budget = d.String()
			}
		case spec.Reserve != "":
			// A player whose account is gone leaves an ordinary free seat.
			if p, err := s.Player(ctx, spec.Reserve); err == nil {
				seats[i].Reserved = p.ID
			}
		case spec.Player == "me" || spec.Player == creator.ID:
			seats[i].PlayerID = creator.ID
		case spec.Player != "":
			p, err := s.Player(ctx, spec.Player)
			if err != nil {
				return nil, fmt.Errorf("%w: seat %d: no player %q", ErrInvalid, i, spec.Player)
			}
			// Another player is never seated without their consent: the
			// seat is an invitation, reserved for them until they accept
			// (join) or decline it, or it expires. The seat names the
			// player by id only (docs/architecture.md §9).
			seats[i].Reserved = p.ID
		}
	}
	return seats, nil
}

func (s *Service) rulesetNames() []string {
	names := make([]string, 0, len(s.rules))
	for id := range s.rules {
		names = append(names, id)
	}
	slices.Sort(names)
	return names
}

// Join gives a player a free seat (the given one, or the first free),
// by the API.
func (s *Service) Join(ctx context.Context, gameID string, p Player, seat *int) (*Game, error) {
	return s.JoinVia(ctx, gameID, p, seat, "api")
}

// JoinVia is Join by the given channel ("api", "web", "cli", "email"),
// which the log records.
func (s *Service) JoinVia(ctx context.Context, gameID string, p Player, seat *int, channel string) (*Game, error) {
	for range 5 {
		g, err := s.game(ctx, gameID)
		if err != nil {
			return nil, err
		}
		after, err := s.joinOnce(ctx, g, p, seat, channel)
		if isConflict(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		return s.named(ctx, after)
	}
	return nil, fmt.Errorf("join game %s: %w", gameID, events.ErrConflict)
}

func (s *Service) joinOnce(ctx context.Context, g *Game, p Player, seat *int, channel string) (*Game, error) {
	if g.Status != StatusOpen {
		return nil, fmt.Errorf("%w: the game has no free seat", ErrForbidden)
	}
	targets, err := g.joinTargets(p.ID, seat)
	if err != nil {
		return nil, err
	}
	batch := make([]events.NewEvent, 0, len(targets))
	for _, target := range targets {
		joined, err := JoinedEvent(target, p.ID)
		if err != nil {
			return nil, err
		}
		batch = append(batch, joined)
	}
	target := targets[0]
	if len(g.freeSeats()) == len(targets) {
		seed, err := s.seed(ctx, g.ID)
		if err != nil {
			return nil, err
		}
		start, err := g.Rules.Start(g.Config, seed)
		if err != nil {
			return nil, fmt.Errorf("start game %s: %w", g.ID, err)
		}
		more, err := EngineEvents(start)
		if err != nil {
			return nil, err
		}
		batch = append(batch, more...)
	}
	meta := events.Meta{Actor: events.Actor{Kind: "player", PlayerID: p.ID, Seat: &target}, Channel: channel, CommandID: commandID("")}
	after, _, err := s.appendBatch(ctx, g, batch, meta, "", "", "")
	if err != nil {
		return nil, err
	}
	return s.botsAfter(ctx, after)
}

// joinTargets are the seats a join takes: every seat reserved for the
// player (a rematch), else the asked one or the first free seat that is
// not reserved for someone else.
func (g *Game) joinTargets(playerID string, seat *int) ([]int, error) {
	if reserved := g.ReservedFor(playerID); len(reserved) > 0 {
		if seat != nil && !slices.Contains(reserved, *seat) {
			return nil, fmt.Errorf("%w: seat %d is not the one kept for you (seat %d is)", ErrForbidden, *seat, reserved[0])
		}
		return reserved, nil
	}
	if len(g.SeatsOf(playerID)) > 0 {
		return nil, fmt.Errorf("%w: you already hold a seat in this game", ErrForbidden)
	}
	var open []int
	for _, i := range g.freeSeats() {
		if g.Seats[i].Reserved == "" {
			open = append(open, i)
		}
	}
	if seat != nil {
		switch {
		case slices.Contains(open, *seat):
			return []int{*seat}, nil
		case *seat >= 0 && *seat < len(g.Seats) && !g.Seats[*seat].taken() && g.Seats[*seat].Reserved != "":
			return nil, fmt.Errorf("%w: %w: seat %d is reserved for another player", ErrForbidden, ErrReserved, *seat)
		}
		return nil, fmt.Errorf("%w: seat %d is not free", ErrForbidden, *seat)
	}
	if len(open) == 0 {
		return nil, fmt.Errorf("%w: %w", ErrForbidden, ErrReserved)
	}
	return open[:1], nil
}

// Move applies a move. Without If-Match, a lost race with another append
// (a bot, a simultaneous grey-wall choice) is retried on the new state.
func (s *Service) Move(ctx context.Context, req MoveRequest) (*MoveResult, error) {
	for range 5 {
		g, cached, err := s.gameForMove(ctx, req)
		if err != nil {
			return nil, err
		}
		if req.ExpectedVersion != nil && !g.ExpectsCurrent(*req.ExpectedVersion) {
			// A retry of a move that already went through finds the game
			// past the version it expected: it gets the first result.
			if res, found, err := s.replayMove(ctx, g, req); err != nil || found {
				return res, err
			}
			return nil, &events.ConflictError{StreamID: g.ID, Expected: *req.ExpectedVersion, Actual: g.Version}
		}
		res, err := s.moveOnce(ctx, g, req)
		if events.Unavailable(err) {
			// No primary answered, or the move may have been applied
			// (its commit unconfirmed): deciding it again could make it
			// twice. The caller retries with its key, or reloads.
			s.cache.forget(g.ID)
			return nil, err
		}
		if err != nil && cached {
			// A refusal may come from a copy that another replica's move
			// made stale: only the store's game may refuse a move.
			s.cache.forget(g.ID)
			continue
		}
		if isConflict(err) {
			// Without If-Match the move is decided again on the new
			// state; with it, the next round tells whether what came in
			// between was only table talk (the move goes through) or
			// not (the conflict is answered).
			continue
		}
		if err != nil {
			return nil, err
		}
		if !res.Replayed && res.Game != nil {
			if after, err := s.botsAfter(ctx, res.Game); err == nil {
				res.Game = after
			} else {
				s.log.WarnContext(ctx, "bot moves failed", "game", g.ID, "err", err)
			}
		}
		return res, nil
	}
	return nil, fmt.Errorf("move in game %s: %w", req.GameID, events.ErrConflict)
}

// gameForMove is the game a move is decided against, and whether it is the
// cached copy. The cached copy is used when it can be right: an accepted
// move is then checked by the append's expected version (a copy another
// replica made stale fails there), and a refused one is decided again
// against the store's game (see Move).
func (s *Service) gameForMove(ctx context.Context, req MoveRequest) (*Game, bool, error) {
	if g, ok := s.cache.get(req.GameID); ok && (req.ExpectedVersion == nil || g.ExpectsCurrent(*req.ExpectedVersion)) {
		return g, true, nil
	}
	g, err := s.game(ctx, req.GameID)
	if err == nil {
		s.cache.put(g)
	}
	return g, false, err
}

// moveOnce decides and appends one move against g.
func (s *Service) moveOnce(ctx context.Context, g *Game, req MoveRequest) (*MoveResult, error) {
	seat, err := s.actingSeat(g, req)
	if err != nil {
		return nil, err
	}
	cmd, err := parseMove(g.Rules, req)
	if err != nil {
		return nil, err
	}
	canonical, err := cmd.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", engine.ErrBadCommand, err)
	}
	scope, hash := moveIdempotency(g, req, seat, canonical)
	if scope != "" {
		if res, found, err := s.replay(ctx, scope, req.IdempotencyKey, hash); err != nil || found {
			return res, err
		}
	}
	switch g.Status {
	case StatusOpen:
		return nil, fmt.Errorf("%w: the game has not started: seats are still free", ErrInvalid)
	case StatusFinished:
		return nil, engine.ErrGameOver
	}
	seed, err := s.seed(ctx, g.ID)
	if err != nil {
		return nil, err
	}
	decided, err := g.Rules.Decide(g.State, seat, cmd, seed)
	if err != nil {
		return nil, err
	}
	batch, err := EngineEvents(decided)
	if err != nil {
		return nil, err
	}
	if end, err := engine.Fold(g.Rules, g.State, decided); err == nil && end.Over() && g.Seed == "" {
		reveal, err := SeedRevealedEvent(seed)
		if err != nil {
			return nil, err
		}
		batch = append(batch, reveal)
	}
	actor := req.Actor
	actor.Seat = &seat
	meta := events.Meta{
		Actor: actor, Channel: req.Channel, CommandID: commandID(req.IdempotencyKey),
		Command: canonical, Notation: cmd.Notation(), MailAuth: req.MailAuth,
	}
	after, res, err := s.appendBatch(ctx, g, batch, meta, scope, req.IdempotencyKey, hash, req.Also...)
	if err != nil {
		return nil, err
	}
	if res.Replayed {
		// The same command, sent again at the same time, went in first:
		// the append wrote nothing and answers with that first result.
		return replayedResult(res.Records), nil
	}
	return &MoveResult{Version: after.Version, Events: res.Records, Game: after}, nil
}

// moveIdempotency is the idempotency scope and request hash of a move by
// seat, or empty strings when the request carries no key.
func moveIdempotency(g *Game, req MoveRequest, seat int, canonical []byte) (scope, hash string) {
	if req.IdempotencyKey == "" {
		return "", ""
	}
	return MoveKey(g.ID, req.Actor, seat, canonical)
}

// replayMove looks up the first result of a keyed move without deciding
// it: found is false for a request without a key, or one that cannot be
// read (the caller then reports why the move cannot go through).
func (s *Service) replayMove(ctx context.Context, g *Game, req MoveRequest) (*MoveResult, bool, error) {
	if req.IdempotencyKey == "" {
		return nil, false, nil
	}
	seat, err := s.actingSeat(g, req)
	if err != nil {
		return nil, false, nil
	}
	cmd, err := parseMove(g.Rules, req)
	if err != nil {
		return nil, false, nil
	}
	canonical, err := cmd.MarshalJSON()
	if err != nil {
		return nil, false, nil
	}
	scope, hash := moveIdempotency(g, req, seat, canonical)
	return s.replay(ctx, scope, req.IdempotencyKey, hash)
}

// replay returns the first result of an idempotent command seen before.
func (s *Service) replay(ctx context.Context, scope, key, hash string) (*MoveResult, bool, error) {
	recs, found, err := s.store.Idempotent(ctx, scope, key, hash)
	if err != nil || !found {
		return nil, found, err
	}
	return replayedResult(recs), true, nil
}

// replayedResult is the answer to a command whose idempotency key had been
// used: the records the first use appended, and the version after them.
func replayedResult(recs []events.Record) *MoveResult {
	version := int64(0)
	if len(recs) > 0 {
		version = recs[len(recs)-1].Version
	}
	return &MoveResult{Version: version, Events: recs, Replayed: true}
}

// actorKey identifies an actor for idempotency scopes.
func actorKey(a events.Actor) string {
	if a.Kind == "player" {
		return "player:" + a.PlayerID
	}
	return a.Kind
}

// actingSeat decides which seat a request moves for.
func (s *Service) actingSeat(g *Game, req MoveRequest) (int, error) {
	if req.Actor.Kind != "player" {
		if req.Seat == nil || *req.Seat < 0 || *req.Seat >= len(g.Seats) {
			return 0, fmt.Errorf("%w: a %s move needs a seat", ErrInvalid, req.Actor.Kind)
		}
		return *req.Seat, nil
	}
	held := g.SeatsOf(req.Actor.PlayerID)
	if len(held) == 0 {
		return 0, fmt.Errorf("%w: you hold no seat in this game", ErrForbidden)
	}
	if req.Seat != nil {
		if !slices.Contains(held, *req.Seat) {
			return 0, fmt.Errorf("%w: seat %d is not yours", ErrForbidden, *req.Seat)
		}
		return *req.Seat, nil
	}
	toAct := g.ToAct()
	for _, seat := range held {
		if slices.Contains(toAct, seat) {
			return seat, nil
		}
	}
	return held[0], nil
}

// parseMove reads the move of a request.
func parseMove(rules engine.Rules, req MoveRequest) (engine.Command, error) {
	switch {
	case len(req.Move) > 0 && req.Notation != "":
		return nil, fmt.Errorf("%w: give the move as JSON or as notation, not both", engine.ErrBadCommand)
	case len(req.Move) > 0:
		return rules.ParseCommand(req.Move)
	case req.Notation != "":
		return rules.ParseNotation(req.Notation)
	}
	return nil, fmt.Errorf("%w: no move given", engine.ErrBadCommand)
}

// maxBotSteps bounds the bot moves made in one go (a whole bots-only game
// is far shorter).
const maxBotSteps = 5000

// botsAfter is what a command does for the bots once its append has
// committed: with job workers (Config.BotJobs) nothing, since the append
// enqueued the job of any bot seat it made due; alone, it moves the bots
// that move at once (playBots).
func (s *Service) botsAfter(ctx context.Context, g *Game) (*Game, error) {
	if s.botJobs {
		return g, nil
	}
	return s.playBots(ctx, g)
}

// playBots moves the bot seats for as long as a bot that moves at once
// must act. The quick bots (random, greedy, levels 1–3) choose in
// microseconds; a searching one (search, levels 4–6) thinks for up to
// bots.MaxBudget and moves only from a job worker (see BotToAct), never
// here.
func (s *Service) playBots(ctx context.Context, g *Game) (*Game, error) {
	for range maxBotSteps {
		seat, kind, ok := botToAct(g)
		if !ok || !bots.Quick(kind) {
			return g, nil
		}
		move, err := bots.Choose(kind, g.State, seat, uint64(g.Version))
		if err != nil {
			return g, fmt.Errorf("bot %s at seat %d: %w", kind, seat, err)
		}
		res, err := s.moveOnce(ctx, g, MoveRequest{
			GameID: g.ID, Actor: events.Actor{Kind: "bot", Bot: kind}, Seat: &seat,
			Move: move.JSON, Channel: "bot",
		})
		if isConflict(err) {
			if g, err = s.game(ctx, g.ID); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return g, err
		}
		g = res.Game
	}
	return g, fmt.Errorf("game %s: bots still to act after %d moves", g.ID, maxBotSteps)
}

// BotToAct is the bot seat that must act now, if any. When bots move by
// jobs (Config.BotJobs), the outbox enqueues one for it with the append's
// other jobs: a chain of bot seats then goes on job by job, each move's
// append bringing the next.
func (g *Game) BotToAct() (int, bool) {
	seat, _, ok := botToAct(g)
	return seat, ok
}

// botToAct finds a bot seat that must act now.
func botToAct(g *Game) (int, string, bool) {
	if g.Status != StatusActive {
		return 0, "", false
	}
	for _, seat := range g.ToAct() {
		if seat >= 0 && seat < len(g.Seats) && g.Seats[seat].Bot != "" {
			return seat, g.Seats[seat].Bot, true
		}
	}
	return 0, "", false
}

// botCatchUpInterval is how often RunBots looks for bots left to act.
const botCatchUpInterval = 30 * time.Second

// botJobGrace is how long a bot seat may wait for its job before RunBots
// moves it when bots move by jobs: longer than a job may run (a minute),
// so RunBots only moves bots whose job is lost or failing (a turn from
// before bots moved by jobs, a job given up after its retries).
const botJobGrace = 2 * time.Minute

// RunBots moves bots left to act (after a restart or a failed request),
// at start and then periodically, until ctx ends. When bots move by jobs
// it is a backstop that leaves every game alone for botJobGrace after its
// last move; it runs in the background, never in a request.
func (s *Service) RunBots(ctx context.Context) error {
	ticker := time.NewTicker(botCatchUpInterval)
	defer ticker.Stop()
	for {
		if err := s.catchUpBots(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "bot catch-up failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
		}
	}
}

// catchUpBots plays every active game in which a bot must act.
func (s *Service) catchUpBots(ctx context.Context) error {
	var idleSince *time.Time
	if s.botJobs {
		t := s.now().Add(-botJobGrace)
		idleSince = &t
	}
	ids, err := s.gamesWaitingForBots(ctx, idleSince)
	if err != nil {
		return err
	}
	for _, id := range ids {
		g, err := s.game(ctx, id)
		if err != nil {
			return err
		}
		if _, err := s.playBots(ctx, g); err != nil {
			s.log.WarnContext(ctx, "bot moves failed", "game", id, "err", err)
		}
	}
	return nil
}

// gamesWaitingForBots lists active games in which a bot seat must act
// (with idleSince, only those whose last move is older).
func (s *Service) gamesWaitingForBots(ctx context.Context, idleSince *time.Time) ([]string, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT g.id::text
		FROM game_seats s JOIN games g ON g.id = s.game_id AND s.seat = ANY (g.to_act)
		WHERE s.bot <> '' AND NOT s.finished AND g.status = 'active'
		  AND ($1::timestamptz IS NULL OR g.last_move_at < $1)`, idleSince)
	if err != nil {
		return nil, fmt.Errorf("find games waiting for bots: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("find games waiting for bots: %w", err)
	}
	return ids, nil
}
