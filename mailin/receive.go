package mailin

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mail/reply"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
	"github.com/azuld/azuld/redact"
	"github.com/jackc/pgx/v5/pgconn"
)

// Envelope is how an inbound mail arrived (the SMTP envelope, or what a
// provider's inbound webhook says of it). Both may be empty.
type Envelope struct {
	From  string
	Rcpts []string
	// RemoteIP is the sending server, when the mail came by SMTP (for
	// SPF); invalid otherwise.
	RemoteIP netip.Addr
}

// Outcome is what Receive did with a mail.
type Outcome string

// Outcomes of Receive. Only OutcomeApplied changed a game.
const (
	OutcomeApplied Outcome = "applied"
	// OutcomeMessage: the reply was a message to the table and no move
	// (it changed the game's log, not its state).
	OutcomeMessage   Outcome = "message"
	OutcomeRefused   Outcome = "refused"
	OutcomeStopped   Outcome = "stopped"
	OutcomeDuplicate Outcome = "duplicate"
	OutcomeAuto      Outcome = "auto_reply"
	OutcomeNoToken   Outcome = "unknown_token"
	OutcomeForged    Outcome = "sender_mismatch"
	// OutcomeBounce: the mail went to a return path (bounce+…), a
	// delivery report or complaint, handled by ReceiveBounce.
	OutcomeBounce Outcome = "bounce"
)

// ErrMalformed is returned for a mail that cannot be read at all (it
// wraps reply.ErrMalformed or reply.ErrTooLarge).
var ErrMalformed = errors.New("unreadable mail")

// Receive takes one inbound mail (a reply to a game mail) and acts on it:
// a move, "stop", or nothing. A mail whose token is unknown or whose sender
// is not the seat's player changes nothing and gets no answer (answering
// a forger would confirm the address); a mail seen before (same
// Message-ID) applies once. Every outcome is logged.
func (r *Receiver) Receive(ctx context.Context, env Envelope, raw []byte) (Outcome, error) {
	if r.toReturnPath(env, raw) {
		// A provider's inbound webhook brings the reports to the return
		// paths here too (the SMTP listener sorts them out itself).
		if _, err := r.ReceiveBounce(ctx, env.Rcpts, raw); err != nil {
			return "", err
		}
		return OutcomeBounce, nil
	}
	outcome, err := r.receive(ctx, env, raw)
	switch {
	case errors.Is(err, ErrMalformed):
		r.inbound.WithLabelValues("malformed").Inc()
	case err == nil:
		r.inbound.WithLabelValues(string(outcome)).Inc()
	}
	return outcome, err
}

