// Package limits keeps the rate limits that hold across azuld's replicas:
// how often a client address may register, a target address be sent a
// sign-in link, an account create games or move, a sender mail the SMTP
// listener.
//
// Each limit is the generic cell rate algorithm (GCRA): a rule allows Limit
// events per Period, all at once or spread out, and one more each
// Period/Limit after that. Its one number of state per key, the
// theoretical arrival time, lives in PostgreSQL (table rate_limits), which
// the replicas share, so a limit holds whichever replica a request reaches.
//
// Rules come in two kinds, by how much a check may cost:
//   - Exact rules (registrations, sign-in links, failed token attempts,
//     invitations: rare, and what a stranger would abuse) are decided by
//     one statement on PostgreSQL, atomically across replicas.
//   - Fast rules (API calls, moves, games created: frequent, and on the
//     path of every move) are decided in memory, so they add no round trip;
//     each replica adds what it counted to the shared row every SyncEvery
//     and takes back what the others counted. A key can then exceed its
//     limit across replicas by at most what the others allow in one
//     interval, which is why fast rules are for generous limits.
//
// Keys are hashed with the rule's name and the server's salt before they
// are stored: the table holds no address or name, and without the salt
// (table server_secrets, made once per database) a stored hash cannot be
// matched by hashing a guessed or an erased address.
package limits

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Rule is one limit: at most Limit events per Period for each key.
type Rule struct {
	// Name identifies the rule in metrics, logs and configuration
	// ("register.address"); it is part of the stored hash, so two rules
	// never share a key's state.
	Name   string
	Limit  int
	Period time.Duration
	// Fast rules are decided in memory and synchronised in the background
	// (see the package documentation); others on PostgreSQL each time.
	Fast bool
}

// interval is the time one event uses up: Period/Limit.
func (r Rule) interval() time.Duration { return r.Period / time.Duration(r.Limit) }

func (r Rule) valid() error {
	if r.Name == "" || r.Limit <= 0 || r.Period <= 0 || r.interval() <= 0 {
		return fmt.Errorf("limits: rule %q: limit %d per %s is no limit", r.Name, r.Limit, r.Period)
	}
	return nil
}

// Decision is the answer to one check.
type Decision struct {
	Allowed bool
	// RetryAfter is how long until the event would be allowed (0 when it
	// is), rounded up to whole seconds for Retry-After.
	RetryAfter time.Duration
}

// RetryAfterSeconds is RetryAfter as Retry-After's whole seconds (at least
// 1 when not allowed).
func (d Decision) RetryAfterSeconds() int {
	if d.Allowed {
		return 0
	}
	return max(1, int(math.Ceil(d.RetryAfter.Seconds())))
}

// Options configure a Limiter.
type Options struct {
	// Off allows everything and stores nothing (a closed server, load
	// tests, benchmarks: AZUL_RATE_LIMITS=off).
	Off bool
	// SyncEvery is how often fast rules are synchronised; default 250 ms.
	SyncEvery time.Duration
	// Now is the clock of fast rules; default time.Now. Exact rules use the
	// database's clock, which all replicas share.
	Now func() time.Time
	// MaxCells bounds the keys fast rules hold in memory (0:
	// DefaultMaxCells; see Limiter.Allow for what happens past it).
	MaxCells int
	// Salt salts the stored keys; nil: the database's (server_secrets'
	// limits_salt), read at the first check. Every replica must use the
	// same.
	Salt []byte
}

// DefaultMaxCells bounds a replica's fast-rule keys when Options.MaxCells
// is zero. A cell takes about 100 bytes (its map slot, the 16-byte
// bucket and the cell), so 100,000 keys, more than the distinct clients
// of any minute short of a flood from a whole network, take some 10 MB.
const DefaultMaxCells = 100000

// Limiter checks rules. It is safe for concurrent use; Run must be running
// for fast rules to hold across replicas and for old rows to be deleted.
type Limiter struct {
	pool      *pgxpool.Pool
	off       bool
	syncEvery time.Duration
	now       func() time.Time

	saltMu sync.Mutex
	salt   []byte

	mu       sync.Mutex
	local    map[bucket]*cell
	maxCells int
	// overflow counts the events of fast rules decided in the database
	// because the cells were full.
	overflow uint64
}

