package api

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/azuld/azuld/play"
)

// DefaultAuthCacheTTL is how long a verified token is trusted without
// asking the database again, when Config.AuthCacheTTL is zero.
const DefaultAuthCacheTTL = time.Minute

// authCacheSize bounds the tokens remembered; past it the cache is
// emptied and refilled (a rare, cheap event).
const authCacheSize = 10000

// authCache remembers the player of each recently verified token, so a
// client making many requests costs one token lookup a minute instead of
// one per request. Tokens cannot be revoked yet; when they can, the TTL
// bounds how long a revoked token keeps working on a replica. Only
// successes are cached: a wrong token always reaches the database.
type authCache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]authEntry
}

type authEntry struct {
	player  play.Player
	expires time.Time
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
	if !c.now().Before(e.expires) {
		delete(c.entries, k)
		return play.Player{}, false
	}
	return e.player, true
}

func (c *authCache) put(token string, p play.Player) {
	if c == nil {
		return
	}
	k := c.key(token)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= authCacheSize {
		clear(c.entries)
	}
	c.entries[k] = authEntry{player: p, expires: c.now().Add(c.ttl)}
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
