package main

import (
	"bytes"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// AZUL_GAME_CACHE_BYTES sets the game cache's budget, which /metrics
// shows with every cache's bytes, entries, hits, misses and evictions.
func TestGameCacheBudgetConfiguredAndInMetrics(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"AZUL_GAME_CACHE_BYTES": "1048576"})
	var cfg config
	s := newSettings("serve", withDatabase|withHTTP, &cfg, env, &bytes.Buffer{})
	if err := s.parse(nil, env); err != nil {
		t.Fatal(err)
	}
	if cfg.GameCacheBytes != 1<<20 {
		t.Fatalf("game cache bytes %d, want 1 MiB", cfg.GameCacheBytes)
	}
	var def config
	if err := newSettings("serve", withDatabase|withHTTP, &def, envOf(nil), &bytes.Buffer{}).parse(nil, envOf(nil)); err != nil {
		t.Fatal(err)
	}
	if def.GameCacheBytes != play.DefaultCacheBytes {
		t.Fatalf("default game cache bytes %d", def.GameCacheBytes)
	}

	reg := prometheus.NewRegistry()
	registerMemoryMetrics(reg, play.New(serviceConfig(&cfg)))
	registerLimiterMetrics(reg, limits.New(nil, limits.Options{Off: true}))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		m := f.GetMetric()[0]
		got[f.GetName()] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
	}
	for _, name := range []string{
		"azuld_game_cache_bytes", "azuld_game_cache_entries", "azuld_game_cache_evictions_total",
		"azuld_game_cache_hits_total", "azuld_game_cache_misses_total",
		"azuld_seed_cache_entries", "azuld_seed_cache_evictions_total",
		"azuld_rate_limit_cells", "azuld_rate_limit_overflow_total",
	} {
		if _, ok := got[name]; !ok {
			t.Errorf("no %s in /metrics", name)
		}
	}
	if got["azuld_game_cache_max_bytes"] != 1<<20 {
		t.Errorf("azuld_game_cache_max_bytes %v, want 1 MiB", got["azuld_game_cache_max_bytes"])
	}
}
