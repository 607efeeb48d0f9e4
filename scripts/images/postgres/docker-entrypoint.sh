#!/bin/bash
# Entry point of azuld-local/postgres: PostgreSQL from Debian's packages,
# behaving like the official postgres image's entry point for what clients
# of that image rely on:
#   - POSTGRES_PASSWORD, POSTGRES_USER (default postgres), POSTGRES_DB
#     (default: the user), POSTGRES_INITDB_ARGS, POSTGRES_HOST_AUTH_METHOD,
#     PGDATA;
#   - scripts in /docker-entrypoint-initdb.d (*.sh, *.sql, *.sql.gz) run
#     once, against a temporary server that listens on the socket only;
#   - arguments starting with "-" are passed to postgres (-c fsync=off);
#   - the log lines "database system is ready to accept connections" (once
#     for the temporary server, once for the real one) and "PostgreSQL init
#     process complete; ready for start up.", which testcontainers' postgres
#     module and health checks wait for;
#   - started as root, it owns its directories and then runs as postgres.
set -Eeuo pipefail

PGBIN=/usr/lib/postgresql/${PG_MAJOR}/bin
export PATH="$PGBIN:$PATH"
: "${PGDATA:=/var/lib/postgresql/data}"
export PGDATA

# Arguments that start with "-" are postgres options.
if [ "$#" -eq 0 ] || [ "${1:0:1}" = '-' ]; then
	set -- postgres "$@"
fi

if [ "$1" != postgres ]; then
	exec "$@"
fi

if [ "$(id -u)" = 0 ]; then
	mkdir -p "$PGDATA" /var/run/postgresql
	chmod 00700 "$PGDATA"
	chmod 03775 /var/run/postgresql
	find "$PGDATA" \! -user postgres -exec chown postgres:postgres '{}' +
	chown postgres:postgres /var/run/postgresql
	exec setpriv --reuid=postgres --regid=postgres --init-groups "$BASH_SOURCE" "$@"
fi

mkdir -p "$PGDATA" /var/run/postgresql 2>/dev/null || true
chmod 00700 "$PGDATA" 2>/dev/null || true

if [ ! -s "$PGDATA/PG_VERSION" ]; then
	POSTGRES_USER=${POSTGRES_USER:-postgres}
	POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
	POSTGRES_HOST_AUTH_METHOD=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
	if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
		cat >&2 <<-'EOM'
		Error: Database is uninitialized and superuser password is not specified.
		       You must specify POSTGRES_PASSWORD to a non-empty value for the
		       superuser. For example, "-e POSTGRES_PASSWORD=password" on "docker run".
		       To allow all connections without a password, set
		       POSTGRES_HOST_AUTH_METHOD=trust (never do that outside a test).
		EOM
		exit 1
	fi

	# shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of words
	initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "${POSTGRES_PASSWORD:-}") \
		--encoding=UTF8 --locale=C.UTF-8 ${POSTGRES_INITDB_ARGS:-}
	printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
	printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >>"$PGDATA/pg_hba.conf"

	# The temporary server listens on the socket only, so nobody connects
	# before the database is ready.
	pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
	export PGPASSWORD="${POSTGRES_PASSWORD:-}"
	psql=(psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER" --dbname postgres)
	if [ "$POSTGRES_DB" != postgres ]; then
		"${psql[@]}" --set db="$POSTGRES_DB" <<-'EOSQL'
			CREATE DATABASE :"db";
		EOSQL
	fi
	psql+=(--dbname "$POSTGRES_DB")
	shopt -s nullglob
	for f in /docker-entrypoint-initdb.d/*; do
		case "$f" in
		*.sh)
			if [ -x "$f" ]; then
				echo "$0: running $f"
				"$f"
			else
				echo "$0: sourcing $f"
				# shellcheck disable=SC1090
				. "$f"
			fi
			;;
		*.sql) echo "$0: running $f"; "${psql[@]}" -f "$f" ;;
		*.sql.gz) echo "$0: running $f"; gunzip -c "$f" | "${psql[@]}" ;;
		*) echo "$0: ignoring $f" ;;
		esac
	done
	unset PGPASSWORD
	pg_ctl -D "$PGDATA" -m fast -w stop
	echo
	echo 'PostgreSQL init process complete; ready for start up.'
	echo
else
	echo
	echo 'PostgreSQL Database directory appears to contain a database; Skipping initialization'
	echo
fi

exec "$@"
