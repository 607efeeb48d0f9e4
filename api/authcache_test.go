package api

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/play"
)

func TestAuthCacheExpiresAndStaysBounded(t *testing.T) {
	t.Parallel()
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

// The auth cache's size is in /metrics, and stays within its bound.
func TestAuthCacheEntriesInMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	s, err := New(Config{Service: play.New(play.Config{}), Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	entries := func() float64 {
		t.Helper()
		families, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range families {
			if f.GetName() == "azuld_auth_cache_entries" {
				return f.GetMetric()[0].GetGauge().GetValue()
			}
		}
		t.Fatal("no azuld_auth_cache_entries")
		return 0
	}
	if n := entries(); n != 0 {
		t.Fatalf("%v entries before any lookup", n)
	}
	for i := range 3 {
		s.auth.put(fmt.Sprintf("token-%d", i), play.Player{ID: fmt.Sprint(i)}, s.auth.generation())
	}
	if n := entries(); n != 3 {
		t.Fatalf("%v entries, want 3", n)
	}
	for i := range 3 * authCacheSize {
		s.auth.put(fmt.Sprintf("many-%d", i), play.Player{ID: fmt.Sprint(i)}, s.auth.generation())
	}
	if n := entries(); n > authCacheSize {
		t.Fatalf("%v entries, bound %d", n, authCacheSize)
	}
}
