package play

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
)

// EvMessage is table talk: a player wrote to the other players of the
// game. It lives in the game's own stream so that the replay shows it at
// its place, but it changes no game state: the fold only counts it (see
// Game.StateVersion). The payload is the text alone; the event's meta
// names the author by id and seat, and the channel it came by (web, api,
// cli, email). Names never enter the log (docs/architecture.md §9).
const EvMessage = "game.message"

// Chat settings: who may read a game's table talk besides its players.
const (
	// ChatPlayers: only the game's players (the default, and what a
	// game created before the setting existed has).
	ChatPlayers = "players"
	// ChatPublic: whoever may watch the game reads its table talk too.
	ChatPublic = "public"
)

// MaxMessageRunes is the longest message, counted in characters after
// trimming.
const MaxMessageRunes = 500

// messageSaid is the payload of game.message.
type messageSaid struct {
	Text string `json:"text"`
}

// Message is one message of a game's table talk, as a reader sees it.
type Message struct {
	// Version is the event's version in the game's stream: its place in
	// the replay.
	Version int64 `json:"version"`
	Seat    int   `json:"seat"`
	// PlayerID is the author's id. It stays when the account is erased
	// (an id is no personal data); Author then says FormerPlayer.
	PlayerID string `json:"player_id"`
	// Author is the author's display name, read from the players table
	// when the message is read; FormerPlayer for an erased account.
	Author string `json:"author"`
	// Erased: the author's account was erased (Author is FormerPlayer,
	// which a surface says in its reader's words).
	Erased  bool      `json:"erased,omitempty"`
	Text    string    `json:"text"`
	At      time.Time `json:"at"`
	Channel string    `json:"channel"`
}

// ChatIsPublic reports whether spectators may read the game's table talk.
func (s Settings) ChatIsPublic() bool { return s.Chat == ChatPublic }

// CleanMessage is a message's text as it is stored: CRLF and lone CR
// become newlines, the text is trimmed, and it must then be 1 to
// MaxMessageRunes characters of valid UTF-8 without control characters
// other than the newline. Anything else is an *InputError (ErrInvalid).
func CleanMessage(text string) (string, error) {
	if !utf8.ValidString(text) {
		return "", Invalid(ErrInvalid, "talk_text_encoding", "the message is not valid UTF-8 text")
	}
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	text = strings.TrimSpace(text)
	n := utf8.RuneCountInString(text)
	if n == 0 {
		return "", Invalid(ErrInvalid, "talk_text_empty", "the message is empty")
	}
	if n > MaxMessageRunes {
		return "", Invalid(ErrInvalid, "talk_text_long",
			fmt.Sprintf("a message has at most %d characters, not %d", MaxMessageRunes, n),
			"Max", MaxMessageRunes, "Count", n)
	}
	for _, r := range text {
		// Bidirectional overrides (format characters) could make a
		// message show something else than it says: refused with the
		// control characters.
		if r != '\n' && (unicode.IsControl(r) || isBidiControl(r)) {
			return "", Invalid(ErrInvalid, "talk_text_control",
				fmt.Sprintf("the message holds the control character %U", r), "Char", fmt.Sprintf("%U", r))
		}
	}
	return text, nil
}

// isBidiControl reports the characters that reorder the text around them.
func isBidiControl(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}

