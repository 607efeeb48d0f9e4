#!/bin/bash
# Run once by Patroni on the node that made the cluster (bootstrap.
# post_bootstrap in patroni.yml), with the superuser's connection string as
# its argument: the roles azuld needs (as deploy/postgres-init does for the
# single-node stack) and pgBackRest's stanza, so that WAL archiving works
# from the first segment on. After a restore from a backup, only the
# stanza's check is left to do.
set -euo pipefail
conn=$1
# A cluster restored from a backup (bootstrap.pgbackrest) has them already.
if [ "$(psql -XtAq "$conn" -c "SELECT 1 FROM pg_roles WHERE rolname = 'azuld'")" != 1 ]; then
	psql -v ON_ERROR_STOP=1 --no-psqlrc "$conn" \
		-v owner_password="${AZUL_PG_PASSWORD:?}" -v server_password="${AZUL_SERVER_PASSWORD:?}" <<'SQL'
CREATE ROLE azuld LOGIN PASSWORD :'owner_password';
CREATE DATABASE azuld OWNER azuld;
CREATE ROLE azuld_app NOLOGIN;
CREATE ROLE azuld_server LOGIN PASSWORD :'server_password' IN ROLE azuld_app;
SQL
fi
# On a restored cluster the stanza exists and matches: pgBackRest says so
# and succeeds.
pgbackrest --stanza=azuld stanza-create
