package notify

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// planInvitations adds the mails an append about the invitations of a new
// game (not a rematch: see planRematch) causes: an invitation to each
// player whose seat a game just created keeps, and the news of a decline
// or of an invitation that expired to the game's creator, one mail for
// each invited player.
func planInvitations(after *play.Game, appended []events.Record, created bool, mailTo func(seat int, kind string, fill func(*MailArgs)), inviter func(seat int) string) {
	if created && after.RematchOf == "" {
		for seat, s := range after.Seats {
			if s.PlayerID == "" && s.Reserved != "" {
				mailTo(seat, compose.KindInvited, func(a *MailArgs) { a.Inviter = inviter(seat) })
			}
		}
	}
	told := map[string]bool{}
	for _, r := range appended {
		kind := ""
		switch {
		case r.Type == play.EvReservationExpired:
			kind = compose.KindInviteExpired
		case r.Type == play.EvReservationDeclined && after.RematchOf == "":
			kind = compose.KindInviteDeclined
		default:
			continue
		}
		var ended struct {
			PlayerID string `json:"player_id"`
		}
		if json.Unmarshal(r.Data, &ended) != nil || ended.PlayerID == "" || told[ended.PlayerID] {
			continue
		}
		told[ended.PlayerID] = true
		for _, seat := range after.SeatsOf(after.CreatedBy) {
			mailTo(seat, kind, func(a *MailArgs) { a.Invitee = ended.PlayerID })
			break
		}
	}
}

// invitationMail renders the mails of invitations (ok false for another
// kind).
func (n *Notifier) invitationMail(ctx context.Context, a MailArgs, g *play.Game, r compose.Recipient) (compose.Mail, bool, error) {
	s := n.cfg.Sender
	info := gameInfo(n.cfg.Catalogue.Localizer(r.Lang, r.Zone), g)
	switch a.Mail {
	case compose.KindInvited:
		return compose.SeatInvitation(s, r, info, a.Inviter, n.svc.InvitationExpiry(g.CreatedAt), a.At), true, nil
	case compose.KindInviteDeclined, compose.KindInviteExpired:
		who := ""
		if a.Invitee != "" {
			p, err := n.svc.Player(ctx, a.Invitee)
			if err != nil && !errors.Is(err, play.ErrNotFound) {
				return compose.Mail{}, true, err
			}
			who = p.Name
		}
		return compose.InvitationEnded(s, r, info, who, a.Mail == compose.KindInviteExpired, a.At), true, nil
	}
	return compose.Mail{}, false, nil
}
