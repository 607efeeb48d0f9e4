#!/usr/bin/env bash
# feel.sh: the latency a player feels, measured by `azul-load play -feel`
# against azuld serve on a durable local PostgreSQL (see ratio.sh for the
# cluster). azuld relays its mails through azul-load's SMTP server.
#
#   scripts/bench/feel.sh                   # 30 s per run, 1 and 32 clients
#   DURATION=60 CLIENTS="1 8 32" scripts/bench/feel.sh
#
# Two runs per client count:
#   - players by mail with a greedy bot seat: -bot-seat greedy
#     -feel mail,bot,web (each player waits for its turn mail before it
#     moves, so the run goes at the pace of the mails);
#   - players as fast as azuld answers: -feel web (the stream a web page
#     follows, under the full load of the clients).
# RUNS="mail,bot,web" keeps the first only. The JSON summaries are left in
# WORK (default /tmp/azul-bench).

source "$(dirname "$0")/lib.sh"

DURATION=${DURATION:-30}
CLIENTS=${CLIENTS:-1 32}
SMTP=${SMTP:-127.0.0.1:2526}
RUNS=${RUNS:-mail,bot,web web}
# AZULD_ENV: more settings of azuld, e.g. AZULD_ENV="AZUL_NOTIFY_WORKERS=16".
read -r -a azuld_env <<<"${AZULD_ENV:-}"

trap 'stop_azuld; stop_cluster' EXIT
build
start_cluster
# The load's players move by the API and then wait for their next turn
# mail, which azuld would hold back while they are "at the table".
start_azuld AZUL_SMTP_URL="smtp://$SMTP?tls=none" AZUL_AWAY_DELAY=0 "${azuld_env[@]}"

printf '# %s, %s, %d CPUs, PostgreSQL %s, %s s a run\n' "$(date -u +%FT%TZ)" "$(uname -n)" "$(nproc)" \
	"$("$PGBIN/postgres" --version | awk '{ print $3 }')" "$DURATION"
row='[.moves_per_second, .move_latency.p99_ms, (.feel | [.mail, .bot, .web] | map(if . == null then "-" else "\(.samples): \(.p50_ms)/\(.p90_ms)/\(.p99_ms)/\(.max_ms) (missing \(.missing), early \(.early))" end) | .[]), .error_count] | @tsv'
printf '%-7s %-10s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' clients run "moves/s" "move p99" "mail n: p50/p90/p99/max ms" "bot n: p50/p90/p99/max ms" "web n: p50/p90/p99/max ms" errors "load avg"
for n in $CLIENTS; do
	for run in $RUNS; do
		la=$(loadavg)
		args=(-feel "$run")
		if [ "$run" != web ]; then args+=(-bot-seat greedy -smtp-listen "$SMTP"); fi
		out=$("$WORK/azul-load" play -url "http://$HTTP_ADDR" -clients "$n" -duration "${DURATION}s" -quiet -json "${args[@]}")
		echo "$out" >"$WORK/feel-$n-${run//,/-}.json"
		printf '%-7s %-10s\t%s\t%s\n' "$n" "$run" "$(echo "$out" | jq -r "$row")" "$la"
	done
done
