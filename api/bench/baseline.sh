#!/bin/sh
# baseline.sh URL [CLIENTS...] [SECONDS]: the version-checked append
# baseline (baseline.sql) with pgbench, for comparing with the end-to-end
# moves/s of BenchmarkMovesEndToEnd on the same server. URL must allow
# CREATE SCHEMA; the tables live in schema azuld_bench.
#
#   api/bench/baseline.sh postgres://postgres@127.0.0.1:5433/postgres 1 8 32
set -eu
url=${1:?usage: baseline.sh URL [CLIENTS...]}
shift
[ $# -gt 0 ] || set -- 1 8 32
seconds=${AZUL_BENCH_SECONDS:-10}
dir=$(dirname "$0")
psql -q -v ON_ERROR_STOP=1 -d "$url" -f "$dir/setup.sql"
case $url in
  *\?*) benchurl="$url&options=-csearch_path%3Dazuld_bench" ;;
  *) benchurl="$url?options=-csearch_path%3Dazuld_bench" ;;
esac
for c in "$@"; do
  printf 'clients=%s ' "$c"
  pgbench -n -M prepared -f "$dir/baseline.sql" -c "$c" -j "$c" -T "$seconds" "$benchurl" 2>/dev/null |
    awk '/latency average/ {lat = $4} /^tps/ {tps = $3} END {printf "tps=%s avg_latency_ms=%s\n", tps, lat}'
done
psql -q -d "$url" -c 'SET client_min_messages = warning; DROP SCHEMA azuld_bench CASCADE'
