package mailin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/notation"
	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/mail/reply"
	"github.com/azuld/azuld/notify"
	"github.com/azuld/azuld/play"
)

// say posts a message a player sent by mail to the game's table, under
// the mail's key (a mail delivered again posts nothing more); posted is
// false for "" and for a message the game refuses (an invalid text, a
// player without a seat), limited when the player wrote too many
// messages lately (the limits of table talk); either is logged, and the
// rest of the mail is carried out all the same.
func (r *Receiver) say(ctx context.Context, log *slog.Logger, key string, g *play.Game, p play.Player, text string) (posted, limited bool, err error) {
	if strings.TrimSpace(text) == "" {
		return false, false, nil
	}
	if err := r.allowTalk(ctx, g.ID, p.ID); err != nil {
		var refused *limits.Refusal
		if errors.As(err, &refused) {
			log.InfoContext(ctx, "message by mail not posted: over the limit", "err", err)
			return false, true, nil
		}
		return false, false, err
	}
	m, err := r.svc.Say(ctx, g.ID, p, text, "email", key)
	switch {
	case err == nil:
		log.InfoContext(ctx, "message by mail posted", "version", m.Version)
		return true, false, nil
	case errors.Is(err, play.ErrInvalid), errors.Is(err, play.ErrForbidden), errors.Is(err, events.ErrIdempotencyMismatch):
		log.InfoContext(ctx, "message by mail not posted", "err", err)
		return false, false, nil
	}
	return false, false, fmt.Errorf("message by mail: %w", err)
}

// allowTalk counts a message by mail against the limits of table talk,
// as the API counts one (per player and game, and per player): nil or a
// *limits.Refusal.
func (r *Receiver) allowTalk(ctx context.Context, gameID, playerID string) error {
	l := r.cfg.TalkLimits
	if l == nil {
		return nil
	}
	key := gameID + ":" + playerID
	if err := l.Peek(ctx, limits.MessagesGame, key); err != nil {
		return err
	}
	if err := l.Allow(ctx, limits.Messages, playerID); err != nil {
		return err
	}
	return l.Allow(ctx, limits.MessagesGame, key)
}

// sayAfter posts a reply's message after its command or move was carried
// out (outcome, err): a message is never in the way of a move, and is not
// lost when the move is refused.
func (r *Receiver) sayAfter(ctx context.Context, log *slog.Logger, key string, g *play.Game, p play.Player, text string, outcome Outcome, err error) (Outcome, error) {
	if err != nil || text == "" {
		return outcome, err
	}
	if _, _, err := r.say(ctx, log, key, g, p, text); err != nil {
		return "", err
	}
	return outcome, nil
}

// sayAgain is for a mail delivered again: when its move or command was
// carried out, its message is posted again under its key, which posts
// nothing if it was (a crash between the move and the message would
// otherwise lose it).
func (r *Receiver) sayAgain(ctx context.Context, log *slog.Logger, key string, msg *reply.Message) error {
	text := reply.OwnText(msg.Text).Rest
	if text == "" {
		return nil
	}
	var gameID string
	var seat int
	var outcome string
	err := r.pool.QueryRow(ctx, `SELECT coalesce(game_id::text, ''), coalesce(seat, -1), outcome FROM inbound_mails WHERE message_id = $1`, key).
		Scan(&gameID, &seat, &outcome)
	if err != nil {
		if isNoRows(err) {
			return nil
		}
		return fmt.Errorf("read inbound mail: %w", err)
	}
	if gameID == "" || (outcome != string(OutcomeApplied) && outcome != string(OutcomeRefused)) {
		return nil
	}
	g, err := r.svc.Game(ctx, gameID)
	if err != nil {
		return fmt.Errorf("load game %s: %w", gameID, err)
	}
	if seat < 0 || seat >= len(g.Seats) || g.Seats[seat].Holder() == "" {
		return nil
	}
	p, err := r.svc.Player(ctx, g.Seats[seat].Holder())
	if err != nil {
		if errors.Is(err, play.ErrNotFound) {
			return nil
		}
		return fmt.Errorf("load player: %w", err)
	}
	if p.Email == "" || addressOf(p.Email) != addressOf(msg.From) {
		return nil
	}
	_, _, err = r.say(ctx, log, key, g, p, text)
	return err
}

