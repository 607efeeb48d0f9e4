# Shared by ratio.sh and feel.sh: a durable local PostgreSQL cluster, azuld
# serving it, and the CPU time of processes. Sourced, not run.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK=${WORK:-/tmp/azul-bench}
PGPORT=${PGPORT:-55433}
HTTP_ADDR=${HTTP_ADDR:-127.0.0.1:18090}
PGBIN=${PGBIN:-$(dirname "$(readlink -f "$(command -v pg_ctl)")")}
DB=azuld
DBURL="postgres://postgres@127.0.0.1:$PGPORT/$DB"
TICK=$(getconf CLK_TCK)

mkdir -p "$WORK"
# PostgreSQL refuses to run as root: the cluster then belongs to postgres.
if [ "$(id -u)" = 0 ]; then
	AS_PG=(runuser -u postgres --)
	chown postgres "$WORK"
else
	AS_PG=()
fi

build() {
	(cd "$ROOT" && go build -o "$WORK/azuld" ./cmd/azuld && go build -o "$WORK/azul-load" ./cmd/azul-load)
}

# start_cluster: a fresh durable cluster (fsync and synchronous_commit on,
# the defaults) with the settings of docs/LOAD.md, and azuld's schema.
start_cluster() {
	"${AS_PG[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -m fast stop >/dev/null 2>&1 || true
	rm -rf "$WORK/data"
	"${AS_PG[@]}" "$PGBIN/initdb" -D "$WORK/data" -U postgres --auth=trust >/dev/null
	"${AS_PG[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -w -l "$WORK/pg.log" \
		-o "-p $PGPORT -k /tmp -c listen_addresses=127.0.0.1 -c shared_buffers=512MB -c max_wal_size=4GB -c max_connections=200 -c fsync=on -c synchronous_commit=on" start >/dev/null
	"$PGBIN/psql" -qX -h 127.0.0.1 -p "$PGPORT" -U postgres -c "CREATE DATABASE $DB" >/dev/null
	AZUL_MIGRATE_DATABASE_URL=$DBURL "$WORK/azuld" migrate >/dev/null 2>&1
	PG_PID=$(head -1 "$WORK/data/postmaster.pid")
}

stop_cluster() {
	"${AS_PG[@]}" "$PGBIN/pg_ctl" -D "$WORK/data" -m fast stop >/dev/null 2>&1 || true
}

# The token that reads azuld's /metrics on its port (azul-load reads
# AZUL_METRICS_TOKEN for the follower's lag).
export AZUL_METRICS_TOKEN=${AZUL_METRICS_TOKEN:-bench-metrics-token}

# start_azuld [VAR=value...]: azuld serve on HTTP_ADDR, without rate limits
# or address verification, waiting until it is ready.
start_azuld() {
	env AZUL_DATABASE_URL="$DBURL" AZUL_HTTP_ADDR="$HTTP_ADDR" AZUL_RATE_LIMITS=off \
		AZUL_VERIFY_ADDRESSES=false AZUL_LOG_LEVEL=warn "$@" "$WORK/azuld" serve >>"$WORK/azuld.log" 2>&1 &
	AZULD_PID=$!
	for _ in $(seq 100); do
		if curl -fs "http://$HTTP_ADDR/readyz" >/dev/null 2>&1; then return 0; fi
		sleep 0.1
	done
	echo "azuld did not become ready; see $WORK/azuld.log" >&2
	return 1
}

stop_azuld() {
	if [ -n "${AZULD_PID:-}" ]; then
		kill "$AZULD_PID" 2>/dev/null || true
		wait "$AZULD_PID" 2>/dev/null || true
		AZULD_PID=
	fi
}

# cpu_ticks PID: the process's user and system time in clock ticks.
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# pg_ticks: the cluster's CPU time: the postmaster, its live children and
# the children it has reaped (cutime, cstime), so that connections that
# ended during a run are counted too. The children are read first: one
# that ends in between is then counted twice rather than not at all.
pg_ticks() {
	local total=0 c
	for c in $(ps -o pid= --ppid "$PG_PID"); do
		total=$((total + $(cpu_ticks "$c" 2>/dev/null || echo 0)))
	done
	echo $((total + $(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$PG_PID/stat")))
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
