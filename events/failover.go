package events

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"
)

// RetryAfterSeconds is the Retry-After a client is told while no primary
// answers. A Patroni fail-over promotes a standby within about ten
// seconds of the primary's loss (the leader key's TTL, then a loop):
// asking again every five seconds finds the new primary within a few
// seconds of its promotion without flooding the replicas meanwhile.
const RetryAfterSeconds = 5

// ErrOutcomeUnknown means the connection was lost while an append's
// commit was in flight (or the commit was not confirmed by the
// synchronous standby): the events may or may not be in the log. A caller
// with an idempotency key may send the same append again (the key makes it
// happen once); one without must read the stream to find out.
var ErrOutcomeUnknown = errors.New("the outcome of the append is unknown: the database did not confirm its commit")

// Unavailable reports an error that says no primary database answers: a
// connection that could not be made or broke (a fail-over, a network cut,
// a restart), a session on a server that is shutting down, starting or
// has become a read-only standby, or no free connection slot. The same
// request may succeed a few seconds later, on the new primary: it is a 503
// with Retry-After, never a server fault.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrOutcomeUnknown) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return unavailableCode(pgErr.Code)
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	switch {
	case errors.As(err, &ce), errors.As(err, &ne):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, pgconn.ErrConnClosed):
		return true
	case pgconn.SafeToRetry(err), pgconn.Timeout(err):
		// Nothing was sent (a connection found broken when taken), or
		// the statement timed out on the wire.
		return true
	}
	return false
}

// unavailableCode reports the SQLSTATEs of a lost, failing or demoted
// primary.
func unavailableCode(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"): // connection exception
		return true
	case code == "57P01", // admin_shutdown: a fast stop, or Patroni demoting the node
		code == "57P02", // crash_shutdown: another backend crashed
		code == "57P03", // cannot_connect_now: starting up, or shutting down
		code == "25006", // read_only_sql_transaction: a session on a standby
		code == "53300": // too_many_connections: every slot busy during the storm of reconnects
		return true
	}
	return false
}

// committedUnknown reports an error of an append's commit after which
// the commit may have happened: the connection broke, or the server
// ended the session, once the statement (or COMMIT) was issued. pgx's
// SafeToRetry cannot tell here: a connection that broke while reading the
// answer to a COMMIT it sent reports "conn closed", marked safe to retry.
// Only an error the server reported for the statement itself, other than
// ending the session, leaves nothing written.
func committedUnknown(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02":
			// Ends a backend that may be waiting for the standby
			// after its local commit.
			return true
		}
		// Any other error the server reports ends the statement's own
		// transaction without committing it.
		return false
	}
	return Unavailable(err) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// What pool connections are given when the database URL does not say.
const (
	// DefaultConnectTimeout bounds one connection attempt to one host,
	// so that a dead host first in a multi-host URL costs this long
	// before the next is tried, at start and at every reconnect.
	DefaultConnectTimeout = 5 * time.Second
	// tcpUserTimeout is how long sent data may stay unacknowledged
	// before the kernel drops the connection: a host cut off from the
	// network (its packets silently dropped) is noticed within this
	// instead of TCP's retransmissions' fifteen minutes.
	tcpUserTimeout = 10 * time.Second
)

// keepAlive probes an idle connection after 5 s, then every 2 s, and
// gives up after 3 unanswered probes: an idle pool connection to a lost
// host breaks within about 11 s rather than two hours.
var keepAlive = net.KeepAliveConfig{Enable: true, Idle: 5 * time.Second, Interval: 2 * time.Second, Count: 3}

// syncRepNoticeKey marks, in a connection's CustomData, a session whose
// commit the server reported as committed locally but perhaps not
// replicated to the synchronous standby.
const syncRepNoticeKey = "azuld.syncrep-unconfirmed"

// ConfigurePool sets on a parsed pool configuration what a fail-over of
// the primary needs (see ConfigureConn).
func ConfigurePool(cfg *pgxpool.Config, connString string) {
	ConfigureConn(&cfg.ConnConfig.Config, connString)
}

// ConfigureConn sets, on a parsed connection configuration, what a
// fail-over of the primary needs:
//
//   - a connect timeout of DefaultConnectTimeout per host, unless the
//     connection string sets connect_timeout (or PGCONNECT_TIMEOUT does);
//   - TCP keep-alives and TCP_USER_TIMEOUT (where the system has it), so
//     that a connection to a host cut off from the network fails in
//     seconds;
//   - a cancelled context closes the connection instead of sending a
//     cancel request: a cancel reaching a backend whose COMMIT waits for
//     the synchronous standby makes PostgreSQL report success with only a
//     warning, for a commit the standby may not have;
//   - a notice handler that marks the connection when that warning comes
//     anyway (a cancel from elsewhere, or the server shutting down), which
//     the store checks after every append.
func ConfigureConn(cc *pgconn.Config, connString string) {
	timeout := cc.ConnectTimeout
	if timeout == 0 && !strings.Contains(connString, "connect_timeout") {
		timeout = DefaultConnectTimeout
		cc.ConnectTimeout = timeout
	}
	d := &net.Dialer{Timeout: timeout, KeepAliveConfig: keepAlive, Control: tcpControl(tcpUserTimeout)}
	cc.DialFunc = d.DialContext
	cc.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: pc.Conn()}
	}
	next := cc.OnNotice
	cc.OnNotice = func(pc *pgconn.PgConn, n *pgconn.Notice) {
		if syncRepUnconfirmed(n) {
			pc.CustomData()[syncRepNoticeKey] = true
		}
		if next != nil {
			next(pc, n)
		}
	}
}

// syncRepUnconfirmed recognises the warning PostgreSQL sends when it stops
// waiting for the synchronous standby after a local commit: "canceling
// wait for synchronous replication due to user request" (a cancel
// request), or "canceling the wait for synchronous replication and
// terminating connection due to administrator command" (a shutdown). Both
// have the detail "The transaction has already committed locally, but
// might not have been replicated to the standby."; the messages are
// matched in English and by that detail, in case lc_messages translates
// them.
func syncRepUnconfirmed(n *pgconn.Notice) bool {
	if n == nil || n.Code != "01000" {
		return false
	}
	msg := strings.ToLower(n.Message)
	return strings.Contains(msg, "synchronous replication") ||
		strings.Contains(strings.ToLower(n.Detail), "might not have been replicated")
}

// unconfirmed reports (and clears) the mark of syncRepUnconfirmed on a
// connection.
func unconfirmed(pc *pgconn.PgConn) bool {
	data := pc.CustomData()
	marked, _ := data[syncRepNoticeKey].(bool)
	delete(data, syncRepNoticeKey)
	return marked
}
