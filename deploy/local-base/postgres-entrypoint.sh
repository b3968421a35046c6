#!/bin/sh
# postgres as `postgres`; a first start makes the cluster (POSTGRES_USER the superuser, password
# authentication from other hosts) and POSTGRES_DB, as the registry's image does.
set -e
[ "${1#-}" != "$1" ] && set -- postgres "$@"
if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set}"
  user="${POSTGRES_USER:-postgres}"
  password_file="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" > "$password_file"
  initdb -D "$PGDATA" -U "$user" --pwfile="$password_file" --auth-local=trust --auth-host=scram-sha-256
  rm -f "$password_file"
  printf 'host all all all scram-sha-256\n' >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  database="${POSTGRES_DB:-$user}"
  [ "$database" = postgres ] || createdb -U "$user" "$database"
  pg_ctl -D "$PGDATA" -m fast -w stop
fi
[ "$1" = postgres ] && set -- "$@" -c listen_addresses='*'
exec "$@"
