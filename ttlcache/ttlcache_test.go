package ttlcache

import (
	"testing"
	"time"
)

func TestCacheKeepsForTTLAndBounds(t *testing.T) {
	c := New[int](time.Second, 2)
	t0 := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	if _, ok := c.Get("a", t0); ok {
		t.Fatal("an empty cache answered")
	}
	c.Put("a", t0, 1)
	if v, ok := c.Get("a", t0.Add(999*time.Millisecond)); !ok || v != 1 {
		t.Errorf("within the TTL: %d, %v", v, ok)
	}
	if _, ok := c.Get("a", t0.Add(time.Second)); ok {
		t.Error("answered at the TTL")
	}
	if _, ok := c.Get("a", t0.Add(-time.Millisecond)); ok {
		t.Error("answered before it was put (a clock gone back)")
	}
	c.Put("b", t0, 2)
	c.Put("c", t0, 3) // the third key: starts afresh
	if _, ok := c.Get("a", t0); ok {
		t.Error("more keys kept than the bound")
	}
	if v, ok := c.Get("c", t0); !ok || v != 3 {
		t.Errorf("the newest key: %d, %v", v, ok)
	}
}
