package notify

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/riverqueue/river"

	"github.com/azuld/azuld/engine"
	"github.com/azuld/azuld/i18n"
	"github.com/azuld/azuld/i18n/tell"
	"github.com/azuld/azuld/mail/compose"
	"github.com/azuld/azuld/play"
)

// MailArgs is a mail job: one mail of one kind about one game to one seat.
type MailArgs struct {
	// Mail is the kind (compose.KindTurn, ...).
	Mail     string `json:"mail"`
	GameID   string `json:"game_id"`
	Version  int64  `json:"version"`
	Seat     int    `json:"seat"`
	PlayerID string `json:"player_id,omitempty"`
	To       string `json:"to"`
	Name     string `json:"name,omitempty"`
	// At fixes the mail's date, so a retried delivery renders the same
	// mail (and the same Message-ID).
	At       time.Time  `json:"at"`
	Deadline *time.Time `json:"deadline,omitempty"`
	// Inviter gave the seat to the player: named in an invitation, and in
	// the first mail of a game that started as it was created.
	Inviter string `json:"inviter,omitempty"`
	// Started marks the turn mail sent as the game began: it is also the
	// news of the start.
	Started  bool   `json:"started,omitempty"`
	Notation string `json:"notation,omitempty"`
	// Reason is a refusal's reason in English, as jobs queued by an
	// older server carry it; a newer one carries its id (ReasonID, a
	// message of the mail.refusal catalogue, or "rule" with the engine's
	// rule id as ReasonArgs["rule"]) and its arguments, so that it is
	// written in the reader's language at send time.
	Reason     string            `json:"reason,omitempty"`
	ReasonID   string            `json:"reason_id,omitempty"`
	ReasonArgs map[string]string `json:"reason_args,omitempty"`
	// Takeback (the request's id), Requester, Moves and ToVersion
	// describe a take-back request.
	Takeback  int64  `json:"takeback,omitempty"`
	Requester string `json:"requester,omitempty"`
	Moves     int    `json:"moves,omitempty"`
	ToVersion int64  `json:"to_version,omitempty"`
	// About is the seat whose player may not be hearing of the game
	// (compose.KindUnreachable).
	About int `json:"about,omitempty"`
	// Talked marks a refusal of a reply whose message went to the table
	// all the same.
	Talked bool `json:"talked,omitempty"`
	// TalkLimited marks a refusal of a reply whose message was not
	// posted either: its writer wrote too many messages lately.
	TalkLimited bool `json:"talk_limited,omitempty"`
	// Invitee is the player (by id) whose invitation ended, in the news
	// of a decline or an expiry to the game's creator.
	Invitee string `json:"invitee,omitempty"`
}

// Kind implements river.JobArgs.
func (MailArgs) Kind() string { return "azuld_mail" }

type mailWorker struct {
	river.WorkerDefaults[MailArgs]
	n *Notifier
}

func (w *mailWorker) Timeout(*river.Job[MailArgs]) time.Duration { return w.n.cfg.MailTimeout }

// Work renders the mail from the game and sends it.
func (w *mailWorker) Work(ctx context.Context, job *river.Job[MailArgs]) error {
	n, a := w.n, job.Args
	messageID, err := n.sendMail(ctx, a)
	if snooze := snoozeAtTable(err); snooze != nil {
		return snooze
	}
	// A sent mail's row keeps its Message-ID: the first one of a seat is
	// the root the seat's later mails of the game refer to.
	outcome, detail := "sent", messageID
	switch {
	case errors.Is(err, errSkip):
		outcome, detail, err = "skipped", err.Error(), nil
	case errors.Is(err, ErrPermanent):
		outcome, detail = "refused", err.Error()
		err = river.JobCancel(err)
	case err != nil:
		outcome, detail = "failed", err.Error()
	}
	n.logDelivery(ctx, job.ID, job.Attempt, "mail:"+a.Mail, a.GameID, a.Seat, a.To, outcome, detail)
	return err
}

