#!/usr/bin/env bash
# The 1M-subscription notify run on PostgreSQL with 1, 2 and 3 workers, and two builds side
# by side (issue #25, goal 3). A throwaway PostgreSQL cluster (Debian's stock settings: fsync
# and synchronous_commit on) gets the notifier benchmark's data; then, for each round, each
# binary runs the whole notify run with one worker, then (the first binary only) with two and
# three workers started together, sharing the run. In-process push sender, mock Open-Meteo,
# the frozen clock of 2026-09-20T12:00Z; the outbox and run tables are emptied before each run.
#
#   tools/bench/postgres-notify-workers.sh GENERATED.sqlite NAME=BENCH_NOTIFIER [NAME=BENCH_NOTIFIER…] [ROUNDS=2]
#   GENERATED.sqlite: from `bench-notifier generate --db … --subscriptions 1000000 --boxes 100000`
set -euo pipefail
cd "$(dirname "$0")/../.."
GEN=$1; shift
BINARIES=()
while [ $# -gt 0 ] && [[ "$1" == *=* ]]; do BINARIES+=("$1"); shift; done
ROUNDS=${1:-2}
NOW=1789905600
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
REL=.build-release/release
for product in frostbox mock-open-meteo; do
  [ -x "$REL/$product" ] || swift build -c release --scratch-path .build-release --product "$product"
done
WORK=$(mktemp -d /tmp/frostbox-pgworkers-XXXX); chmod 755 "$WORK"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/pg" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$WORK"
PGPORT=$(free_port)
as_pg "$PGBIN/initdb" -D "$WORK/pg" -U frostbox --auth=trust -E UTF8 --locale=C >/dev/null
as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" -o "-p $PGPORT -k $WORK -c listen_addresses=127.0.0.1 -c max_connections=200" -l "$WORK/pg.log" -w start >/dev/null
psql() { "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U frostbox -v ON_ERROR_STOP=1 -q "$@"; }
psql -d postgres -c "CREATE DATABASE frostbox"
URL="postgres://frostbox@127.0.0.1:$PGPORT/frostbox?sslmode=disable"
echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}')"
# The schema: the newest binary's frostbox creates it.
P=$(free_port)
FROSTBOX_LOG_LEVEL=warning FROSTBOX_PLACES_SEED_PATH= FROSTBOX_DATABASE_URL="$URL" "$REL/frostbox" serve --port "$P" --db "$WORK/places.sqlite" >"$WORK/serve.log" 2>&1 & SERVE=$!
for _ in $(seq 150); do curl -sf "http://127.0.0.1:$P/ready" >/dev/null && break; sleep 0.2; done
kill $SERVE; wait $SERVE 2>/dev/null || true
started=$(date +%s.%N)
sqlite3 -csv "$GEN" "select token, topic, environment, locale, created_at, registered_at from device" \
  | psql -d frostbox -c "\copy device (token, topic, environment, locale, created_at, registered_at) from stdin with (format csv)"
sqlite3 -csv "$GEN" "select token, latitude, longitude, box, name, unit, created_at, rule, frost_risk_c, freeze_c, hard_freeze_c, all_clear from subscription" \
  | psql -d frostbox -c "\copy subscription (token, latitude, longitude, box, name, unit, created_at, rule, frost_risk_c, freeze_c, hard_freeze_c, all_clear) from stdin with (format csv)"
psql -d frostbox -c "ANALYZE"
echo "loaded $(psql -d frostbox -At -c 'select count(*) from subscription') subscriptions in $(python3 -c "print(f'{$(date +%s.%N)-$started:.1f}')") s (not part of the runs)"
echo "{\"now\": $NOW}" > "$WORK/scenario.json"
"$REL/mock-open-meteo" --scenario "$WORK/scenario.json" > "$WORK/om-port.txt" 2>"$WORK/om.log" & PIDS+=($!)
for _ in $(seq 100); do [ -s "$WORK/om-port.txt" ] && break; sleep 0.1; done
OM="http://127.0.0.1:$(head -1 "$WORK/om-port.txt")"
reset_run() {
  psql -d frostbox -c "TRUNCATE outbox, outbox_push, notify_run, run_worker, run_box, box_fetch, forecast_cache, quota_charge CASCADE" -c "VACUUM ANALYZE" -c "CHECKPOINT"
}
# workers NAME BIN N: N processes started together; prints each one's summary line and the wall time of the last.
workers() {
  local name=$1 bin=$2 n=$3 pids=() start
  reset_run
  start=$(date +%s.%N)
  for i in $(seq "$n"); do
    ( /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KiB max RSS" \
        "$bin" run --database-url "$URL" --db "$WORK/w$i.sqlite" --forecast-url "$OM" --now "$NOW" > "$WORK/w$i.txt" 2>&1 ) &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "-- $name, $n worker(s): $(python3 -c "print(f'{$(date +%s.%N)-$start:.1f}')") s until the last ended"
  for i in $(seq "$n"); do
    echo "   worker $i: $(grep -o 'store=[0-9]*ms\|duration=[0-9]*ms\|planned=[0-9]*\|delivered=[0-9]*' "$WORK/w$i.txt" | head -4 | tr '\n' ' ')$(tail -1 "$WORK/w$i.txt")"
  done
}
for round in $(seq "$ROUNDS"); do
  echo "== round $round"
  for entry in "${BINARIES[@]}"; do workers "${entry%%=*}" "${entry#*=}" 1; done
  first=${BINARIES[0]}
  workers "${first%%=*}" "${first#*=}" 2
  workers "${first%%=*}" "${first#*=}" 3
done
