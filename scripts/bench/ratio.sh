#!/usr/bin/env bash
# ratio.sh: azuld's moves per second against pgbench's bare version-checked
# append (api/bench/baseline.sql), end to end and on equal terms: one
# durable local PostgreSQL (fsync and synchronous_commit on), azuld serve
# and `azul-load play` in processes of their own, pgbench with as many
# clients, the two alternating at 1, 8 and 32 clients. Prints a table:
# moves/s and the move's p99 (azul-load), pgbench's TPS and p99 (from its
# per-transaction log), their ratio, and the CPU time per move of azuld and
# of PostgreSQL (from /proc/<pid>/stat over the run, divided by the moves
# or transactions).
#
#   scripts/bench/ratio.sh                 # 20 s per run, one round
#   DURATION=30 ROUNDS=2 CLIENTS="1 8 32" scripts/bench/ratio.sh
#
# Needs PostgreSQL's server binaries (initdb, pg_ctl; PGBIN or on PATH),
# psql, pgbench, Go, curl and jq. WORK (default /tmp/azul-bench) holds the
# cluster, the binaries and the logs; the cluster is stopped at the end.
# RULESET narrows azul-load's rule sets (default: all three in turn).
#
# PROFILE=1 takes a CPU profile of azuld (AZUL_PPROF_ADDR) during each
# run at the largest client count and prints its top functions;
# the profiles stay in WORK (go tool pprof WORK/azuld-N-R.pprof).

source "$(dirname "$0")/lib.sh"

DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-1}
CLIENTS=${CLIENTS:-1 8 32}
RULESET=${RULESET:-}
PROFILE=${PROFILE:-0}
PPROF_ADDR=${PPROF_ADDR:-127.0.0.1:16060}

trap 'stop_azuld; stop_cluster' EXIT
build
start_cluster
"$PGBIN/psql" -qX -h 127.0.0.1 -p "$PGPORT" -U postgres -d "$DB" -f "$ROOT/api/bench/setup.sql" >/dev/null
if [ "$PROFILE" = 1 ]; then start_azuld AZUL_PPROF_ADDR="$PPROF_ADDR"; else start_azuld; fi

ruleset=()
if [ -n "$RULESET" ]; then ruleset=(-ruleset "$RULESET"); fi

# A short warm-up: connections, caches, the first games' pages.
"$WORK/azul-load" play -url "http://$HTTP_ADDR" -clients 8 -duration 5s -quiet "${ruleset[@]}" >/dev/null

# azul_run N: one azul-load run; prints moves/s, p99, azuld µs/move, PG µs/move.
azul_run() {
	local n=$1 a0 p0 a1 p1 out
	a0=$(cpu_ticks "$AZULD_PID"); p0=$(pg_ticks)
	out=$("$WORK/azul-load" play -url "http://$HTTP_ADDR" -clients "$n" -duration "${DURATION}s" -quiet -json "${ruleset[@]}")
	a1=$(cpu_ticks "$AZULD_PID"); p1=$(pg_ticks)
	echo "$out" >"$WORK/azul-load-$n.json"
	echo "$out" | jq -r --argjson da $((a1 - a0)) --argjson dp $((p1 - p0)) --argjson tick "$TICK" \
		'[.moves_per_second, .move_latency.p99_ms, ($da / $tick * 1e6 / .moves), ($dp / $tick * 1e6 / .moves), .error_count] | @tsv'
}

# pgbench_run N: one pgbench run; prints TPS, p99 (ms), PG µs/transaction.
pgbench_run() {
	local n=$1 p0 p1 out dir
	dir=$(mktemp -d "$WORK/pgbench.XXXX")
	chmod 777 "$dir"
	p0=$(pg_ticks)
	out=$(cd "$dir" && PGOPTIONS="-c search_path=azuld_bench" "$PGBIN/pgbench" -n -M prepared \
		-f "$ROOT/api/bench/baseline.sql" -c "$n" -j "$n" -T "$DURATION" -l --log-prefix=tx \
		-h 127.0.0.1 -p "$PGPORT" -U postgres "$DB" 2>&1)
	p1=$(pg_ticks)
	local tps count p99
	tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p')
	# The per-transaction log: the third column is the latency in µs.
	read -r count p99 < <(cat "$dir"/tx.* | awk '{ print $3 }' | sort -n | awk '{ a[NR] = $1 } END { i = int(NR * 0.99 + 0.999999); if (i < 1) i = 1; printf "%d %.2f\n", NR, a[i] / 1000 }')
	rm -rf "$dir"
	awk -v tps="$tps" -v p99="$p99" -v dp=$((p1 - p0)) -v tick="$TICK" -v n="$count" \
		'BEGIN { printf "%s\t%s\t%.0f\n", tps, p99, dp / tick * 1e6 / n }'
}

printf '# %s, %s, %d CPUs, PostgreSQL %s, %s s a run\n' "$(date -u +%FT%TZ)" "$(uname -n)" "$(nproc)" \
	"$("$PGBIN/postgres" --version | awk '{ print $3 }')" "$DURATION"
printf '%-5s %-7s | %9s %9s | %9s %9s | %6s | %11s %11s | %12s | %s | %s\n' round clients "moves/s" "p99 ms" "pgb TPS" "p99 ms" ratio "azuld µs/mv" "PG µs/mv" "PG µs/txn" "load avg" errors
for round in $(seq "$ROUNDS"); do
	for n in $CLIENTS; do
		la=$(loadavg)
		prof=
		if [ "$PROFILE" = 1 ] && [ "$n" = "${CLIENTS##* }" ]; then
			prof="$WORK/azuld-$n-$round.pprof"
			curl -fs "http://$PPROF_ADDR/debug/pprof/profile?seconds=$((DURATION - 2))" -o "$prof" &
			prof_pid=$!
		fi
		read -r mps mp99 aus pus errs < <(azul_run "$n")
		if [ -n "$prof" ]; then
			wait "$prof_pid"
			go tool pprof -top -nodecount 20 "$WORK/azuld" "$prof" 2>/dev/null | sed 's/^/# /' >&2
		fi
		read -r tps tp99 tus < <(pgbench_run "$n")
		ratio=$(awk -v a="$mps" -v b="$tps" 'BEGIN { printf "%.2f", a / b }')
		printf '%-5s %-7s | %9.1f %9.2f | %9.1f %9.2f | %6s | %11.0f %11.0f | %12s | %s | %s\n' \
			"$round" "$n" "$mps" "$mp99" "$tps" "$tp99" "$ratio" "$aus" "$pus" "$tus" "$la" "$errs"
	done
done
