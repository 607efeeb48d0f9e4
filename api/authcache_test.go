package api

import (
	"testing"
	"time"

	"github.com/azuld/azuld/play"
)

func TestAuthCacheExpiresAndStaysBounded(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newAuthCache(time.Minute)
	c.now = func() time.Time { return now }
	ana := play.Player{ID: "a", Name: "Ana"}
	if _, ok := c.get("azt_x"); ok {
		t.Fatal("an empty cache found a token")
	}
	c.put("azt_x", ana, 0)
	if p, ok := c.get("azt_x"); !ok || p != ana {
		t.Fatalf("cached token not found: %v %v", p, ok)
	}
	if _, ok := c.get("azt_y"); ok {
		t.Fatal("another token matched")
	}
	for k := range c.entries {
		if string(k[:]) == "azt_x" {
			t.Fatal("the cache holds a raw token")
		}
	}
	now = now.Add(time.Minute)
	if _, ok := c.get("azt_x"); ok {
		t.Fatal("an expired entry was used")
	}
	for i := range authCacheSize + 10 {
		c.put(string(rune(i)), ana, 0)
	}
	if len(c.entries) > authCacheSize {
		t.Fatalf("%d entries, bound %d", len(c.entries), authCacheSize)
	}
	var none *authCache
	none.put("azt_x", ana, 0)
	if _, ok := none.get("azt_x"); ok {
		t.Fatal("a disabled cache found a token")
	}
}
