package events

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/puddle/v2"
)

// notifier announces committed appends on NotifyChannel.
//
// It does so after the commit, from a goroutine of its own that sends
// what accumulated meanwhile in one statement, rather than with a NOTIFY
// inside each append's transaction: PostgreSQL serialises the commits of
// all notifying transactions on one lock, which cut append throughput by
// more than half in BenchmarkAppend. The price: a process that dies
// between a commit and the notification loses that wake-up. Listeners
// still see the append with the stream's next one, or when they resync
// after reconnecting, since notices are only hints to read the store.
//
// Notifications go out within a few milliseconds (notifyLinger) of the
// commit, several appends to a payload (see ParseNotification). The goroutine runs only while there is something to send, so a
// Store needs no Close.
type notifier struct {
	pool *pgxpool.Pool
	log  *slog.Logger

	mu      sync.Mutex
	pending map[string]int64 // stream id → latest version
	running bool
}

// notifyTimeout bounds one notification statement.
const notifyTimeout = 10 * time.Second

// notifyLinger is how long the notifier collects appends before sending
// them: every notification is a transaction that takes PostgreSQL's
// notify lock, so one per append would cost nearly an append each.
const notifyLinger = 5 * time.Millisecond

// maxPayload keeps a notification's payload under PostgreSQL's limit of
// 8000 bytes.
const maxPayload = 7900

func newNotifier(pool *pgxpool.Pool, log *slog.Logger) *notifier {
	return &notifier{pool: pool, log: log, pending: map[string]int64{}}
}

// add queues the notification of a stream's new version.
func (n *notifier) add(streamID string, version int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if version > n.pending[streamID] {
		n.pending[streamID] = version
	}
	if !n.running {
		n.running = true
		go n.run()
	}
}

// run sends batches until none is pending.
func (n *notifier) run() {
	for {
		time.Sleep(notifyLinger)
		n.mu.Lock()
		batch := n.pending
		if len(batch) == 0 {
			n.running = false
			n.mu.Unlock()
			return
		}
		n.pending = make(map[string]int64, len(batch))
		n.mu.Unlock()

		payloads := encodeNotifications(batch)
		ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
		_, err := n.pool.Exec(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, NotifyChannel, payloads)
		cancel()
		// A closed pool means the process is stopping: nobody to tell.
		if err != nil && !errors.Is(err, puddle.ErrClosedPool) {
			n.log.Warn("event store: notifying appends failed; listeners will see them with later appends",
				"streams", len(payloads), "err", err)
		}
	}
}

// encodeNotifications writes "<id>:<version>" entries separated by
// commas, as few payloads as fit.
func encodeNotifications(versions map[string]int64) []string {
	var payloads []string
	var b []byte
	for id, v := range versions {
		if len(b) > 0 && len(b)+len(id)+22 > maxPayload {
			payloads = append(payloads, string(b))
			b = b[:0]
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = append(b, id...)
		b = append(b, ':')
		b = strconv.AppendInt(b, v, 10)
	}
	if len(b) > 0 {
		payloads = append(payloads, string(b))
	}
	return payloads
}
