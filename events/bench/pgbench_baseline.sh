#!/bin/sh
# pgbench_baseline.sh URL [CLIENTS...]: the pgbench baseline of
# BenchmarkAppend: a bare single-row INSERT of the same ~300-byte jsonb
# (insert.sql), by 1, 8 and 32 clients (or those given), each client one
# connection and one thread, prepared statements. Run it against the
# server BenchmarkAppend used, e.g.
#
#   AZUL_TEST_DATABASE_URL=$URL go test ./events -run '^$' -bench Append
#   events/bench/pgbench_baseline.sh $URL
#
# BenchmarkPgbenchInsert runs the same script from `go test`, on the
# test server. URL must allow CREATE SCHEMA; AZUL_BENCH_SECONDS sets the
# length of each run (default 10).
set -eu
url=${1:?usage: pgbench_baseline.sh URL [CLIENTS...]}
shift
[ $# -gt 0 ] || set -- 1 8 32
seconds=${AZUL_BENCH_SECONDS:-10}
dir=$(dirname "$0")
psql -q -v ON_ERROR_STOP=1 -d "$url" -f "$dir/setup.sql"
case $url in
  *\?*) benchurl="$url&options=-csearch_path%3Dazuld_bench_insert" ;;
  *) benchurl="$url?options=-csearch_path%3Dazuld_bench_insert" ;;
esac
for c in "$@"; do
  printf 'clients=%s ' "$c"
  pgbench -n -M prepared -f "$dir/insert.sql" -c "$c" -j "$c" -T "$seconds" "$benchurl" 2>/dev/null |
    awk '/latency average/ {lat = $4} /^tps/ {tps = $3} END {printf "inserts/s=%s avg_latency_ms=%s\n", tps, lat}'
done
psql -q -d "$url" -c 'SET client_min_messages = warning; DROP SCHEMA azuld_bench_insert CASCADE'