// Say appends a message by p to the game's log. p must hold a seat
// (spectators may not write: ErrForbidden); the game may be open, running
// or finished. The text is cleaned by CleanMessage. With an idempotency
// key, the same request sent again gets the first message and appends
// nothing (the same key with another text is events.ErrIdempotencyMismatch).
// A message is never a move: it waits for no turn and never conflicts
// with one (it is appended at whatever version the game has).
func (s *Service) Say(ctx context.Context, gameID string, p Player, text, channel, idempotencyKey string) (*Message, error) {
	clean, err := CleanMessage(text)
	if err != nil {
		return nil, err
	}
	payload, err := serverEvent(EvMessage, messageSaid{Text: clean})
	if err != nil {
		return nil, err
	}
	scope, hash := "", ""
	if idempotencyKey != "" {
		scope, hash = "say:"+gameID+":"+p.ID, requestHash(clean)
	}
	for range 10 {
		g, err := s.CurrentState(ctx, gameID)
		if err != nil {
			return nil, err
		}
		seats := g.SeatsOf(p.ID)
		if len(seats) == 0 {
			return nil, fmt.Errorf("%w: only the game's players write to its table", ErrForbidden)
		}
		if scope != "" {
			recs, found, err := s.store.Idempotent(ctx, scope, idempotencyKey, hash)
			if err != nil {
				return nil, err
			}
			if found && len(recs) > 0 {
				return s.namedMessage(ctx, recs[0])
			}
		}
		seat := seats[0]
		meta := events.Meta{
			Actor:   events.Actor{Kind: "player", PlayerID: p.ID, Seat: &seat},
			Channel: channel, CommandID: commandID(idempotencyKey),
		}
		_, res, err := s.appendBatch(ctx, g, []events.NewEvent{payload}, meta, scope, idempotencyKey, hash)
		if isConflict(err) {
			// A move or another message went in first: a message waits
			// for nothing, so it goes after it.
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(res.Records) == 0 {
			return nil, fmt.Errorf("say in game %s: the append returned no event", gameID)
		}
		return s.namedMessage(ctx, res.Records[0])
	}
	return nil, fmt.Errorf("say in game %s: %w", gameID, events.ErrConflict)
}

// namedMessage is a stored game.message with its author's name.
func (s *Service) namedMessage(ctx context.Context, rec events.Record) (*Message, error) {
	m, err := messageOf(rec)
	if err != nil {
		return nil, err
	}
	names, err := s.playerNames(ctx, []string{m.PlayerID})
	if err != nil {
		return nil, err
	}
	m.Author, m.Erased = authorName(names, m.PlayerID)
	return &m, nil
}

// authorName is a message author's display name: FormerPlayer for an id
// the players table no longer has.
func authorName(names map[string]string, id string) (name string, erased bool) {
	if n, ok := names[id]; ok {
		return n, false
	}
	return FormerPlayer, true
}

// messageOf reads a game.message record (without the author's name).
func messageOf(rec events.Record) (Message, error) {
	var said messageSaid
	if err := json.Unmarshal(rec.Data, &said); err != nil {
		return Message{}, fmt.Errorf("%w: decode %s at version %d: %v", engine.ErrInconsistent, rec.Type, rec.Version, err)
	}
	m := Message{Version: rec.Version, Seat: -1, PlayerID: rec.Meta.Actor.PlayerID, Text: said.Text, At: rec.RecordedAt, Channel: rec.Meta.Channel}
	if rec.Meta.Actor.Seat != nil {
		m.Seat = *rec.Meta.Actor.Seat
	}
	return m, nil
}

// MayReadTalk reports whether viewer (a player id, "" for a visitor) may
// read g's table talk: its players always, anyone else only when the
// game's chat is public. (Whether they may read the game at all is
// MayRead's question, asked before.)
func (g *Game) MayReadTalk(viewer string) bool {
	return g.ChatIsPublic() || (viewer != "" && len(g.SeatsOf(viewer)) > 0)
}

// Messages returns the game's messages after version after, oldest
// first, as viewer may see them: a list for its players, and for others
// only when the game's chat is public (else an empty list: there is
// nothing they may read, which is no error).
func (s *Service) Messages(ctx context.Context, gameID, viewerID string, after int64) ([]Message, error) {
	if after < 0 {
		return nil, fmt.Errorf("%w: after must not be negative", ErrInvalid)
	}
	g, err := s.CurrentState(ctx, gameID)
	if err != nil {
		return nil, err
	}
	if !g.MayReadTalk(viewerID) || after >= g.Version {
		return []Message{}, nil
	}
	recs, err := s.store.Load(ctx, gameID, after, 0)
	if err != nil {
		return nil, fmt.Errorf("load messages of game %s: %w", gameID, err)
	}
	return s.messagesOf(ctx, recs)
}

// messagesOf picks the messages out of records, with their authors'
// names.
func (s *Service) messagesOf(ctx context.Context, recs []events.Record) ([]Message, error) {
	out := []Message{}
	var ids []string
	for _, rec := range recs {
		if rec.Type != EvMessage {
			continue
		}
		m, err := messageOf(rec)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
		ids = append(ids, m.PlayerID)
	}
	if len(out) == 0 {
		return out, nil
	}
	names, err := s.playerNames(ctx, ids)
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Author, out[i].Erased = authorName(names, out[i].PlayerID)
	}
	return out, nil
}

