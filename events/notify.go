package events

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
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
// The goroutine runs only while there is something to send, so a Store
// needs no Close.
type notifier struct {
	pool *pgxpool.Pool
	log  *slog.Logger

	mu      sync.Mutex
	pending map[string]int64 // stream id → latest version
	running bool
}

// notifyTimeout bounds one notification statement.
const notifyTimeout = 10 * time.Second

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
		n.mu.Lock()
		batch := n.pending
		if len(batch) == 0 {
			n.running = false
			n.mu.Unlock()
			return
		}
		n.pending = make(map[string]int64, len(batch))
		n.mu.Unlock()

		payloads := make([]string, 0, len(batch))
		for id, v := range batch {
			payloads = append(payloads, id+":"+strconv.FormatInt(v, 10))
		}
		ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
		_, err := n.pool.Exec(ctx, `SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p`, NotifyChannel, payloads)
		cancel()
		if err != nil {
			n.log.Warn("event store: notifying appends failed; listeners will see them with later appends",
				"streams", len(payloads), "err", err)
		}
	}
}
