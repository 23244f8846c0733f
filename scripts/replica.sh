#!/usr/bin/env bash
# A streaming read replica of the local PostgreSQL server, for development and
# the replica test (docs/scale-out.md "Read replicas"). Run as root on a machine
# whose PostgreSQL is Debian's (as on the development and CI machines).
#
#   scripts/replica.sh start    make the standby if it does not exist (pg_basebackup), start it
#   scripts/replica.sh stop     stop it (it is kept on disk)
#   scripts/replica.sh remove   stop it and delete it
#   scripts/replica.sh url      print its address (TEST_REPLICA_URL)
#
# PRIMARY_PORT (5432) and REPLICA_PORT (5433) change the ports.
set -euo pipefail
PRIMARY_PORT=${PRIMARY_PORT:-5432}
REPLICA_PORT=${REPLICA_PORT:-5433}
PSQL=(psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -d postgres -Atq)
version=$("${PSQL[@]}" -c "SHOW server_version_num")
BIN=/usr/lib/postgresql/$((version / 10000))/bin
DIR=/var/lib/postgresql/replica-$REPLICA_PORT
as_postgres() { runuser -u postgres -- "$@"; }

case "${1:-}" in
  start)
    if [ ! -f "$DIR/standby.signal" ]; then
      # The primary accepts replication connections from loopback (trust, as its other local connections).
      hba=$("${PSQL[@]}" -c "SHOW hba_file")
      if ! grep -Eq '^host[[:space:]]+replication[[:space:]]+all[[:space:]]+127\.0\.0\.1/32' "$hba"; then
        echo "host replication all 127.0.0.1/32 trust" >> "$hba"
        "${PSQL[@]}" -c "SELECT pg_reload_conf()" > /dev/null
      fi
      rm -rf "$DIR"
      install -d -o postgres -g postgres -m 700 "$DIR"
      # -R writes standby.signal and primary_conninfo: the copy starts as a standby that streams from the primary.
      as_postgres "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$DIR" -R -X stream -c fast
      # A hot standby needs these at least as large as the primary's.
      settings=""
      for s in max_connections max_worker_processes max_wal_senders max_prepared_transactions max_locks_per_transaction; do
        settings+="$s = $("${PSQL[@]}" -c "SHOW $s")"$'\n'
      done
      as_postgres tee "$DIR/postgresql.conf" > /dev/null <<CONF
port = $REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '/tmp'
hot_standby = on
hot_standby_feedback = on
shared_buffers = 128MB
$settings
CONF
      as_postgres tee "$DIR/pg_hba.conf" > /dev/null <<CONF
local all all trust
host all all 127.0.0.1/32 trust
CONF
    fi
    if ! as_postgres "$BIN/pg_ctl" -D "$DIR" status > /dev/null 2>&1; then
      as_postgres "$BIN/pg_ctl" -D "$DIR" -l "$DIR/server.log" -w -t 120 start > /dev/null
    fi
    echo "replica of 127.0.0.1:$PRIMARY_PORT streaming on 127.0.0.1:$REPLICA_PORT"
    ;;
  stop)
    if [ -d "$DIR" ] && as_postgres "$BIN/pg_ctl" -D "$DIR" status > /dev/null 2>&1; then as_postgres "$BIN/pg_ctl" -D "$DIR" -m fast -w stop > /dev/null; fi
    ;;
  remove)
    bash "$0" stop
    rm -rf "$DIR"
    ;;
  url)
    echo "postgres://postgres@127.0.0.1:$REPLICA_PORT/postgres"
    ;;
  *)
    echo "usage: $0 start|stop|remove|url" >&2
    exit 2
    ;;
esac
