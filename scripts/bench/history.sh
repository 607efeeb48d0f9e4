#!/usr/bin/env bash
# history.sh: what azuld costs as its history grows (docs/LOAD.md, "Costs
# by history size"). For each size N, a database of the durable local
# cluster (see lib.sh) holds N finished games and RUNNING running ones
# (`azul-load history`), and against azuld serving it the script measures:
#   - moves at 1 and 32 clients (`azul-load play`), with the follower's
#     lag from azuld's /metrics;
#   - the reads players make (`azul-load probe`): lobby, watch list,
#     inbox, a player's games, the finished list, a running game loaded
#     and folded, a finished game replayed at a random version, its
#     export, the leaderboard, a player's profile, an analysis queued;
#     and the bytes per event and per game;
#   - `azuld projections rebuild` (seconds, before azuld starts: it also
#     rates the generated games) and a full backup (pg_dump -Fc: seconds
#     and bytes, azuld stopped).
# Each size's JSON is left in WORK (history-N.json); a Markdown table of
# all of them is printed at the end.
#
#   scripts/bench/history.sh                       # 0, 10k and 100k finished, 10k running
#   SIZES="0 1000" RUNNING=200 DURATION=5 SAMPLES=20 scripts/bench/history.sh   # the short form
#
# FRESH=0 keeps the cluster in WORK and the databases already generated
# (h<N>), so a size is generated once and measured again; a cluster that
# is running already is used as it is and left running. MOVER (random
# or greedy) chooses the history's moves. Needs what ratio.sh needs, and
# pg_dump.

source "$(dirname "$0")/lib.sh"

SIZES=${SIZES:-0 10000 100000}
RUNNING=${RUNNING:-10000}
MOVER=${MOVER:-random}
SAMPLES=${SAMPLES:-200}
DURATION=${DURATION:-20}
CLIENTS=${CLIENTS:-1 32}
FRESH=${FRESH:-1}
# TABLE_ONLY=1 prints the table of the sizes measured before, from WORK.
TABLE_ONLY=${TABLE_ONLY:-0}
PSQL=("$PGBIN/psql" -qXAt -h 127.0.0.1 -p "$PGPORT" -U postgres)

if [ "$TABLE_ONLY" = 1 ]; then
	SIZES_TO_MEASURE=""
else
	SIZES_TO_MEASURE=$SIZES
	build
fi
if [ "$TABLE_ONLY" = 1 ]; then
	:
elif [ "$FRESH" = 0 ] && "${AS_PG[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" status >/dev/null 2>&1; then
	# A cluster already running (another size still being generated in
	# it, say) is used and left running.
	trap 'stop_azuld' EXIT
	PG_PID=$(head -1 "$WORK/data/postmaster.pid")
elif [ "$FRESH" = 0 ] && [ -f "$WORK/data/PG_VERSION" ]; then
	trap 'stop_azuld; stop_cluster' EXIT
	"${AS_PG[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -w -l "$WORK/pg.log" \
		-o "-p $PGPORT -k /tmp -c listen_addresses=127.0.0.1 -c shared_buffers=512MB -c max_wal_size=4GB -c max_connections=200" start >/dev/null
	PG_PID=$(head -1 "$WORK/data/postmaster.pid")
else
	trap 'stop_azuld; stop_cluster' EXIT
	start_cluster
fi

# seconds CMD...: runs CMD and prints its wall time in seconds.
seconds() {
	local begun
	begun=$(date +%s%N)
	"$@" >&2
	awk -v ns=$(($(date +%s%N) - begun)) 'BEGIN { printf "%.2f", ns / 1e9 }'
}

