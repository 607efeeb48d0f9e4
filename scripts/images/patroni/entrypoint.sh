#!/bin/bash
# Entry point of azuld-local/patroni. Started as root, it makes the
# volumes' directories the postgres user's (a new volume is root's), then
# runs the command as postgres: Patroni, which runs PostgreSQL.
set -Eeuo pipefail

if [ "$(id -u)" = 0 ]; then
	for d in /var/lib/postgresql/data /var/lib/pgbackrest /var/log/pgbackrest /var/spool/pgbackrest /var/run/postgresql; do
		mkdir -p "$d"
		find "$d" \! -user postgres -exec chown postgres:postgres '{}' +
	done
	chmod 0700 /var/lib/postgresql/data
	chmod 03775 /var/run/postgresql
	exec setpriv --reuid=postgres --regid=postgres --init-groups "$BASH_SOURCE" "$@"
fi

exec "$@"