// errSkip says a mail is no longer wanted (the seat moved on, or stopped
// mails); the job is done.
var errSkip = errors.New("not needed any more")

func (n *Notifier) sendMail(ctx context.Context, a MailArgs) (string, error) {
	if n.svc == nil {
		return "", errors.New("notifier not attached")
	}
	stopped, err := n.stopped(ctx, a.GameID, a.Seat)
	if err != nil {
		return "", err
	}
	// A stopped seat still gets the answers to its own replies.
	if stopped && a.Mail != compose.KindAccepted && a.Mail != compose.KindRefused && a.Mail != compose.KindTalkPosted {
		return "", fmt.Errorf("%w: the player stopped mails for this game", errSkip)
	}
	if err := n.mayMail(ctx, a.PlayerID); err != nil {
		return "", err
	}
	var g *play.Game
	switch a.Mail {
	case compose.KindTurn, compose.KindReminder, compose.KindRefused, compose.KindTalkPosted:
		// Show the table as it is now: the numbers of the moves must
		// refer to the current version.
		g, err = n.svc.Game(ctx, a.GameID)
		if err == nil && a.Mail != compose.KindRefused && a.Mail != compose.KindTalkPosted {
			if !slices.Contains(g.ToAct(), a.Seat) {
				return "", fmt.Errorf("%w: seat %d no longer has to act", errSkip, a.Seat)
			}
			if g.Version > a.Version {
				acted, aerr := n.actedSince(ctx, a.GameID, a.Seat, a.Version)
				if aerr != nil {
					return "", aerr
				}
				if acted {
					// The seat moved since; the hook enqueued a newer
					// mail, which shows the same table.
					return "", fmt.Errorf("%w: seat %d moved since version %d", errSkip, a.Seat, a.Version)
				}
			}
		}
	case compose.KindUnreachable:
		// The news is about now; a finished game needs it no more.
		g, err = n.svc.Game(ctx, a.GameID)
		if err == nil && g.Status == play.StatusFinished {
			return "", fmt.Errorf("%w: the game is over", errSkip)
		}
	case compose.KindRematch, compose.KindInvited:
		// Only a seat still kept is worth an invitation.
		g, err = n.svc.Game(ctx, a.GameID)
		if err == nil && (a.Seat >= len(g.Seats) || g.Seats[a.Seat].PlayerID != "" || g.Seats[a.Seat].Reserved != a.PlayerID) {
			return "", fmt.Errorf("%w: seat %d is no longer kept for its player", errSkip, a.Seat)
		}
	case compose.KindTakeback:
		// Only a request still open is worth answering.
		g, err = n.svc.Game(ctx, a.GameID)
		if err == nil {
			if t := g.PendingTakeback(); t == nil || t.ID != a.Takeback {
				return "", fmt.Errorf("%w: take-back %d is no longer pending", errSkip, a.Takeback)
			}
		}
	default:
		g, err = n.svc.GameAt(ctx, a.GameID, a.Version)
	}
	if err != nil {
		return "", fmt.Errorf("load game %s: %w", a.GameID, err)
	}
	if a.Mail == compose.KindTurn {
		// A player at the table sees the turn there.
		if err := n.awayFor(ctx, g, a); err != nil {
			return "", err
		}
	}
	thread, err := n.threadRoot(ctx, a.GameID, a.Seat)
	if err != nil {
		return "", err
	}
	// The version the mail names (its Message-ID, the moves' heading,
	// its reply token): the game's now, but a turn mail names the version
	// its turn began at, as the turn's webhook does, when nothing but table
	// talk came since: the table and the moves are those of that version
	// (a reply to it is taken as one to the current, see ExpectsCurrent),
	// and so each turn mail has its your_turn webhook of the same version.
	version := g.Version
	if a.Mail == compose.KindTurn && a.Version < g.Version && g.ExpectsCurrent(a.Version) {
		version = a.Version
	}
	token, err := n.newMailToken(ctx, g.ID, a.Seat, version)
	if err != nil {
		return "", err
	}
	s := n.cfg.Sender
	// The reader's language and zone are read now, not when the job was
	// queued: a mail is written as its reader wants it when it leaves.
	lang, zone, err := n.ReaderOf(ctx, a.PlayerID)
	if err != nil {
		return "", err
	}
	r := compose.Recipient{Name: a.Name, Address: a.To, Seat: a.Seat, SeatToken: token, Thread: thread, Stopped: stopped, Inviter: a.Inviter, Lang: lang, Zone: zone}
	l := n.cfg.Catalogue.Localizer(lang, zone)
	info := gameInfo(l, g)
	info.Version, info.Started = version, a.Started
	var talk *talkClaim
	switch a.Mail {
	case compose.KindTurn, compose.KindReminder, compose.KindGameOver:
		news, err := n.svc.NewsSince(ctx, g.ID, a.Seat, g.Version)
		if err != nil {
			return "", fmt.Errorf("news of game %s for seat %d: %w", g.ID, a.Seat, err)
		}
		info.News = newsItems(l, news)
		// The table talk since the player's last mail comes with it
		// (locked until the mail is sent, so that a message mail sent
		// meanwhile does not bring it again).
		claim, err := n.claimTalk(ctx, g.ID, a.PlayerID)
		if err != nil {
			return "", err
		}
		defer claim.release(ctx)
		info.Talk, info.TalkEarlier = claim.items, claim.earlier
		talk = claim
	}
	moves := g.LegalMoves(a.Seat)
	var m compose.Mail
	switch a.Mail {
	case compose.KindTurn:
		m = compose.Turn(s, r, info, moves, g.Deadline, a.At)
	case compose.KindReminder:
		deadline := a.At
		if g.Deadline != nil {
			deadline = *g.Deadline
		}
		m = compose.Reminder(s, r, info, moves, deadline, a.At)
	case compose.KindInvitation:
		m = compose.Invitation(s, r, info, a.Inviter, a.At)
	case compose.KindStarted:
		m = compose.Started(s, r, info, a.At)
	case compose.KindGameOver:
		var final *engine.Final
		if g.State != nil {
			final = g.State.Final()
		}
		m = compose.GameOver(s, r, info, final, a.At)
	case compose.KindAccepted:
		m = compose.Accepted(s, r, info, a.Notation, a.At)
	case compose.KindTimedOut:
		m = compose.TimedOut(s, r, info, a.Notation, a.At)
	case compose.KindRefused:
		if a.Talked || a.TalkLimited {
			m = compose.RefusedTalked(s, r, info, n.reasonText(l, g.Config.Ruleset, a), moves, a.Talked, a.At)
		} else {
			m = compose.Refused(s, r, info, n.reasonText(l, g.Config.Ruleset, a), moves, a.At)
		}
	case compose.KindTalkPosted:
		m = compose.TalkPosted(s, r, info, moves, a.At)
	case compose.KindTakeback:
		m = compose.TakebackRequested(s, r, info, a.Requester, a.Moves, a.ToVersion, a.At)
	case compose.KindUnreachable:
		m = compose.Unreachable(s, r, info, a.About, a.At)
	default:
		rm, ok, err := n.rematchMail(ctx, a, g, r)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", river.JobCancel(fmt.Errorf("unknown mail kind %q", a.Mail))
		}
		m = rm
	}
	raw, err := m.Bytes()
	if err != nil {
		return "", river.JobCancel(fmt.Errorf("render %s mail: %w", a.Mail, err))
	}
	from, err := n.returnPath(ctx, a.PlayerID)
	if err != nil {
		return "", err
	}
	if err := n.mailer.Send(ctx, from, []string{a.To}, raw); err != nil {
		return "", err
	}
	if talk != nil {
		if err := talk.done(ctx, g.ID, a.PlayerID, false, a.At); err != nil {
			return "", err
		}
	}
	return m.MessageID, nil
}

