#!/usr/bin/env bash
# Run once by the PostgreSQL image's entry point, when the data volume is
# new: the role azuld serves as (docs/configuration.md, "Database roles"). POSTGRES_USER
# owns the schema and migrates; azuld_server, a member of the group
# azuld_app that migration 000008 grants its rights to, may only read and
# append events, so a compromised server cannot rewrite a game's history.
set -euo pipefail
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
	-v server_password="$AZUL_SERVER_PASSWORD" <<'SQL'
CREATE ROLE azuld_app NOLOGIN;
CREATE ROLE azuld_server LOGIN PASSWORD :'server_password' IN ROLE azuld_app;
SQL
