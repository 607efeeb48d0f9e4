package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/azuld/azuld/notify/webhooksig"
)

// Webhook is a URL a player registered to hear of their games.
type Webhook struct {
	ID        string    `json:"id"`
	URL       string    `json:"url"`
	CreatedAt time.Time `json:"created_at"`
	// Secret signs the deliveries; shown only when it is created.
	Secret string `json:"secret,omitempty"`
}

// maxWebhooks bounds the webhooks of one player.
const maxWebhooks = 20

// ErrInvalid marks a request the caller must fix.
var ErrInvalid = errors.New("invalid request")

// ErrNotFound marks something that does not exist (for this player).
var ErrNotFound = errors.New("not found")

// validWebhookURL accepts absolute http(s) URLs without credentials.
func validWebhookURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || len(raw) > 2000 || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil || u.Fragment != "" {
		return fmt.Errorf("%w: url must be an absolute http or https URL without credentials or fragment", ErrInvalid)
	}
	return nil
}

// ErrPrivateWebhook refuses a webhook whose host is, or resolves to, an
// address inside the server's networks. It wraps ErrInvalid.
var ErrPrivateWebhook = fmt.Errorf("%w: webhooks may reach public addresses only", ErrInvalid)

// publicWebhookHost refuses, unless WebhookAllowPrivate, a host that is
// loopback, private, link-local, unique-local, unspecified or multicast,
// or a name that resolves to one (localhost among them): such a webhook
// would never be called (the dialler refuses it too, on the address it
// dials), and a player must not learn that it was stored either. A name
// that does not resolve now is taken: the dialler decides at delivery.
func (n *Notifier) publicWebhookHost(ctx context.Context, rawURL string) error {
	if n.cfg.WebhookAllowPrivate {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("%w: url does not parse", ErrInvalid)
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return ErrPrivateWebhook
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !publicAddr(ip) {
			return ErrPrivateWebhook
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, ip := range addrs {
		if !publicAddr(ip) {
			return ErrPrivateWebhook
		}
	}
	return nil
}

// RegisterWebhook adds a webhook for a player. An empty secret draws one
// (returned once).
func (n *Notifier) RegisterWebhook(ctx context.Context, playerID, rawURL, secret string) (Webhook, error) {
	if err := validWebhookURL(rawURL); err != nil {
		return Webhook{}, err
	}
	if err := n.publicWebhookHost(ctx, rawURL); err != nil {
		return Webhook{}, err
	}
	if secret == "" {
		var b [32]byte
		if _, err := rand.Read(b[:]); err != nil {
			return Webhook{}, fmt.Errorf("draw webhook secret: %w", err)
		}
		secret = "whsec_" + hex.EncodeToString(b[:])
	} else if len(secret) < 16 || len(secret) > 256 {
		return Webhook{}, fmt.Errorf("%w: secret must be 16 to 256 characters (or left out to get one)", ErrInvalid)
	}
	w := Webhook{URL: rawURL, Secret: secret}
	err := pgx.BeginFunc(ctx, n.pool, func(tx pgx.Tx) error {
		// Serialise one player's registrations so the bound holds.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM players WHERE id = $1 FOR UPDATE`, playerID); err != nil {
			return err
		}
		var count int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhooks WHERE player_id = $1`, playerID).Scan(&count); err != nil {
			return err
		}
		if count >= maxWebhooks {
			return fmt.Errorf("%w: at most %d webhooks per player", ErrInvalid, maxWebhooks)
		}
		return tx.QueryRow(ctx, `INSERT INTO webhooks (player_id, url, secret) VALUES ($1, $2, $3) RETURNING id::text, created_at`,
			playerID, rawURL, secret).Scan(&w.ID, &w.CreatedAt)
	})
	if err != nil {
		if errors.Is(err, ErrInvalid) {
			return Webhook{}, err
		}
		return Webhook{}, fmt.Errorf("register webhook: %w", err)
	}
	return w, nil
}

// Webhooks lists a player's webhooks (without secrets).
func (n *Notifier) Webhooks(ctx context.Context, playerID string) ([]Webhook, error) {
	rows, err := n.pool.Query(ctx, `SELECT id::text, url, created_at FROM webhooks WHERE player_id = $1 ORDER BY created_at, id`, playerID)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Webhook, error) {
		var w Webhook
		err := r.Scan(&w.ID, &w.URL, &w.CreatedAt)
		return w, err
	})
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	if list == nil {
		list = []Webhook{}
	}
	return list, nil
}

// DeleteWebhook removes one of a player's webhooks.
func (n *Notifier) DeleteWebhook(ctx context.Context, playerID, id string) error {
	if !validUUID(id) {
		return fmt.Errorf("%w: webhook %q", ErrNotFound, id)
	}
	tag, err := n.pool.Exec(ctx, `DELETE FROM webhooks WHERE id = $1 AND player_id = $2`, id, playerID)
	if err != nil {
		return fmt.Errorf("delete webhook: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: webhook %s", ErrNotFound, id)
	}
	return nil
}

// WebhookArgs is one webhook delivery.
type WebhookArgs struct {
	WebhookID string    `json:"webhook_id"`
	Event     string    `json:"event"`
	GameID    string    `json:"game_id"`
	Version   int64     `json:"version"`
	Seat      int       `json:"seat"`
	At        time.Time `json:"at"`
}

// Kind implements river.JobArgs.
func (WebhookArgs) Kind() string { return "azuld_webhook" }

// WebhookPayload is the JSON body of a webhook delivery.
type WebhookPayload struct {
	// Event is your_turn, game_started, game_over or takeback_requested.
	Event      string    `json:"event"`
	DeliveryID string    `json:"delivery_id"`
	GameID     string    `json:"game_id"`
	Ruleset    string    `json:"ruleset"`
	Version    int64     `json:"version"`
	Status     string    `json:"status"`
	ToAct      []int     `json:"to_act"`
	Seat       int       `json:"seat"`
	OccurredAt time.Time `json:"occurred_at"`
	Links      struct {
		Game   string `json:"game"`
		State  string `json:"state"`
		Events string `json:"events"`
		Moves  string `json:"moves"`
	} `json:"links"`
}

// Delivery headers.
const (
	HeaderDelivery = "Azuld-Delivery"
	HeaderEvent    = "Azuld-Event"
)

type webhookWorker struct {
	river.WorkerDefaults[WebhookArgs]
	n *Notifier
}

func (w *webhookWorker) Timeout(*river.Job[WebhookArgs]) time.Duration {
	return w.n.cfg.WebhookTimeout + time.Second
}

// Work posts the payload; a 2xx answer completes it, anything else is
// retried with back-off.
func (w *webhookWorker) Work(ctx context.Context, job *river.Job[WebhookArgs]) error {
	n, a := w.n, job.Args
	var hookURL, secret string
	err := n.pool.QueryRow(ctx, `SELECT url, secret FROM webhooks WHERE id = $1`, a.WebhookID).Scan(&hookURL, &secret)
	if isNoRows(err) {
		n.logDelivery(ctx, job.ID, job.Attempt, "webhook:"+a.Event, a.GameID, a.Seat, a.WebhookID, "skipped", "webhook deleted")
		return nil
	}
	if err != nil {
		return fmt.Errorf("load webhook: %w", err)
	}
	body, err := n.webhookBody(ctx, job.ID, a)
	if err != nil {
		return err
	}
	status, err := n.postWebhook(ctx, hookURL, secret, strconv.FormatInt(job.ID, 10), a.Event, body)
	outcome, detail := "sent", "HTTP "+strconv.Itoa(status)
	switch {
	case errors.Is(err, ErrPrivateAddress):
		outcome, detail = "refused", err.Error()
	case err != nil:
		outcome, detail = "failed", err.Error()
	}
	n.logDelivery(ctx, job.ID, job.Attempt, "webhook:"+a.Event, a.GameID, a.Seat, hookURL, outcome, detail)
	return err
}

func (n *Notifier) webhookBody(ctx context.Context, jobID int64, a WebhookArgs) ([]byte, error) {
	g, err := n.svc.GameAt(ctx, a.GameID, a.Version)
	if err != nil {
		return nil, fmt.Errorf("load game %s: %w", a.GameID, err)
	}
	p := WebhookPayload{
		Event: a.Event, DeliveryID: strconv.FormatInt(jobID, 10), GameID: g.ID, Ruleset: g.Config.Ruleset,
		Version: g.Version, Status: g.Status, ToAct: g.ToAct(), Seat: a.Seat, OccurredAt: a.At.UTC(),
	}
	if p.ToAct == nil {
		p.ToAct = []int{}
	}
	base := n.cfg.Sender.BaseURL
	p.Links.Game = base + "/games/" + g.ID
	p.Links.State = base + "/v1/games/" + g.ID
	p.Links.Events = base + "/v1/games/" + g.ID + "/events"
	p.Links.Moves = base + "/v1/games/" + g.ID + "/moves"
	return json.Marshal(p)
}

func (n *Notifier) postWebhook(ctx context.Context, hookURL, secret, deliveryID, event string, body []byte) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.WebhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hookURL, bytes.NewReader(body))
	if err != nil {
		return 0, river.JobCancel(fmt.Errorf("webhook request: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "azuld-webhook/1")
	req.Header.Set(HeaderDelivery, deliveryID)
	req.Header.Set(HeaderEvent, event)
	req.Header.Set(webhooksig.Header, webhooksig.Sign([]byte(secret), body, n.now()))
	resp, err := n.http.Do(req)
	if errors.Is(err, ErrPrivateAddress) {
		return 0, river.JobCancel(fmt.Errorf("post webhook: %w", err))
	}
	if err != nil {
		return 0, fmt.Errorf("post webhook: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, fmt.Errorf("webhook answered HTTP %d", resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// validUUID reports a UUID in text form.
func validUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
