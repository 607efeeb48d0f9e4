package api

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/play"
)

// DefaultAuthCacheTTL is how long a verified token is trusted without
// asking the database again, when Config.AuthCacheTTL is zero.
const DefaultAuthCacheTTL = time.Minute

// authCacheSize bounds the tokens remembered; past it the cache is
// emptied and refilled (a rare, cheap event).
const authCacheSize = 10000

// AuthGenerationEvery is how often a replica reads the shared auth
// generation (account.Service.Generation): a token revoked, or a profile
// changed, on any replica stops being served from this replica's cache
// within this bound (plus one query), although entries live for the TTL.
const AuthGenerationEvery = time.Second

// authCache remembers the player of each recently verified token, so a
// client making many requests costs one token lookup a minute instead of
// one per request. Only successes are cached: a wrong token always
// reaches the database. Every entry is tagged with the auth generation
// known when its lookup began; when the generation moves (a revocation
// anywhere) the cache empties, and an entry from an older generation is
// never used.
type authCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]authEntry
	// gen is the generation last read, at checked; checking is set
	// while one request reads it (the others keep using the cache).
	gen      int64
	checked  time.Time
	checking bool
}

type authEntry struct {
	player  play.Player
	expires time.Time
	gen     int64
}

func newAuthCache(ttl time.Duration) *authCache {
	return &authCache{ttl: ttl, now: time.Now, entries: map[[sha256.Size]byte]authEntry{}}
}

// key is the token's hash: the cache never holds tokens themselves.
func (c *authCache) key(token string) [sha256.Size]byte { return sha256.Sum256([]byte(token)) }

func (c *authCache) get(token string) (play.Player, bool) {
	if c == nil {
		return play.Player{}, false
	}
	k := c.key(token)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return play.Player{}, false
	}
	if !c.now().Before(e.expires) || e.gen != c.gen {
		delete(c.entries, k)
		return play.Player{}, false
	}
	return e.player, true
}

// generation is the generation to tag a lookup that begins now with.
func (c *authCache) generation() int64 {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put remembers a lookup that began at generation gen; one that began
// before the generation moved is dropped.
func (c *authCache) put(token string, p play.Player, gen int64) {
	if c == nil {
		return
	}
	k := c.key(token)
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.entries) >= authCacheSize {
		clear(c.entries)
	}
	c.entries[k] = authEntry{player: p, expires: c.now().Add(c.ttl), gen: gen}
}

// sync reads the shared generation with read when the last reading is
// older than AuthGenerationEvery (or at once when force is set), and
// empties the cache when it moved. A failed read empties it too: without
// the generation, nothing cached can be trusted. The generation only
// grows, so a slow reading that returns after a newer one changes
// nothing.
func (c *authCache) sync(ctx context.Context, read func(context.Context) (int64, error), force bool) error {
	if c == nil || read == nil {
		return nil
	}
	c.mu.Lock()
	if !force && (c.checking || (!c.checked.IsZero() && c.now().Sub(c.checked) < AuthGenerationEvery)) {
		c.mu.Unlock()
		return nil
	}
	c.checking = true
	started := c.now()
	c.mu.Unlock()

	gen, err := read(ctx)

	c.mu.Lock()
	defer c.mu.Unlock()
	c.checking = false
	if err != nil {
		clear(c.entries)
		c.checked = time.Time{}
		return err
	}
	if started.After(c.checked) {
		c.checked = started
	}
	if gen > c.gen {
		clear(c.entries)
		c.gen = gen
	}
	return nil
}

// forgetPlayer drops every token of a player, whose account was just
// deleted: this replica stops trusting them at once (others within their
// TTL, after which the lookup finds no account).
func (c *authCache) forgetPlayer(id string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if e.player.ID == id {
			delete(c.entries, k)
		}
	}
}

// len is the number of tokens remembered.
func (c *authCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// registerMemoryMetrics exposes the server's bounded in-memory state in
// /metrics (docs/SCALING.md "Memory"): the tokens the auth cache holds
// (at most authCacheSize, a few hundred bytes each) and the addresses the
// failed-token limit blocks on this replica (at most maxBlocked).
func (s *Server) registerMemoryMetrics(reg prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "azuld_auth_cache_entries",
			Help: "Verified bearer tokens this replica trusts without a lookup (at most 10,000).",
		}, func() float64 { return float64(s.auth.len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "azuld_rate_limit_blocked_addresses",
			Help: "Client addresses the failed-token limit refuses, remembered by this replica (at most 100,000).",
		}, func() float64 { return float64(s.limits.blockedLen()) }),
	} {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("register memory metrics: %w", err)
		}
	}
	return nil
}