func (r *Receiver) receive(ctx context.Context, env Envelope, raw []byte) (Outcome, error) {
	msg, err := reply.Parse(raw, r.domain, env.From, env.Rcpts)
	if err != nil {
		r.log.InfoContext(ctx, "inbound mail unreadable", "err", err)
		return "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	log := r.log.With("message_id", msg.MessageID, "from", msg.From)
	if msg.Auto {
		log.InfoContext(ctx, "inbound mail ignored: automatic reply")
		return OutcomeAuto, nil
	}
	id := msg.MessageID
	if id == "" {
		// Without a Message-ID the content identifies a redelivery.
		sum := sha256.Sum256(raw)
		id = "sha256:" + hex.EncodeToString(sum[:])
	}
	key := inboundKey(id)
	if seen, err := r.seen(ctx, key); err != nil {
		return "", err
	} else if seen {
		log.InfoContext(ctx, "inbound mail ignored: already processed")
		// A move applied before a crash may have missed its message.
		return OutcomeDuplicate, r.sayAgain(ctx, log, key, msg)
	}
	gameID, seat, tokenVersion, ok, err := r.outbox.SeatOfToken(ctx, msg.Token)
	if err != nil {
		return "", err
	}
	if !ok {
		log.InfoContext(ctx, "inbound mail ignored: unknown reply address", "recipients", redact.Addresses(msg.Recipients))
		return OutcomeNoToken, r.record(ctx, key, "", -1, OutcomeNoToken)
	}
	log = log.With("game", gameID, "seat", seat)
	g, err := r.svc.Game(ctx, gameID)
	if err != nil {
		return "", fmt.Errorf("load game %s: %w", gameID, err)
	}
	// The seat's player, or the player a rematch keeps it for.
	if seat < 0 || seat >= len(g.Seats) || g.Seats[seat].Holder() == "" {
		log.InfoContext(ctx, "inbound mail ignored: the seat has no player")
		return OutcomeNoToken, r.record(ctx, key, gameID, seat, OutcomeNoToken)
	}
	player, err := r.svc.Player(ctx, g.Seats[seat].Holder())
	if err != nil {
		return "", fmt.Errorf("load player: %w", err)
	}
	if player.Email == "" || addressOf(player.Email) != addressOf(msg.From) {
		log.InfoContext(ctx, "inbound mail ignored: the sender is not the seat's player")
		return OutcomeForged, r.record(ctx, key, gameID, seat, OutcomeForged)
	}
	command := strings.TrimSpace(msg.Command)
	// The player's own text: the first line (the command) and what
	// follows, a message to the table.
	own := reply.OwnText(msg.Text)
	// The player writes in their own language: its command words, and
	// the move words of every language (words.Read).
	lang, _, err := r.outbox.ReaderOf(ctx, player.ID)
	if err != nil {
		return "", err
	}
	// The List-Unsubscribe mailto sends "stop" as the subject, with any
	// body (often none, or the client's signature): the subject alone
	// stops.
	if r.isStop(command) || r.isStop(bareSubject(msg.Subject)) {
		if err := r.outbox.StopMails(ctx, gameID, seat); err != nil {
			return "", err
		}
		log.InfoContext(ctx, "mails stopped by reply")
		return OutcomeStopped, r.record(ctx, key, gameID, seat, OutcomeStopped)
	}

	if o, ok, err := r.rematchByMail(ctx, log, key, g, seat, player, command); ok || err != nil {
		return r.sayAfter(ctx, log, key, g, player, own.Rest, o, err)
	}
	if word, arg, _ := strings.Cut(strings.ToLower(strings.Trim(command, ".!")), " "); r.commandWord(word) != "" {
		if g.Status != play.StatusActive {
			o, err := r.refuse(ctx, log, key, g, seat, player, reason{id: "not_running"})
			return r.sayAfter(ctx, log, key, g, player, own.Rest, o, err)
		}
		o, err := r.takebackByMail(ctx, log, key, g, seat, player, r.commandWord(word), strings.TrimSpace(arg))
		return r.sayAfter(ctx, log, key, g, player, own.Rest, o, err)
	}
	if r.firstLineIsMessage(g, seat, lang, command) {
		return r.talkOnly(ctx, log, key, g, seat, player, own.All)
	}
	// A refused move's message goes to the table all the same, and the
	// refusal says so.
	refuse := func(why reason) (Outcome, error) {
		posted, limited, err := r.say(ctx, log, key, g, player, own.Rest)
		if err != nil {
			return "", err
		}
		why.talked, why.talkLimited = posted, limited
		return r.refuse(ctx, log, key, g, seat, player, why)
	}

	req := play.MoveRequest{
		GameID: gameID, Actor: events.Actor{Kind: "player", PlayerID: player.ID}, Seat: &seat,
		Channel: "email", IdempotencyKey: key,
		// The mail is recorded by the move's own statement, so a
		// redelivery finds it at once.
		Also: []events.Companion{{
			SQL: `INSERT INTO inbound_mails (message_id, game_id, seat, outcome)
				SELECT $1::text, $2::uuid, $3::int, $4::text WHERE EXISTS (SELECT FROM appended)
				ON CONFLICT DO NOTHING`,
			Args: []any{key, gameID, seat, string(OutcomeApplied)},
		}},
	}
	if g.Status == play.StatusFinished {
		return refuse(reason{id: "game_over"})
	}
	if r.cfg.MailAuth != nil && env.RemoteIP.IsValid() {
		// Recorded, not enforced: the reply token and the sender decide.
		req.MailAuth = r.cfg.MailAuth.Check(ctx, env.RemoteIP, env.From, raw).String()
	}
	number, numErr := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(command, "#"), "."))
	canonical := command
	if numErr != nil && command != "" && !strings.HasPrefix(command, "{") {
		// A word that means different things is refused with its
		// candidates, in the sender's language; nothing is played.
		canonical, err = reply.Move(r.cfg.Words, lang, g.Config.Ruleset, command)
		var amb *notation.AmbiguousError
		if errors.As(err, &amb) {
			return refuse(reason{id: "ambiguous", args: map[string]string{"command": command}})
		}
		if err != nil {
			return "", fmt.Errorf("read the move: %w", err)
		}
	}
	if command != "" && !slices.Contains(g.ToAct(), seat) && !isResignation(g, canonical) {
		// Whatever the reply holds, this seat cannot move now; a number
		// would otherwise be refused as out of an empty range.
		return refuse(reason{id: "not_your_turn"})
	}
	answered := r.answeredVersion(msg, gameID, seat, tokenVersion)
	if numErr == nil {
		if !g.ExpectsCurrent(answered) {
			return refuse(reason{id: "moved_on", args: map[string]string{
				"answered": strconv.FormatInt(answered, 10), "now": strconv.FormatInt(g.Version, 10), "number": strconv.Itoa(number)}})
		}
		// Numbers count in the list the mail showed.
		moves, _ := compose.Numbered(g.LegalMoves(seat))
		if number < 1 || number > len(moves) {
			return refuse(reason{id: "no_such_number", args: map[string]string{
				"number": strconv.Itoa(number), "max": strconv.Itoa(len(moves))}})
		}
		req.Move = moves[number-1].JSON
		version := g.Version
		req.ExpectedVersion = &version
	} else if strings.HasPrefix(command, "{") {
		req.Move = []byte(command)
	} else if command == "" {
		return refuse(reason{id: "empty"})
	} else {
		req.Notation = canonical
	}
	res, err := r.svc.Move(ctx, req)
	if err != nil {
		if why, ok := refusal(err, command); ok {
			return refuse(why)
		}
		return "", fmt.Errorf("move by mail: %w", err)
	}
	if res.Replayed {
		return r.sayAfter(ctx, log, key, g, player, own.Rest, OutcomeDuplicate, nil)
	}
	// The move's statement recorded the Message-ID; the confirmation is
	// enqueued with the move (the hook) or from the log (Follow).
	log.InfoContext(ctx, "move by mail applied", "version", res.Version)
	// The message after the move: a crash before it is made good when
	// the mail comes again (sayAgain).
	return r.sayAfter(ctx, log, key, g, player, own.Rest, OutcomeApplied, nil)
}