// threadRoot is the Message-ID of the first mail sent to a seat about a
// game (its delivery row keeps it), which the seat's later mails refer to
// so that mail programs show one conversation around a mail that exists;
// "" when none was sent yet: this mail is the root. A retried delivery of
// the first mail finds none again, and so keeps its bytes.
func (n *Notifier) threadRoot(ctx context.Context, gameID string, seat int) (string, error) {
	var id string
	err := n.pool.QueryRow(ctx, `
		SELECT detail FROM deliveries
		WHERE game_id = $1 AND seat = $2 AND kind LIKE 'mail:%' AND outcome = 'sent' AND detail LIKE '<%>'
		ORDER BY created_at, id LIMIT 1`, gameID, seat).Scan(&id)
	if err != nil && !isNoRows(err) {
		return "", fmt.Errorf("find the thread of game %s: %w", gameID, err)
	}
	return id, nil
}

// ReaderOf is a player's language and time zone (English and UTC for
// no player, or one whose zone this server does not know).
func (n *Notifier) ReaderOf(ctx context.Context, playerID string) (string, *time.Location, error) {
	if playerID == "" {
		return i18n.Default, time.UTC, nil
	}
	var lang, zone string
	err := n.pool.QueryRow(ctx, `SELECT language, time_zone FROM players WHERE id = $1`, playerID).Scan(&lang, &zone)
	if isNoRows(err) {
		return i18n.Default, time.UTC, nil
	}
	if err != nil {
		return "", nil, fmt.Errorf("read the reader's language: %w", err)
	}
	loc, err := i18n.LoadZone(zone)
	if err != nil {
		loc = time.UTC
	}
	return lang, loc, nil
}

