package notify

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/azuld/azuld/events"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// recipient is what the outbox knows of a seat's player.
type recipient struct {
	playerID, name, email string
	stopped               bool
	webhooks              []string
}

// recipientsOf gives the players of a game's seats, by seat.
type recipientsOf func(g *play.Game) (map[int]*recipient, error)

// plan decides the jobs of one append; load reads the seats' players.
func (n *Notifier) plan(before, after *play.Game, appended []events.Record, load recipientsOf) ([]river.InsertManyParams, error) {
	// The seats' players are read once, and only when a mail or webhook
	// is due to one of them: a bot's move or a join needs no round trip.
	var people map[int]*recipient
	var loadErr error
	person := func(seat int) (*recipient, bool) {
		if seat < 0 || seat >= len(after.Seats) || after.Seats[seat].Holder() == "" || loadErr != nil {
			return nil, false // a bot, an open seat, or no players to read
		}
		if people == nil {
			if people, loadErr = load(after); loadErr != nil {
				return nil, false
			}
		}
		r, ok := people[seat]
		return r, ok
	}
	meta := appended[0].Meta
	if play.OnlyTalk(appended) {
		// Table talk is no turn: no turn mail, timer, webhook or
		// confirmation; the other players hear of the message (see
		// talkJobs).
		return talkJobs(after, appended, person), loadErr
	}
	at := appended[len(appended)-1].RecordedAt
	if at.IsZero() {
		at = n.now()
	}
	var out []river.InsertManyParams
	mailTo := func(seat int, kind string, fill func(*MailArgs)) {
		r, ok := person(seat)
		if !ok || r.email == "" {
			return
		}
		// A stopped seat still gets the answers to its own replies.
		if r.stopped && kind != compose.KindAccepted {
			return
		}
		a := MailArgs{Mail: kind, GameID: after.ID, Version: after.Version, Seat: seat, PlayerID: r.playerID, To: r.email, Name: r.name, At: at}
		if fill != nil {
			fill(&a)
		}
		out = append(out, river.InsertManyParams{Args: a})
	}
	hookTo := func(seat int, event string) {
		r, ok := person(seat)
		if !ok {
			return
		}
		for _, id := range r.webhooks {
			out = append(out, river.InsertManyParams{Args: WebhookArgs{WebhookID: id, Event: event, GameID: after.ID, Version: after.Version, Seat: seat, At: at}})
		}
	}

	created := before.Version == 0
	started := before.Status != play.StatusActive && after.Status == play.StatusActive
	finished := before.Status != play.StatusFinished && after.Status == play.StatusFinished

	// The answer to a move made by mail (the move's own statement
	// recorded the mail in inbound_mails: see Receive).
	if meta.Channel == "email" && meta.Actor.Seat != nil && meta.CommandID != "" {
		mailTo(*meta.Actor.Seat, compose.KindAccepted, func(a *MailArgs) { a.Notation = meta.Notation })
	}
	// The time control played for a seat: it hears what.
	if meta.Channel == "timeout" && meta.Actor.Seat != nil && meta.Notation != "" {
		mailTo(*meta.Actor.Seat, compose.KindTimedOut, func(a *MailArgs) { a.Notation = meta.Notation })
	}
	// invitedBy names who seated a player, in the first mail of a game.
	invitedBy := func(seat int) string {
		if !created || after.Seats[seat].PlayerID == after.CreatedBy {
			return ""
		}
		// Names are not in the log: the creator's is read with the seats'
		// players.
		if idx := slices.IndexFunc(after.Seats, func(s play.Seat) bool { return s.PlayerID == after.CreatedBy }); idx >= 0 {
			if r, ok := person(idx); ok {
				return r.name
			}
		}
		return ""
	}
	if created && !started {
		// Seated in a game with free seats: it starts when they are
		// taken. (A game full at once starts now: its start mail says who
		// seated the player.)
		for seat, s := range after.Seats {
			if s.PlayerID != "" && s.PlayerID != after.CreatedBy {
				mailTo(seat, compose.KindInvitation, func(a *MailArgs) { a.Inviter = invitedBy(seat) })
			}
		}
	}
	planRematch(after, appended, created, mailTo, invitedBy)
	planInvitations(after, appended, created, mailTo, invitedBy)
	if started {
		toAct := after.ToAct()
		for seat := range after.Seats {
			hookTo(seat, "game_started")
			// A seat to move hears of the start in its turn mail: two
			// mails sent at once may arrive in any order, and "your turn"
			// must not come before "the game has started".
			if !slices.Contains(toAct, seat) || after.Status != play.StatusActive {
				mailTo(seat, compose.KindStarted, func(a *MailArgs) { a.Inviter = invitedBy(seat) })
			}
		}
	}
	if finished {
		for seat := range after.Seats {
			mailTo(seat, compose.KindGameOver, nil)
			hookTo(seat, "game_over")
		}
		return out, loadErr
	}
	if after.Status != play.StatusActive {
		return out, loadErr
	}
	// A take-back request asks the seats whose consent it needs.
	if t := after.PendingTakeback(); t != nil && slices.ContainsFunc(appended, func(r events.Record) bool {
		return r.Type == play.EvTakebackRequested && r.Version == t.ID
	}) {
		requester := ""
		if r, ok := person(t.Seat); ok {
			requester = r.name
		}
		for _, seat := range t.Needs {
			if slices.Contains(t.Consents, seat) {
				continue
			}
			mailTo(seat, compose.KindTakeback, func(a *MailArgs) {
				a.Takeback, a.Requester, a.Moves, a.ToVersion = t.ID, requester, t.Moves, t.ToVersion
			})
			hookTo(seat, "takeback_requested")
		}
	}
	wasToAct := before.ToAct()
	for _, seat := range after.ToAct() {
		// A seat hears of its turn when it newly must act, or again after
		// its own move when it must go on (several steps in a row).
		again := meta.Actor.Seat != nil && *meta.Actor.Seat == seat
		if started || !slices.Contains(wasToAct, seat) || again {
			mailTo(seat, compose.KindTurn, func(a *MailArgs) {
				a.Deadline = after.Deadline
				if started {
					a.Started, a.Inviter = true, invitedBy(seat)
				}
			})
			hookTo(seat, "your_turn")
		}
		// The deadline moves with every append, so every player's seat to
		// act gets timers for this version; older ones find the game moved
		// on. Bots have their move job and need none.
		if after.Deadline != nil && after.TimeControl != nil && after.Seats[seat].PlayerID != "" {
			out = append(out, n.timers(after, seat)...)
		}
	}
	return out, loadErr
}

