package notify

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/mail/compose"
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
func (n *Notifier) rematchByMail(ctx context.Context, log *slog.Logger, key string, g *play.Game, seat int, p play.Player, command string) (Outcome, bool, error) {
	answer := reply.RematchAnswer(command, n.rematchWords)
	invited := seat < len(g.Seats) && g.Seats[seat].PlayerID == "" && g.Seats[seat].Reserved == p.ID
	switch {
	case invited && answer == reply.AnswerAccept:
		if _, err := n.svc.Join(ctx, g.ID, p, &seat); err != nil {
			if errors.Is(err, play.ErrForbidden) {
				o, err := n.refuse(ctx, log, key, g, seat, p, reason{id: "not_running"})
				return o, true, err
			}
			return "", true, err
		}
	case invited && answer == reply.AnswerDecline:
		if _, err := n.svc.Decline(ctx, g.ID, p, "email"); err != nil {
			if errors.Is(err, play.ErrForbidden) || errors.Is(err, play.ErrNotFound) {
				o, err := n.refuse(ctx, log, key, g, seat, p, reason{id: "not_running"})
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
		o, err := n.refuse(ctx, log, key, g, seat, p, reason{id: id})
		return o, true, err
	case answer == reply.AnswerRematch && g.Status == play.StatusFinished:
		// One rematch per game, whoever asks and however often; the
		// mails that ask are counted by the SMTP listener's limits.
		if _, _, err := n.svc.Rematch(ctx, g.ID, p, "email"); err != nil {
			return "", true, err
		}
	case answer == reply.AnswerRematch:
		o, err := n.refuse(ctx, log, key, g, seat, p, reason{id: "rematch_not_over"})
		return o, true, err
	default:
		return "", false, nil
	}
	log.InfoContext(ctx, "rematch by mail", "answer", answer)
	return OutcomeApplied, true, n.record(ctx, key, g.ID, seat, OutcomeApplied)
}

// planRematch adds the mails an append about a rematch causes: the
// invitations of a rematch just created (one to each player whose seat
// it keeps), the answer to a rematch asked for by mail, and the news of a
// decline to the player who asked for the rematch.
func planRematch(after *play.Game, appended []events.Record, created bool, mailTo func(seat int, kind string, fill func(*MailArgs)), inviter func(seat int) string) {
	meta := appended[0].Meta
	if created && after.RematchOf != "" {
		for seat, s := range after.Seats {
			if s.PlayerID == "" && s.Reserved != "" {
				mailTo(seat, compose.KindRematch, func(a *MailArgs) { a.Inviter = inviter(seat) })
			}
		}
		if meta.Channel == "email" {
			for _, seat := range after.SeatsOf(after.CreatedBy) {
				mailTo(seat, compose.KindRematchCreated, nil)
				break
			}
		}
	}
	for _, r := range appended {
		if r.Type != play.EvReservationDeclined || after.RematchOf == "" {
			// A new game's creator hears of it in planInvitations.
			continue
		}
		var d struct {
			Seat int `json:"seat"`
		}
		if json.Unmarshal(r.Data, &d) != nil {
			continue
		}
		for _, seat := range after.SeatsOf(after.CreatedBy) {
			mailTo(seat, compose.KindRematchDeclined, func(a *MailArgs) { a.About = d.Seat })
			break
		}
		// One decline's seats (a player may have held several) make one
		// mail.
		break
	}
}

// rematchMail renders the mails of rematches (ok false for another kind).
func (n *Notifier) rematchMail(ctx context.Context, a MailArgs, g *play.Game, r compose.Recipient) (compose.Mail, bool, error) {
	s := n.cfg.Sender
	info := gameInfo(n.cfg.Catalogue.Localizer(r.Lang, r.Zone), g)
	switch a.Mail {
	case compose.KindRematch:
		return compose.RematchInvitation(s, r, info, a.Inviter, a.At), true, nil
	case compose.KindRematchCreated:
		var names []string
		for _, id := range g.Awaiting() {
			for _, seat := range g.Seats {
				if seat.PlayerID == "" && seat.Reserved == id && seat.Name != "" {
					names = append(names, seat.Name)
					break
				}
			}
		}
		return compose.RematchCreated(s, r, info, names, a.At), true, nil
	case compose.KindRematchDeclined:
		// The player who declined is the game's latest to: the mail is
		// written from the game as the decline left it.
		who := ""
		if len(g.Declined) > 0 {
			p, err := n.svc.Player(ctx, g.Declined[len(g.Declined)-1])
			if err != nil && !errors.Is(err, play.ErrNotFound) {
				return compose.Mail{}, true, err
			}
			who = p.Name
		}
		return compose.RematchDeclined(s, r, info, who, a.At), true, nil
	}
	return n.invitationMail(ctx, a, g, r)
}
