// Package ttlcache keeps answers that anyone may ask for, with any key,
// for a short time: a page read by many is then read from the database
// once per TTL, whatever the number of readers.
package ttlcache

import (
	"sync"
	"time"
)

// Cache maps keys to values for TTL each, holding at most Max keys (past
// that it starts afresh: the keys are pages, and a reader who walks many
// of them is limited elsewhere). The zero value is not usable: use New.
type Cache[V any] struct {
	ttl time.Duration
	max int

	mu      sync.Mutex
	entries map[string]entry[V]
}

type entry[V any] struct {
	at time.Time
	v  V
}

// New returns a cache of at most max keys, each kept for ttl.
func New[V any](ttl time.Duration, max int) *Cache[V] {
	return &Cache[V]{ttl: ttl, max: max, entries: map[string]entry[V]{}}
}

// Get returns the value kept for key, if it was put less than TTL before
// now.
func (c *Cache[V]) Get(key string, now time.Time) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || now.Sub(e.at) >= c.ttl || now.Before(e.at) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Put keeps v for key from now.
func (c *Cache[V]) Put(key string, now time.Time, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		c.entries = map[string]entry[V]{}
	}
	c.entries[key] = entry[V]{at: now, v: v}
}