for n in $SIZES_TO_MEASURE; do
	db="h$n"
	url="postgres://postgres@127.0.0.1:$PGPORT/$db"
	if [ -z "$("${PSQL[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" ]; then
		"${PSQL[@]}" -c "CREATE DATABASE $db"
		AZUL_MIGRATE_DATABASE_URL=$url "$WORK/azuld" migrate >/dev/null 2>&1
		echo "== $db: generating $n finished and $RUNNING running games (load $(loadavg))" >&2
		"$WORK/azul-load" history -database "$url" -finished "$n" -running "$RUNNING" -mover "$MOVER" -json -quiet >"$WORK/generate-$n.json"
	fi
	# The rebuild first: it times the rebuild of the whole history, and it
	# rates the generated games (the generator writes no ratings), so the
	# leaderboard and the profiles are read with ratings.
	rebuild_s=$(seconds env AZUL_DATABASE_URL="$url" AZUL_LOG_LEVEL=warn "$WORK/azuld" projections rebuild)
	"${PSQL[@]}" -d "$db" -c "VACUUM ANALYZE"
	# The rebuild and the vacuum leave gigabytes of dirty pages and WAL:
	# a checkpoint now, rather than one that writes them out during the
	# measurement (moves then waited on WALSync: 8 moves/s instead of 390).
	"${PSQL[@]}" -c "CHECKPOINT"
	DBURL=$url
	start_azuld
	echo "== $db: measuring (load $(loadavg))" >&2
	plays=()
	for c in $CLIENTS; do
		"$WORK/azul-load" play -url "http://$HTTP_ADDR" -clients "$c" -duration "${DURATION}s" -json -quiet >"$WORK/play-$n-$c.json"
		plays+=("$WORK/play-$n-$c.json")
	done
	"$WORK/azul-load" probe -url "http://$HTTP_ADDR" -database "$url" -samples "$SAMPLES" -analysis -json -quiet >"$WORK/probe-$n.json"
	load=$(loadavg)
	stop_azuld
	rm -f "$WORK/dump-$n"
	dump_s=$(seconds "$PGBIN/pg_dump" -h 127.0.0.1 -p "$PGPORT" -U postgres -Fc -f "$WORK/dump-$n" "$db")
	dump_bytes=$(stat -c %s "$WORK/dump-$n")
	rm -f "$WORK/dump-$n"
	jq -n --argjson n "$n" --arg load "$load" --argjson dump_s "$dump_s" --argjson dump_bytes "$dump_bytes" \
		--argjson rebuild_s "$rebuild_s" --slurpfile probe "$WORK/probe-$n.json" --slurpfile plays <(cat "${plays[@]}") \
		'{finished: $n, load: $load, probe: $probe[0], plays: $plays, dump_seconds: $dump_s, dump_bytes: $dump_bytes, rebuild_seconds: $rebuild_s}' \
		>"$WORK/history-$n.json"
	echo "== $db: done (load $(loadavg))" >&2
done

# The table: one column per size.
files=()
for n in $SIZES; do files+=("$WORK/history-$n.json"); done
jq -rs '
	def r(x): (x * 10 | round) / 10;
	def row(name; f): "| \(name) | " + (map(f | tostring) | join(" | ")) + " |";
	def lat(k): .probe.latency[k] | "\(r(.p50_ms)) / \(r(.p99_ms))";
	def play(c): (.plays[] | select(.clients == c));
	(["| finished games (+ running) | " + (map("\(.finished) (+\(.probe.size.running_games))") | join(" | ")) + " |",
	  "|---|" + (map("---|") | join(""))]
	 + [row("events"; .probe.size.events),
	    row("move p50 / p99 ms, 1 client"; play(1) | "\(r(.move_latency.p50_ms)) / \(r(.move_latency.p99_ms)) (\(r(.moves_per_second))/s)"),
	    row("move p50 / p99 ms, 32 clients"; play(32) | "\(r(.move_latency.p50_ms)) / \(r(.move_latency.p99_ms)) (\(r(.moves_per_second))/s)"),
	    row("follower lag p50 / p99 ms, 32 clients"; play(32) | .follower_lag | if . then "\(r(.p50_ms)) / \(r(.p99_ms))" else "—" end),
	    row("lobby p50 / p99 ms"; lat("lobby")),
	    row("watch list p50 / p99 ms"; lat("watch")),
	    row("turn inbox p50 / p99 ms"; lat("inbox")),
	    row("a player'"'"'s games p50 / p99 ms"; lat("my_games")),
	    row("finished games list p50 / p99 ms"; lat("finished_list")),
	    row("running game loaded and folded p50 / p99 ms"; lat("load_running")),
	    row("replay at a random version p50 / p99 ms"; lat("replay")),
	    row("export p50 / p99 ms"; lat("export")),
	    row("leaderboard p50 / p99 ms"; lat("leaderboard")),
	    row("a player'"'"'s profile p50 / p99 ms"; lat("profile")),
	    row("analysis queued p50 / p99 ms"; lat("analysis_enqueue")),
	    row("bytes per event (rows + indexes + TOAST)"; .probe.size | ((.events_heap_bytes + .events_index_bytes + .events_toast_bytes) / ([.events, 1] | max) | round)),
	    row("events: rows / indexes / TOAST MB"; .probe.size | "\(.events_heap_bytes / 1048576 | round) / \(.events_index_bytes / 1048576 | round) / \(.events_toast_bytes / 1048576 | round)"),
	    row("database MB (bytes per game)"; .probe.size | "\(.database_bytes / 1048576 | round) (\(.database_bytes / ([.games, 1] | max) | round))"),
	    row("pg_dump -Fc s (MB)"; "\(r(.dump_seconds)) (\(.dump_bytes / 1048576 | round))"),
	    row("projections rebuild s"; r(.rebuild_seconds)),
	    row("load average at the end"; .load)])
	| .[]' "${files[@]}"