// bucket is the stored key: HMAC-SHA-256 under the salt of the rule's
// name and the key, shortened (a collision would merely share a limit).
type bucket [16]byte

func bucketOf(salt []byte, rule, key string) bucket {
	m := hmac.New(sha256.New, salt)
	m.Write([]byte(rule + "\x00" + key))
	var b bucket
	copy(b[:], m.Sum(nil))
	return b
}

// SaltName is the name of the limits' salt in table server_secrets.
const SaltName = "limits_salt"

// LoadSalt reads the database's salt of the limits' keys.
func LoadSalt(ctx context.Context, pool *pgxpool.Pool) ([]byte, error) {
	var salt []byte
	err := pool.QueryRow(ctx, `SELECT secret FROM server_secrets WHERE name = $1`, SaltName).Scan(&salt)
	if err != nil {
		return nil, fmt.Errorf("limits: read the salt of the keys: %w", err)
	}
	return salt, nil
}

// bucketFor is the stored key of key under rule, reading the salt from
// the database the first time (a failure is tried again next time).
func (l *Limiter) bucketFor(ctx context.Context, rule, key string) (bucket, error) {
	l.saltMu.Lock()
	defer l.saltMu.Unlock()
	if l.salt == nil && l.pool == nil {
		// Memory only (fast rules on one replica): a salt of its own.
		l.salt = make([]byte, 32)
		_, _ = rand.Read(l.salt) // crypto/rand.Read never fails (Go 1.24+)
	}
	if l.salt == nil {
		salt, err := LoadSalt(ctx, l.pool)
		if err != nil {
			return bucket{}, err
		}
		l.salt = salt
	}
	return bucketOf(l.salt, rule, key), nil
}

// Bucket is the stored key of key under rule (rate_limits.bucket), for
// tests and operators who must find one row.
func (l *Limiter) Bucket(ctx context.Context, rule, key string) ([]byte, error) {
	b, err := l.bucketFor(ctx, rule, key)
	if err != nil {
		return nil, err
	}
	return b[:], nil
}

// cell is a fast rule's state for one key on this replica.
type cell struct {
	tat      time.Time     // theoretical arrival time, this replica's clock
	pending  int           // events allowed here since the last sync
	interval time.Duration // the rule's Period/Limit
}