// isResignation tells a reply that resigns ("resign" in notation or
// JSON): the rules accept a resignation from any seat at any time, as
// the API does, so it must not be refused as "not your turn".
func isResignation(g *play.Game, command string) bool {
	if g.Rules == nil {
		return false
	}
	var cmd engine.Command
	var err error
	if strings.HasPrefix(command, "{") {
		cmd, err = g.Rules.ParseCommand([]byte(command))
	} else {
		cmd, err = g.Rules.ParseNotation(command)
	}
	return err == nil && cmd.Notation() == "resign"
}

// isStop tells a stop command: "stop" or "unsubscribe" or their words
// in any language, any case, with a full stop or an exclamation mark.
func (r *Receiver) isStop(s string) bool {
	return r.commandWord(strings.Trim(strings.TrimSpace(s), ".!")) == "stop"
}

// commandWord is the command a reply's word names in any language
// ("accept", "decline", "undo", "stop"), "" for none.
func (r *Receiver) commandWord(word string) string {
	return r.commands[strings.ToLower(strings.TrimSpace(word))]
}

// commandWords reads the command words of every language from the
// catalogue: mail.command.<command> is a comma-separated list. A word
// two languages give different commands is left out.
func commandWords(cat *i18n.Catalogue) map[string]string {
	out := map[string]string{}
	clash := map[string]bool{}
	for _, lang := range i18n.Languages {
		l := cat.Localizer(lang, time.UTC)
		for _, c := range []string{"accept", "decline", "undo", "stop"} {
			for _, w := range strings.Split(l.T("mail.command."+c), ",") {
				w = strings.ToLower(strings.TrimSpace(w))
				if w == "" {
					continue
				}
				if prev, ok := out[w]; ok && prev != c {
					clash[w] = true
				}
				out[w] = c
			}
		}
	}
	for w := range clash {
		delete(out, w)
	}
	// The English words always work, whatever the catalogue says.
	for _, c := range []string{"accept", "decline", "undo", "stop"} {
		out[c] = c
	}
	out["unsubscribe"] = "stop"
	return out
}