// SetMuted records a player's choice not to be sent the game's messages
// (no mail, no unread mark on the page). Only the game's players have the
// choice: others get ErrForbidden. It is a preference, not a fact of the
// game, so it lives in game_mutes, not in the log.
func (s *Service) SetMuted(ctx context.Context, gameID, playerID string, muted bool) error {
	g, err := s.CurrentState(ctx, gameID)
	if err != nil {
		return err
	}
	if len(g.SeatsOf(playerID)) == 0 {
		return fmt.Errorf("%w: only the game's players can mute its table talk", ErrForbidden)
	}
	if muted {
		_, err = s.pool.Exec(ctx, `INSERT INTO game_mutes (game_id, player_id) VALUES ($1::uuid, $2::uuid)
			ON CONFLICT DO NOTHING`, gameID, playerID)
	} else {
		_, err = s.pool.Exec(ctx, `DELETE FROM game_mutes WHERE game_id = $1::uuid AND player_id = $2::uuid`, gameID, playerID)
	}
	if err != nil {
		return fmt.Errorf("mute game %s for %s: %w", gameID, playerID, err)
	}
	return nil
}

// Muted reports whether a player muted a game's table talk.
func (s *Service) Muted(ctx context.Context, gameID, playerID string) (bool, error) {
	if !validUUID(gameID) || !validUUID(playerID) {
		return false, nil
	}
	var muted bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM game_mutes WHERE game_id = $1::uuid AND player_id = $2::uuid)`,
		gameID, playerID).Scan(&muted)
	if err != nil {
		return false, fmt.Errorf("read mute of game %s for %s: %w", gameID, playerID, err)
	}
	return muted, nil
}

// MaxReportRunes bounds the reason given with a report.
const MaxReportRunes = 500

// Report is a player's report of a message for the operators.
type Report struct {
	GameID     string    `json:"game_id"`
	Version    int64     `json:"version"`
	ReporterID string    `json:"reporter_id"`
	AuthorID   string    `json:"author_id"`
	Reason     string    `json:"reason"`
	At         time.Time `json:"at"`
	// Text is the reported message (read from the log when listed).
	Text string `json:"text,omitempty"`
}

// ReportMessage records a player's report of another player's message at
// version. The reporter must hold a seat (ErrForbidden); version must be
// a message of another player (ErrNotFound, or ErrInvalid for one's own).
// A player reports a message once: created is false when they had.
func (s *Service) ReportMessage(ctx context.Context, gameID string, reporter Player, version int64, reason string) (created bool, err error) {
	reason = strings.TrimSpace(strings.ReplaceAll(reason, "\r\n", "\n"))
	if !utf8.ValidString(reason) || utf8.RuneCountInString(reason) > MaxReportRunes {
		return false, Invalid(ErrInvalid, "talk_report_reason",
			fmt.Sprintf("a report's reason has at most %d characters of text", MaxReportRunes), "Max", MaxReportRunes)
	}
	g, err := s.CurrentState(ctx, gameID)
	if err != nil {
		return false, err
	}
	if len(g.SeatsOf(reporter.ID)) == 0 {
		return false, fmt.Errorf("%w: only the game's players report its messages", ErrForbidden)
	}
	if version < 1 || version > g.Version {
		return false, fmt.Errorf("%w: no message at version %d", ErrNotFound, version)
	}
	recs, err := s.store.Load(ctx, gameID, version-1, 1)
	if err != nil {
		return false, fmt.Errorf("load event %d of game %s: %w", version, gameID, err)
	}
	if len(recs) != 1 || recs[0].Type != EvMessage {
		return false, fmt.Errorf("%w: no message at version %d", ErrNotFound, version)
	}
	author := recs[0].Meta.Actor.PlayerID
	if author == reporter.ID {
		return false, Invalid(ErrInvalid, "talk_report_own", "one's own message cannot be reported")
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO message_reports (game_id, version, reporter_id, author_id, reason)
		VALUES ($1::uuid, $2, $3::uuid, $4, $5) ON CONFLICT DO NOTHING`,
		gameID, version, reporter.ID, author, reason)
	if err != nil {
		return false, fmt.Errorf("report message %d of game %s: %w", version, gameID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// Reports lists the reports of messages, newest first, with the reported
// texts read from the log; limit bounds the list (at most 1000).
func (s *Service) Reports(ctx context.Context, limit int) ([]Report, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	rows, err := s.pool.Query(ctx, `SELECT game_id::text, version, coalesce(reporter_id::text, ''), author_id, reason, reported_at
		FROM message_reports ORDER BY reported_at DESC, game_id, version LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("list message reports: %w", err)
	}
	reports, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Report, error) {
		var r Report
		err := row.Scan(&r.GameID, &r.Version, &r.ReporterID, &r.AuthorID, &r.Reason, &r.At)
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("list message reports: %w", err)
	}
	for i := range reports {
		recs, err := s.store.Load(ctx, reports[i].GameID, reports[i].Version-1, 1)
		if err != nil {
			return nil, fmt.Errorf("load reported message: %w", err)
		}
		if len(recs) == 1 && recs[0].Type == EvMessage {
			if m, err := messageOf(recs[0]); err == nil {
				reports[i].Text = m.Text
			}
		}
	}
	return reports, nil
}

// applyMessage folds game.message: it checks the payload and changes
// nothing but the version (see Game.apply).
func (g *Game) applyMessage(rec events.Record) error {
	var said messageSaid
	if err := json.Unmarshal(rec.Data, &said); err != nil {
		return fmt.Errorf("%w: decode: %v", engine.ErrInconsistent, err)
	}
	if g.Rules == nil {
		return fmt.Errorf("%w: game.message before game.created", engine.ErrInconsistent)
	}
	return nil
}

// ExpectsCurrent reports whether a command that expected version v (an
// If-Match, a mail's version) expected the game as it is: v is its
// version, or one that only table talk follows. A move is never refused
// because a message came in after the state it was decided on.
func (g *Game) ExpectsCurrent(v int64) bool {
	return v == g.Version || (v >= g.StateVersion && v <= g.Version)
}

// OnlyTalk reports whether an append's records are all table talk: such
// an append is no turn and must cause no turn mail, timer or bot move.
func OnlyTalk(appended []events.Record) bool {
	for _, r := range appended {
		if r.Type != EvMessage {
			return false
		}
	}
	return len(appended) > 0
}

// hiddenTalk is the payload a game.message shows to whom may not read
// the game's table talk: the event stays in its place, its text does not.
var hiddenTalk = json.RawMessage(`{}`)

// seatOf is the seat that caused a record, or -1.
func seatOf(rec events.Record) int {
	if rec.Meta.Actor.Seat != nil {
		return *rec.Meta.Actor.Seat
	}
	return -1
}

// HideTalk returns recs as a reader may see them: unchanged when mayRead
// (see Game.MayReadTalk), else with every game.message's payload emptied.
// recs itself is not changed.
func HideTalk(recs []events.Record, mayRead bool) []events.Record {
	if mayRead {
		return recs
	}
	out := recs
	copied := false
	for i, rec := range recs {
		if rec.Type != EvMessage {
			continue
		}
		if !copied {
			out = slices.Clone(recs)
			copied = true
		}
		out[i].Data = hiddenTalk
	}
	return out
}

// MayReadTalkOf reports whether viewer may read the table talk of the
// game id (see Game.MayReadTalk).
func (s *Service) MayReadTalkOf(ctx context.Context, id, viewer string) (bool, error) {
	g, err := s.CurrentState(ctx, id)
	if err != nil {
		return false, err
	}
	return g.MayReadTalk(viewer), nil
}

// EventsFor is Events as viewer may read them (see HideTalk).
func (s *Service) EventsFor(ctx context.Context, id, viewer string, afterVersion int64, limit int) ([]events.Record, error) {
	recs, err := s.Events(ctx, id, afterVersion, limit)
	if err != nil {
		return nil, err
	}
	may, err := s.MayReadTalkOf(ctx, id, viewer)
	if err != nil {
		return nil, err
	}
	return HideTalk(recs, may), nil
}

// ExportFor is Export as viewer may read it: the table talk of a game
// whose chat is the players' is exported without its texts to anyone
// else (see HideTalk). The export still imports and verifies.
func (s *Service) ExportFor(ctx context.Context, id, viewer string, w io.Writer) error {
	recs, err := s.EventsFor(ctx, id, viewer, 0, 0)
	if err != nil {
		return err
	}
	return WriteRecords(w, recs)
}
