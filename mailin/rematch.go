package mailin

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/mail/reply"
	"github.com/azuld/azuld/play"
)

// rematchWords reads the words of every language that ask for a rematch
// (rematch.mail.command.rematch) or answer an invitation to one (the
// accept and decline command words, and rematch.mail.command.yes / no).
// The English words always work.
func rematchWords(cat *i18n.Catalogue) map[string]string {
	words := map[string]string{}
	for _, lang := range i18n.Languages {
		l := cat.Localizer(lang, time.UTC)
		for _, w := range []struct{ id, answer string }{
			{"rematch.mail.command.rematch", reply.AnswerRematch},
			{"mail.command.accept", reply.AnswerAccept},
			{"rematch.mail.command.yes", reply.AnswerAccept},
			{"mail.command.decline", reply.AnswerDecline},
			{"rematch.mail.command.no", reply.AnswerDecline},
		} {
			for _, word := range strings.Split(l.T(w.id), ",") {
				reply.RematchWord(words, word, w.answer)
			}
		}
	}
	for _, a := range []string{reply.AnswerRematch, reply.AnswerAccept, reply.AnswerDecline} {
		reply.RematchWord(words, a, a)
	}
	return words
}

// rematchByMail acts on a reply about a rematch, from the seat's own
// player p (checked by the caller): "rematch" to a finished game's mail
// asks for its rematch (answered with a mail that names it); "accept" or
// "decline" to an invitation's takes or frees the kept seat. ok is false
// when the reply says none of these, for the caller to read it as a move.
func (r *Receiver) rematchByMail(ctx context.Context, log *slog.Logger, key string, g *play.Game, seat int, p play.Player, command string) (Outcome, bool, error) {
	answer := reply.RematchAnswer(command, r.rematchWords)
	invited := seat < len(g.Seats) && g.Seats[seat].PlayerID == "" && g.Seats[seat].Reserved == p.ID
	switch {
	case invited && answer == reply.AnswerAccept:
		if _, err := r.svc.Join(ctx, g.ID, p, &seat); err != nil {
			if errors.Is(err, play.ErrForbidden) {
				o, err := r.refuse(ctx, log, key, g, seat, p, reason{id: "not_running"})
				return o, true, err
			}
			return "", true, err
		}
	case invited && answer == reply.AnswerDecline:
		if _, err := r.svc.Decline(ctx, g.ID, p, "email"); err != nil {
			if errors.Is(err, play.ErrForbidden) || errors.Is(err, play.ErrNotFound) {
				o, err := r.refuse(ctx, log, key, g, seat, p, reason{id: "not_running"})
				return o, true, err
			}
			return "", true, err
		}
	case invited:
		// Nothing else can be done with a kept seat.
		id := "rematch_answer"
		if g.RematchOf == "" {
			id = "invitation_answer"
		}
		o, err := r.refuse(ctx, log, key, g, seat, p, reason{id: id})
		return o, true, err
	case answer == reply.AnswerRematch && g.Status == play.StatusFinished:
		// One rematch per game, whoever asks and however often; the
		// mails that ask are counted by the SMTP listener's limits.
		if _, _, err := r.svc.Rematch(ctx, g.ID, p, "email"); err != nil {
			return "", true, err
		}
	case answer == reply.AnswerRematch:
		o, err := r.refuse(ctx, log, key, g, seat, p, reason{id: "rematch_not_over"})
		return o, true, err
	default:
		return "", false, nil
	}
	log.InfoContext(ctx, "rematch by mail", "answer", answer)
	return OutcomeApplied, true, r.record(ctx, key, g.ID, seat, OutcomeApplied)
}
