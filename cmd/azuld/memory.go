package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/azuld/azuld/limits"
	"github.com/azuld/azuld/play"
)

// serviceConfig is the command path's part of azuld serve's settings:
// the game cache bounded as configured (AZUL_GAME_CACHE_BYTES). The app
// fills in the rest (app.Config.Service).
func serviceConfig(cfg *config) play.Config {
	return play.Config{CacheBytes: cfg.GameCacheBytes}
}

// registerMemoryMetrics exposes the service's in-memory caches in
// /metrics (docs/SCALING.md "Memory"): their estimated bytes, entries,
// hits, misses and evictions, read when scraped.
func registerMemoryMetrics(reg prometheus.Registerer, svc *play.Service) {
	registerCache(reg, "game_cache", "folded games kept for moves", svc.GameCacheStats)
	registerCache(reg, "seed_cache", "secret seeds kept for moves", svc.SeedCacheStats)
}

func registerCache(reg prometheus.Registerer, name, what string, stats func() play.CacheStats) {
	gauge := func(suffix, help string, v func(play.CacheStats) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "azuld_" + name + "_" + suffix, Help: help}, func() float64 { return v(stats()) })
	}
	counter := func(suffix, help string, v func(play.CacheStats) uint64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "azuld_" + name + "_" + suffix, Help: help}, func() float64 { return float64(v(stats())) })
	}
	reg.MustRegister(
		gauge("bytes", "Estimated memory of the "+what+".", func(s play.CacheStats) float64 { return float64(s.Bytes) }),
		gauge("max_bytes", "Budget of the "+what+" (0: bounded by entries).", func(s play.CacheStats) float64 { return float64(s.MaxBytes) }),
		gauge("entries", "Number of "+what+".", func(s play.CacheStats) float64 { return float64(s.Entries) }),
		counter("hits_total", "Lookups of the "+what+" that found one.", func(s play.CacheStats) uint64 { return s.Hits }),
		counter("misses_total", "Lookups of the "+what+" that found none.", func(s play.CacheStats) uint64 { return s.Misses }),
		counter("evictions_total", "Least recently used "+what+" dropped to stay within the bounds.", func(s play.CacheStats) uint64 { return s.Evictions }),
	)
}

// registerLimiterMetrics exposes the fast rate limits' memory.
func registerLimiterMetrics(reg prometheus.Registerer, limiter *limits.Limiter) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "azuld_rate_limit_cells",
			Help: "Keys the fast rate limits hold in this replica's memory.",
		}, func() float64 { return float64(limiter.Cells()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "azuld_rate_limit_overflow_total",
			Help: "Events of fast rate limits decided in the database because this replica held its most keys.",
		}, func() float64 { return float64(limiter.Overflow()) }),
	)
}
