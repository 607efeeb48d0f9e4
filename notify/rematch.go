package notify

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

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
