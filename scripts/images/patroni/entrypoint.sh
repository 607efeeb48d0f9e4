#!/bin/bash
# Entry point of azuld-local/patroni. Started as root, it makes the
# volumes' directories the postgres user's (a new volume is root's), then
# runs the command as postgres: Patroni, which runs PostgreSQL, with the
# backup schedule beside it, and with AZUL_RESTORE_TARGET set a cluster
# that does not exist yet is restored from the backups (azuld-restore).
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

if [ "${1:-}" = patroni ] && [ $# -eq 2 ]; then
	# Scheduled backups, on whichever node is the primary (see
	# azuld-backup-schedule); its log goes to the container's.
	azuld-backup-schedule &
	if [ -n "${AZUL_RESTORE_TARGET:-}" ]; then
		# A new cluster is made from the backup repository instead of by
		# initdb: Patroni reads a directory of files in order, so the
		# mounted configuration stays as it is and one more file picks
		# the bootstrap method (azuld-restore). It matters only while no
		# cluster exists in etcd; a running cluster ignores it.
		conf=$(mktemp -d /tmp/patroni.XXXXXX)
		ln -s "$2" "$conf/00-patroni.yml"
		printf 'bootstrap:\n  method: pgbackrest\n' >"$conf/50-restore.yml"
		echo "azuld-patroni: a new cluster would be restored from the backups ($AZUL_RESTORE_TARGET)" >&2
		exec "$1" "$conf"
	fi
fi
exec "$@"