// gameInfo is what every mail shows of a game.
func gameInfo(l *i18n.Localizer, g *play.Game) compose.GameInfo {
	info := compose.GameInfo{ID: g.ID, Ruleset: g.Config.Ruleset, Version: g.Version, Board: g.Text(), ToAct: g.ToAct()}
	var scores []int
	if g.State != nil {
		scores = g.State.Scores()
		v := g.State.View()
		info.View = &v
	}
	for seat, s := range g.Seats {
		p := compose.PlayerScore{Seat: seat, Name: s.Name}
		if p.Name == "" && s.Bot != "" {
			p.Name = tell.BotName(l, s.Bot)
			if p.Name == "" {
				p.Name = s.Bot + " bot"
			}
		}
		if seat < len(scores) {
			p.Score = scores[seat]
		}
		info.Players = append(info.Players, p)
	}
	return info
}

// newsItems is the news as the mail shows it, in the reader's words.
func newsItems(l *i18n.Localizer, news play.News) []compose.NewsItem {
	out := make([]compose.NewsItem, 0, len(news.Items))
	for _, it := range news.Items {
		var item compose.NewsItem
		switch {
		case it.Scoring != nil:
			item.Scoring = &compose.RoundScoring{Round: it.Scoring.Round}
			for _, s := range it.Scoring.Seats {
				items := make([]string, 0, len(s.Items))
				for _, ev := range s.Items {
					if t := tell.Item(l, news.Table, ev); t != "" {
						items = append(items, t)
					}
				}
				item.Scoring.Seats = append(item.Scoring.Seats, compose.SeatScoring{Seat: s.Seat, Items: items, Gained: s.Gained, Score: s.Score})
			}
		case it.Event != nil:
			item.Text = tell.Line(l, news.Table, it.Event)
		case it.TakenBackTo > 0:
			item.Text = tell.TakenBack(l, it.TakenBackTo)
		default:
			continue
		}
		out = append(out, item)
	}
	return out
}