// bareSubject is a subject without the reply and forward prefixes mail
// programs add in various languages ("Re:", "AW:", "Fwd:", "SV:", …).
func bareSubject(subject string) string {
	s := strings.TrimSpace(subject)
	for {
		word, rest, ok := strings.Cut(s, ":")
		if !ok {
			return s
		}
		switch strings.ToLower(strings.TrimSpace(word)) {
		case "re", "aw", "fw", "fwd", "wg", "sv", "vs", "antw", "r", "rif", "tr", "res", "enc":
			s = strings.TrimSpace(rest)
		default:
			return s
		}
	}
}

// takebackByMail carries out a take-back command sent by mail: "undo"
// (or "undo N") asks to take back the seat's last move(s), "accept" and
// "decline" answer the pending request. The answer is not in one
// transaction with the Message-ID's record: a mail delivered again after
// a crash in between asks again, which consenting twice ignores and
// anything else refuses as a conflict.
func (r *Receiver) takebackByMail(ctx context.Context, log *slog.Logger, key string, g *play.Game, seat int, p play.Player, word, arg string) (Outcome, error) {
	var err error
	switch word {
	case "undo":
		moves := 1
		if arg != "" {
			if moves, err = strconv.Atoi(arg); err != nil || moves < 1 {
				return r.refuse(ctx, log, key, g, seat, p, reason{id: "undo_count", args: map[string]string{"max": strconv.Itoa(play.MaxTakebackMoves)}})
			}
		}
		_, err = r.svc.RequestTakeback(ctx, play.TakebackRequest{GameID: g.ID, Player: p, Seat: &seat, Moves: moves, Channel: "email"})
	default:
		t := g.PendingTakeback()
		if t == nil {
			return r.refuse(ctx, log, key, g, seat, p, reason{id: "no_takeback"})
		}
		_, err = r.svc.AnswerTakeback(ctx, g.ID, t.ID, p, word == "accept", "email")
	}
	if err != nil {
		if why, ok := takebackRefusal(err); ok {
			return r.refuse(ctx, log, key, g, seat, p, why)
		}
		return "", fmt.Errorf("take-back by mail: %w", err)
	}
	log.InfoContext(ctx, "take-back by mail applied", "command", word)
	return OutcomeApplied, r.record(ctx, key, g.ID, seat, OutcomeApplied)
}

// takebackRefusal is refusal for the errors of take-back commands.
func takebackRefusal(err error) (reason, bool) {
	switch {
	case errors.Is(err, play.ErrTakebackConflict):
		return reason{id: "takeback_conflict", english: err.Error()}, true
	case errors.Is(err, play.ErrNothingToTakeBack):
		return reason{id: "nothing_to_take_back", english: err.Error()}, true
	case errors.Is(err, play.ErrTakebacksOff):
		return reason{id: "takebacks_off", english: err.Error()}, true
	}
	return refusal(err, "")
}

// answeredVersion is the game version of the mail a reply answers: from
// its In-Reply-To or References (our Message-IDs name game, version and
// seat), else the version its reply token was issued for.
func (r *Receiver) answeredVersion(msg *reply.Message, gameID string, seat int, tokenVersion int64) int64 {
	ids := []string{msg.InReplyTo}
	for i := len(msg.References) - 1; i >= 0; i-- {
		ids = append(ids, msg.References[i])
	}
	for _, id := range ids {
		if g, v, s, ok := compose.ParseMessageID(id, r.domain); ok && g == gameID && s == seat {
			return v
		}
	}
	return tokenVersion
}