// firstLineIsMessage tells a reply whose first line is a message to the
// table rather than a move: it is neither a number, nor JSON, nor a
// move in anyone's words (nor a command, asked before), and either the
// seat is not to move (no move is awaited from it) or the line does not
// look like a mistyped move: it holds no digit, and it ends as a
// sentence does or has more than three words. A mistyped move ("F2 rde
// 3", "C blu floor") is refused as before, with the legal moves.
func (r *Receiver) firstLineIsMessage(g *play.Game, seat int, lang, line string) bool {
	if line == "" || strings.HasPrefix(line, "{") {
		return false
	}
	if _, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "#"), ".")); err == nil {
		return false
	}
	canonical, err := reply.Move(r.cfg.Words, lang, g.Config.Ruleset, line)
	if err != nil {
		return false // an ambiguous move word: refused with its candidates
	}
	if g.Rules != nil {
		if _, err := g.Rules.ParseNotation(canonical); err == nil {
			return false
		}
	}
	if g.Status != play.StatusActive || !slices.Contains(g.ToAct(), seat) {
		return true
	}
	return !r.looksLikeMove(g.Config.Ruleset, line)
}

// looksLikeMove tells a line that may be a move mistyped: a digit in it
// (factories, lines, stars are numbers), a first word that is a move
// word in some language ("place the moon on the sun"), or a few words
// that do not end as a sentence.
func (r *Receiver) looksLikeMove(ruleset, line string) bool {
	if strings.ContainsAny(line, "0123456789") {
		return true
	}
	fields := strings.Fields(strings.ToLower(line))
	if len(fields) > 0 {
		first := strings.TrimRight(fields[0], ",.;:!?")
		if utf8.RuneCountInString(first) > 2 && r.moveWords[notation.FamilyOf(ruleset)][first] {
			return true
		}
	}
	last, _ := utf8.DecodeLastRuneInString(line)
	if strings.ContainsRune(".!?…,:;)", last) {
		return false
	}
	return len(fields) <= 3
}

// moveWordsOf are the words of moves of every language, by family, the
// canonical tokens included (for looksLikeMove).
func moveWordsOf(w *notation.Words) map[notation.Family]map[string]bool {
	out := map[notation.Family]map[string]bool{}
	for _, fam := range []notation.Family{notation.Azul, notation.Pavilion} {
		set := map[string]bool{}
		for _, lang := range i18n.Languages {
			for token, words := range w.Vocabulary(lang, fam) {
				set[strings.ToLower(token)] = true
				for _, word := range words {
					set[strings.ToLower(word)] = true
				}
			}
		}
		out[fam] = set
	}
	return out
}

// talkOnly carries out a reply that is a message and no move: it goes to
// the table; a player who is to move is answered that it did and that
// their move is still awaited (with the legal moves), in one transaction
// with the mail's record. A message the game refuses is answered as an
// unreadable move, as before.
func (r *Receiver) talkOnly(ctx context.Context, log *slog.Logger, key string, g *play.Game, seat int, p play.Player, text string) (Outcome, error) {
	posted, limited, err := r.say(ctx, log, key, g, p, text)
	if err != nil {
		return "", err
	}
	if limited {
		return r.refuse(ctx, log, key, g, seat, p, reason{id: "talk_limited"})
	}
	if !posted {
		return r.refuse(ctx, log, key, g, seat, p, reason{id: "unreadable", args: map[string]string{"move": text}})
	}
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return "", fmt.Errorf("record message by mail: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	fresh, err := recordInbound(ctx, tx, key, g.ID, seat, OutcomeMessage)
	if err != nil {
		return "", err
	}
	if !fresh {
		return OutcomeDuplicate, nil
	}
	if g.Status == play.StatusActive && slices.Contains(g.ToAct(), seat) {
		err = r.outbox.QueueMailsTx(ctx, tx, notify.MailArgs{
			Mail: compose.KindTalkPosted, GameID: g.ID, Version: g.Version, Seat: seat,
			PlayerID: p.ID, To: p.Email, Name: p.Name, At: r.now(),
		})
		if err != nil {
			return "", fmt.Errorf("enqueue the answer to a message: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return "", fmt.Errorf("record message by mail: %w", err)
	}
	return OutcomeMessage, nil
}
