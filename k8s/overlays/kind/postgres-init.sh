#!/bin/bash
# Runs once, when the PostgreSQL data directory is first initialised (docker-entrypoint-initdb.d): one login
# role and one database per service, each database owned by its role, so no service can read another's data.
# Passwords come from the postgres-credentials Secret (<SERVICE>_DB_PASSWORD); psql variables quote them.
set -euo pipefail
for svc in auth platform search gis; do
  var="$(printf '%s' "$svc" | tr '[:lower:]' '[:upper:]')_DB_PASSWORD"
  password="${!var:?$var is not set}"
  psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    --set=role="dtp_$svc" --set=password="$password" <<'EOSQL'
CREATE ROLE :"role" LOGIN PASSWORD :'password';
CREATE DATABASE :"role" OWNER :"role";
REVOKE ALL ON DATABASE :"role" FROM PUBLIC;
EOSQL
  echo "created database dtp_$svc"
done