// timers schedules a seat's reminder and its deadline action.
func (n *Notifier) timers(g *play.Game, seat int) []river.InsertManyParams {
	deadline := *g.Deadline
	var out []river.InsertManyParams
	unique := &river.UniqueOpts{ByArgs: true}
	if rb := time.Duration(g.TimeControl.RemindBefore); rb > 0 {
		out = append(out, river.InsertManyParams{
			Args:       TimeoutArgs{Action: ActionRemind, GameID: g.ID, Version: g.Version, Seat: seat, Deadline: deadline},
			InsertOpts: &river.InsertOpts{ScheduledAt: deadline.Add(-rb), UniqueOpts: *unique},
		})
	}
	out = append(out, river.InsertManyParams{
		Args:       TimeoutArgs{Action: ActionDeadline, GameID: g.ID, Version: g.Version, Seat: seat, Deadline: deadline},
		InsertOpts: &river.InsertOpts{ScheduledAt: deadline, UniqueOpts: *unique},
	})
	return out
}

// recipientsOfMany reads, in one round trip, the players of the seats of
// several games and the games' stopped seats, and serves them by game.
func (n *Notifier) recipientsOfMany(ctx context.Context, tx pgx.Tx, games []*play.Game) (recipientsOf, error) {
	var ids, gameIDs []string
	seen := map[string]bool{}
	for _, g := range games {
		gameIDs = append(gameIDs, g.ID)
		for _, s := range g.Seats {
			if id := s.Holder(); id != "" && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	players := map[string]recipient{}
	stops := map[string][]int{}
	if len(ids) > 0 {
		b := &pgx.Batch{}
		b.Queue(`SELECT p.id::text, p.name, p.email,
		       array(SELECT w.id::text FROM webhooks w WHERE w.player_id = p.id ORDER BY w.created_at, w.id)
			FROM players p WHERE p.id = ANY($1::uuid[])`, ids).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var r recipient
				if err := rows.Scan(&r.playerID, &r.name, &r.email, &r.webhooks); err != nil {
					return err
				}
				players[r.playerID] = r
			}
			return rows.Err()
		})
		b.Queue(`SELECT game_id::text, seat FROM mail_stops WHERE game_id = ANY($1::uuid[])`, gameIDs).Query(func(rows pgx.Rows) error {
			for rows.Next() {
				var game string
				var seat int
				if err := rows.Scan(&game, &seat); err != nil {
					return err
				}
				stops[game] = append(stops[game], seat)
			}
			return rows.Err()
		})
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return nil, fmt.Errorf("load recipients: %w", err)
		}
	}
	return func(g *play.Game) (map[int]*recipient, error) {
		out := map[int]*recipient{}
		for seat, s := range g.Seats {
			r, ok := players[s.Holder()]
			if s.Holder() == "" || !ok {
				continue
			}
			r.stopped = slices.Contains(stops[g.ID], seat)
			out[seat] = &r
		}
		return out, nil
	}, nil
}