// reason is why a reply was refused: the id of a mail.refusal message
// and its arguments, written in the reader's language when the answer
// is sent (reasonText); english is for the log.
type reason struct {
	id      string
	args    map[string]string
	english string
	// talked: the reply's message went to the table all the same;
	// talkLimited: it did not, the player wrote too many lately.
	talked, talkLimited bool
}

// refusal turns an error of the command path into the reason a player
// reads; ok is false for errors that are not the player's (a database
// failure), which are retried instead. command is what the player wrote.
func refusal(err error, command string) (reason, bool) {
	var rule *engine.RuleError
	var conflict *events.ConflictError
	r := reason{english: err.Error()}
	switch {
	case errors.As(err, &rule):
		r.id, r.args = "rule", map[string]string{"rule": rule.Rule}
	case errors.As(err, &conflict) || errors.Is(err, events.ErrConflict):
		r.id = "conflict"
	case errors.Is(err, engine.ErrNotYourTurn):
		r.id = "not_your_turn"
	case errors.Is(err, engine.ErrGameOver):
		r.id = "game_over"
	case errors.Is(err, engine.ErrBadCommand), errors.Is(err, play.ErrInvalid):
		r.id, r.args = "unreadable", map[string]string{"move": command}
	case errors.Is(err, play.ErrForbidden), errors.Is(err, events.ErrIdempotencyMismatch):
		r.id = "refused"
	default:
		return reason{}, false
	}
	return r, true
}

// refuse records the refusal and enqueues the answer with the current
// legal moves, in one transaction, so a redelivered mail is neither
// answered twice nor lost.
func (r *Receiver) refuse(ctx context.Context, log *slog.Logger, key string, g *play.Game, seat int, p play.Player, why reason) (Outcome, error) {
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return "", fmt.Errorf("refuse mail: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	fresh, err := recordInbound(ctx, tx, key, g.ID, seat, OutcomeRefused)
	if err != nil {
		return "", err
	}
	if !fresh {
		return OutcomeDuplicate, nil
	}
	err = r.outbox.QueueMailsTx(ctx, tx, notify.MailArgs{
		Mail: compose.KindRefused, GameID: g.ID, Version: g.Version, Seat: seat,
		PlayerID: p.ID, To: p.Email, Name: p.Name, At: r.now(), ReasonID: why.id, ReasonArgs: why.args, Talked: why.talked, TalkLimited: why.talkLimited,
	})
	if err != nil {
		return "", fmt.Errorf("enqueue refusal: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return "", fmt.Errorf("refuse mail: %w", err)
	}
	log.InfoContext(ctx, "move by mail refused", "reason", why.id, "detail", why.english)
	return OutcomeRefused, nil
}

// inboundKey is the idempotency key of a mail: short, whatever the
// Message-ID's length.
func inboundKey(messageID string) string {
	sum := sha256.Sum256([]byte(messageID))
	return "mail:" + hex.EncodeToString(sum[:16])
}

func (r *Receiver) seen(ctx context.Context, key string) (bool, error) {
	var found bool
	if err := r.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM inbound_mails WHERE message_id = $1)`, key).Scan(&found); err != nil {
		return false, fmt.Errorf("check inbound mail: %w", err)
	}
	return found, nil
}

// record notes an inbound mail that changed no game.
func (r *Receiver) record(ctx context.Context, key, gameID string, seat int, outcome Outcome) error {
	_, err := recordInbound(ctx, r.pool, key, gameID, seat, outcome)
	return err
}

// recordInbound notes the outcome of an inbound mail under its key (an
// empty gameID records no game or seat); fresh is false when the key was
// recorded before.
func recordInbound(ctx context.Context, db interface {
	Exec(context.Context, string, ...any) (pgconn.CommandTag, error)
}, key, gameID string, seat int, outcome Outcome) (fresh bool, err error) {
	var game, st any
	if gameID != "" {
		game, st = gameID, seat
	}
	tag, err := db.Exec(ctx, `INSERT INTO inbound_mails (message_id, game_id, seat, outcome) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		key, game, st, string(outcome))
	if err != nil {
		return false, fmt.Errorf("record inbound mail: %w", err)
	}
	return tag.RowsAffected() > 0, nil
}