// New returns a limiter on pool (nil only when opts.Off).
func New(pool *pgxpool.Pool, opts Options) *Limiter {
	l := &Limiter{pool: pool, off: opts.Off, syncEvery: opts.SyncEvery, now: opts.Now, local: map[bucket]*cell{}, maxCells: opts.MaxCells, salt: opts.Salt}
	if l.maxCells <= 0 {
		l.maxCells = DefaultMaxCells
	}
	if l.syncEvery <= 0 {
		l.syncEvery = 250 * time.Millisecond
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l
}

// Off tells whether every check allows.
func (l *Limiter) Off() bool { return l.off }

// Allow counts one event of key under rule, if the rule allows it.
//
// A fast rule is decided in memory, unless the replica already holds
// MaxCells keys and key is not one of them: then it is decided in the
// database like an exact rule, on the same row the synchronisation
// writes, so the limit still holds and memory stays bounded however many
// distinct keys arrive (the cells of keys idle for their period are
// dropped at every synchronisation).
func (l *Limiter) Allow(ctx context.Context, rule Rule, key string) (Decision, error) {
	if l.off {
		return Decision{Allowed: true}, nil
	}
	if err := rule.valid(); err != nil {
		return Decision{}, err
	}
	b, err := l.bucketFor(ctx, rule.Name, key)
	if err != nil {
		return Decision{}, err
	}
	if rule.Fast {
		if d, ok := l.allowLocal(b, rule); ok {
			return d, nil
		}
	}
	return l.allowShared(ctx, b, rule)
}

// allowLocal decides a fast rule in memory: GCRA on this replica's cell,
// which the sync loop keeps abreast of the other replicas. It returns
// false, deciding nothing, for a new key when the cells are full.
func (l *Limiter) allowLocal(b bucket, rule Rule) (Decision, bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.local[b]
	if c == nil {
		if len(l.local) >= l.maxCells {
			l.overflow++
			return Decision{}, false
		}
		c = &cell{tat: now, interval: rule.interval()}
		l.local[b] = c
	}
	next := later(c.tat, now).Add(c.interval)
	if wait := next.Sub(now) - rule.Period; wait > 0 {
		return Decision{RetryAfter: wait}, true
	}
	c.tat = next
	c.pending++
	return Decision{Allowed: true}, true
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// allowShared decides an exact rule in one statement. The update's WHERE
// is evaluated again on the locked row when two replicas race, so two
// concurrent checks can never both take the last event.
func (l *Limiter) allowShared(ctx context.Context, b bucket, rule Rule) (Decision, error) {
	const q = `
WITH cur AS (
    SELECT greatest(coalesce((SELECT tat FROM rate_limits WHERE bucket = $1), now()), now())
           + $2::bigint * interval '1 microsecond' AS next
), up AS (
    INSERT INTO rate_limits AS r (bucket, tat)
    SELECT $1, next FROM cur
    WHERE next - now() <= $3::bigint * interval '1 microsecond'
    ON CONFLICT (bucket) DO UPDATE
        SET tat = greatest(r.tat, now()) + $2::bigint * interval '1 microsecond'
        WHERE greatest(r.tat, now()) + $2::bigint * interval '1 microsecond' - now()
              <= $3::bigint * interval '1 microsecond'
    RETURNING 1
)
SELECT EXISTS (SELECT FROM up),
       (extract(epoch FROM (SELECT next FROM cur) - now()) * 1e6)::bigint - $3::bigint`
	var allowed bool
	var waitMicros int64
	err := l.pool.QueryRow(ctx, q, b[:], rule.interval().Microseconds(), rule.Period.Microseconds()).Scan(&allowed, &waitMicros)
	if err != nil {
		return Decision{}, fmt.Errorf("limits: check %s: %w", rule.Name, err)
	}
	if allowed {
		return Decision{Allowed: true}, nil
	}
	return Decision{RetryAfter: max(time.Duration(waitMicros)*time.Microsecond, time.Second)}, nil
}

// Run synchronises fast rules every SyncEvery and deletes rows whose time
// has passed every minute, until ctx ends. Each replica runs one.
func (l *Limiter) Run(ctx context.Context) error {
	if l.off {
		<-ctx.Done()
		return nil
	}
	sync := time.NewTicker(l.syncEvery)
	defer sync.Stop()
	clean := time.NewTicker(time.Minute)
	defer clean.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sync.C:
			if err := l.Sync(ctx); err != nil && ctx.Err() == nil {
				return err
			}
		case <-clean.C:
			if _, err := l.pool.Exec(ctx, `DELETE FROM rate_limits WHERE tat < now() - interval '1 minute'`); err != nil && ctx.Err() == nil {
				return fmt.Errorf("limits: delete old rows: %w", err)
			}
		}
	}
}