// tokenEncoding writes reply tokens in lower-case base32: safe in the
// local part of an address, case-insensitive as mail systems may be.
var tokenEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newMailToken draws a 160-bit reply token for a seat and stores its
// hash, bound to the game version the mail shows.
func (n *Notifier) newMailToken(ctx context.Context, gameID string, seat int, version int64) (string, error) {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("draw mail token: %w", err)
	}
	token := tokenEncoding.EncodeToString(b[:])
	_, err := n.pool.Exec(ctx, `INSERT INTO mail_tokens (token_hash, game_id, seat, version) VALUES ($1, $2, $3, $4)`,
		hashMailToken(token), gameID, seat, version)
	if err != nil {
		return "", fmt.Errorf("store mail token: %w", err)
	}
	return token, nil
}

func hashMailToken(token string) []byte {
	sum := sha256.Sum256([]byte(strings.ToLower(token)))
	return sum[:]
}

// SeatOfToken finds the seat a reply token belongs to, and the game
// version of the mail it was issued with.
func (n *Notifier) SeatOfToken(ctx context.Context, token string) (gameID string, seat int, version int64, ok bool, err error) {
	if token == "" || len(token) > 64 {
		return "", 0, 0, false, nil
	}
	err = n.pool.QueryRow(ctx, `SELECT game_id::text, seat, version FROM mail_tokens WHERE token_hash = $1`, hashMailToken(token)).
		Scan(&gameID, &seat, &version)
	if err != nil {
		if isNoRows(err) {
			return "", 0, 0, false, nil
		}
		return "", 0, 0, false, fmt.Errorf("look up mail token: %w", err)
	}
	return gameID, seat, version, true, nil
}

func (n *Notifier) stopped(ctx context.Context, gameID string, seat int) (bool, error) {
	var found bool
	err := n.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM mail_stops WHERE game_id = $1 AND seat = $2)`, gameID, seat).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("check stopped mails: %w", err)
	}
	return found, nil
}

// logDelivery writes the audit row of a delivery attempt; a failure to log
// does not fail the delivery.
func (n *Notifier) logDelivery(ctx context.Context, jobID int64, attempt int, kind, gameID string, seat int, target, outcome, detail string) {
	channel, _, _ := strings.Cut(kind, ":")
	n.deliveries.WithLabelValues(channel, outcome).Inc()
	var game any
	if gameID != "" {
		game = gameID
	}
	if len(detail) > 2000 {
		detail = detail[:2000]
	}
	// The address (or URL) is kept only while it is an account's or a
	// webhook's: a delivery that ends as its player's account is deleted
	// must not write the address back after the erasure removed it. The
	// row locks wait for an erasure under way (play.Service.DeleteAccount).
	_, err := n.pool.Exec(context.WithoutCancel(ctx), `
		WITH owner AS (SELECT $6::text = '' OR EXISTS (SELECT FROM players WHERE email = $6 FOR SHARE)
			OR EXISTS (SELECT FROM webhooks WHERE url = $6 FOR SHARE) AS kept)
		INSERT INTO deliveries (job_id, attempt, kind, game_id, seat, target, outcome, detail)
		SELECT $1, $2, $3, $4, $5, CASE WHEN kept THEN $6 ELSE '(erased)' END, $7, CASE WHEN kept THEN $8 ELSE '' END FROM owner`,
		jobID, attempt, kind, game, seat, target, outcome, detail)
	if err != nil {
		n.log.WarnContext(ctx, "delivery log write failed", "err", err)
	}
}

// actedSince reports whether a seat appended events after a version.
func (n *Notifier) actedSince(ctx context.Context, gameID string, seat int, version int64) (bool, error) {
	recs, err := n.svc.Events(ctx, gameID, version, 0)
	if err != nil {
		return false, fmt.Errorf("check moves since version %d: %w", version, err)
	}
	for _, r := range recs {
		if r.Type == play.EvMessage {
			continue // a message is no move: the turn mail is still wanted
		}
		if s := r.Meta.Actor.Seat; s != nil && *s == seat {
			return true, nil
		}
	}
	return false, nil
}