// Sync adds the events this replica allowed since the last sync to the
// shared rows, in one statement, and moves each local cell to the shared
// time when the other replicas used more. Cells whose time has passed
// are forgotten, so memory follows the keys active in the last Period.
func (l *Limiter) Sync(ctx context.Context) error {
	if l.off {
		return nil
	}
	l.mu.Lock()
	now := l.now()
	var keys [][]byte
	var uses []int64
	taken := map[bucket]int{}
	for b, c := range l.local {
		if c.pending == 0 {
			if !c.tat.After(now) {
				delete(l.local, b)
			}
			continue
		}
		keys = append(keys, append([]byte(nil), b[:]...))
		uses = append(uses, int64(c.pending)*c.interval.Microseconds())
		taken[b] = c.pending
		c.pending = 0
	}
	l.mu.Unlock()
	if len(keys) == 0 {
		return nil
	}
	const q = `
INSERT INTO rate_limits AS r (bucket, tat)
SELECT k, now() + u * interval '1 microsecond' FROM unnest($1::bytea[], $2::bigint[]) AS t (k, u)
ON CONFLICT (bucket) DO UPDATE SET tat = greatest(r.tat, now()) + (excluded.tat - now())
RETURNING bucket, (extract(epoch FROM tat - now()) * 1e6)::bigint`
	rows, err := l.pool.Query(ctx, q, keys, uses)
	if err == nil {
		err = l.takeShared(rows)
	}
	if err != nil {
		// Give the counts back: they are sent again next time.
		l.mu.Lock()
		for b, n := range taken {
			if c := l.local[b]; c != nil {
				c.pending += n
			}
		}
		l.mu.Unlock()
		return fmt.Errorf("limits: synchronise %d keys: %w", len(keys), err)
	}
	return nil
}

// takeShared moves local cells forward to the shared times read.
func (l *Limiter) takeShared(rows pgx.Rows) error {
	defer rows.Close()
	for rows.Next() {
		var key []byte
		var ahead int64
		if err := rows.Scan(&key, &ahead); err != nil {
			return err
		}
		var b bucket
		if copy(b[:], key) != len(b) {
			return errors.New("limits: a stored bucket of the wrong size")
		}
		l.mu.Lock()
		if c := l.local[b]; c != nil {
			c.tat = later(c.tat, l.now().Add(time.Duration(ahead)*time.Microsecond))
		}
		l.mu.Unlock()
	}
	return rows.Err()
}

// Cells is the number of keys fast rules hold in memory (for /metrics).
func (l *Limiter) Cells() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.local)
}

// Overflow counts the events of fast rules decided in the database
// because the replica held MaxCells keys already (for /metrics).
func (l *Limiter) Overflow() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.overflow
}

// Peek tells whether one more event of key under rule would be allowed,
// without counting one. It is for limits counted on failure only (failed
// token attempts): the check comes before the attempt, so a client past
// its limit learns nothing from trying, and only a failure is then
// counted with Allow.
func (l *Limiter) Peek(ctx context.Context, rule Rule, key string) (Decision, error) {
	if l.off {
		return Decision{Allowed: true}, nil
	}
	if err := rule.valid(); err != nil {
		return Decision{}, err
	}
	b, err := l.bucketFor(ctx, rule.Name, key)
	if err != nil {
		return Decision{}, err
	}
	if rule.Fast {
		if d, ok := l.peekLocal(b, rule); ok {
			return d, nil
		}
	}
	const q = `
SELECT (extract(epoch FROM greatest(tat, now()) - now()) * 1e6)::bigint
       + $2::bigint - $3::bigint
FROM rate_limits WHERE bucket = $1`
	var waitMicros int64
	err = l.pool.QueryRow(ctx, q, b[:], rule.interval().Microseconds(), rule.Period.Microseconds()).Scan(&waitMicros)
	if errors.Is(err, pgx.ErrNoRows) {
		return Decision{Allowed: true}, nil
	}
	if err != nil {
		return Decision{}, fmt.Errorf("limits: peek %s: %w", rule.Name, err)
	}
	if waitMicros <= 0 {
		return Decision{Allowed: true}, nil
	}
	return Decision{RetryAfter: max(time.Duration(waitMicros)*time.Microsecond, time.Second)}, nil
}

// peekLocal peeks at a fast rule's cell; false, deciding nothing, when
// key has no cell and the cells are full (its events were then counted
// in the database).
func (l *Limiter) peekLocal(b bucket, rule Rule) (Decision, bool) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.local[b]
	if c == nil {
		return Decision{Allowed: true}, len(l.local) < l.maxCells
	}
	if wait := later(c.tat, now).Add(c.interval).Sub(now) - rule.Period; wait > 0 {
		return Decision{RetryAfter: wait}, true
	}
	return Decision{Allowed: true}, true
}
