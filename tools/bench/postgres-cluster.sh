#!/usr/bin/env bash
# PostgreSQL benchmarks, one run on one machine (release build only):
#   1. pgbench's built-in simple-update on the same throwaway cluster: the engine's own limit
#      for small durable transactions on this disk;
#   2. durable POST /add_location on PostgreSQL vs on SQLite vs GET /health, wrk, interleaved
#      rounds (two servers: one per database);
#   3. the notify run over the notifier benchmark's data on PostgreSQL, with one worker and
#      with two workers sharing the run (two processes started together).
# The cluster runs with Debian's stock settings (fsync and synchronous_commit on).
#
#   tools/bench/postgres-cluster.sh [rounds=3] [seconds=10] [connections=64] [subscriptions=1000000] [boxes=100000]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}; SECONDS_PER=${2:-10}; CONNS=${3:-64}; SUBS=${4:-1000000}; BOXES=${5:-100000}
NOW=1789905600
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
command -v sqlite3 >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3; }
REL=.build-release/release
for product in frostbox mock-open-meteo bench-notifier; do
  [ -x "$REL/$product" ] || swift build -c release --scratch-path .build-release --product "$product"
done
source tools/bench/postgres-common.sh
start_cluster pgbench pgbench

echo "== 1. pgbench simple-update (-c 16 -j 2 -T $SECONDS_PER), the engine's limit"
"$PGBIN/pgbench" -h 127.0.0.1 -p "$PGPORT" -U frostbox -i -s 10 -q pgbench >/dev/null 2>&1
"$PGBIN/pgbench" -h 127.0.0.1 -p "$PGPORT" -U frostbox -b simple-update -c 16 -j 2 -T "$SECONDS_PER" pgbench 2>/dev/null | grep -E "^tps|latency average"

echo "== 2. durable device writes: PostgreSQL vs SQLite vs GET /health (wrk -t2 -c$CONNS -d${SECONDS_PER}s)"
P_SQLITE=$(free_port); P_PG=$(free_port)
FROSTBOX_LIMITS_RATE_LIMIT_BURST=0 FROSTBOX_LIMITS_NEW_BOXES_PER_HOUR=0 FROSTBOX_LOG_LEVEL=warning FROSTBOX_PLACES_SEED_PATH= \
  "$REL/frostbox" serve --port "$P_SQLITE" --db "$WORK/sqlite.sqlite" > "$WORK/sqlite-server.log" 2>&1 & PIDS+=($!)
FROSTBOX_LIMITS_RATE_LIMIT_BURST=0 FROSTBOX_LIMITS_NEW_BOXES_PER_HOUR=0 FROSTBOX_LOG_LEVEL=warning FROSTBOX_PLACES_SEED_PATH= FROSTBOX_DATABASE_URL="$URL" \
  "$REL/frostbox" serve --port "$P_PG" --db "$WORK/pg-places.sqlite" > "$WORK/pg-server.log" 2>&1 & PIDS+=($!)
for port in "$P_SQLITE" "$P_PG"; do for _ in $(seq 150); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done; done
rate() { awk '/Requests\/sec/ {print $2}'; }
checked() { out=$(cat); if grep -q "Non-2xx" <<<"$out"; then echo "non-2xx responses in a round:" >&2; grep "Non-2xx" <<<"$out" >&2; exit 1; fi; rate <<<"$out"; }
for round in $(seq "$ROUNDS"); do
  trivial=$(wrk -t2 -c"$CONNS" -d"${SECONDS_PER}s" "http://127.0.0.1:$P_PG/health" | checked)
  lite=$(wrk -t2 -c"$CONNS" -d"${SECONDS_PER}s" -s tools/bench/add_location.lua "http://127.0.0.1:$P_SQLITE" | checked)
  pg=$(wrk -t2 -c"$CONNS" -d"${SECONDS_PER}s" -s tools/bench/add_location.lua "http://127.0.0.1:$P_PG" | checked)
  echo "round $round: GET /health $trivial req/s; POST /add_location SQLite $lite req/s, PostgreSQL $pg req/s; PostgreSQL/health $(python3 -c "print(f'{$pg/$trivial:.2f}')"), PostgreSQL/SQLite $(python3 -c "print(f'{$pg/$lite:.2f}')")"
done
# The same durable write as the API's, straight from pgbench (no HTTP, no Frostbox): what the
# engine itself sustains for this transaction on this machine.
cat > "$WORK/subscribe.sql" <<'SQL'
SELECT * FROM frostbox_subscribe(md5(random()::text || :client_id), 55 + random() * 15, 5 + random() * 25, (random() * 1000000)::bigint, 'Bench', 'C', 1, NULL, NULL, NULL, NULL, false, 50);
SQL
echo "pgbench running frostbox_subscribe directly (-c $CONNS -j 2 -T $SECONDS_PER):"
"$PGBIN/pgbench" -h 127.0.0.1 -p "$PGPORT" -U frostbox -n -f "$WORK/subscribe.sql" -c "$CONNS" -j 2 -T "$SECONDS_PER" frostbox 2>/dev/null | grep -E "^tps|latency average"
echo "subscriptions stored: SQLite $(sqlite3 "$WORK/sqlite.sqlite" 'select count(*) from subscription'), PostgreSQL $(psql -d frostbox -At -c 'select count(*) from subscription')"
for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; PIDS=()
psql -d frostbox -c "TRUNCATE device, subscription, outbox, outbox_push, notify_run, run_worker, run_box, box_fetch, forecast_cache, quota_charge CASCADE"

echo "== 3. notify run, $SUBS subscriptions in $BOXES boxes, on PostgreSQL: one worker, then two"
"$REL/bench-notifier" generate --db "$WORK/gen.sqlite" --subscriptions "$SUBS" --boxes "$BOXES" >/dev/null
load_generated "$WORK/gen.sqlite"
start_mock_open_meteo "$NOW"
reset_run() {
  psql -d frostbox -c "TRUNCATE outbox, outbox_push, notify_run, run_worker, run_box, box_fetch, forecast_cache, quota_charge CASCADE" -c "VACUUM ANALYZE"
}
echo "-- one worker"
reset_run
/usr/bin/time -f "worker: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
  "$REL/bench-notifier" run --database-url "$URL" --db "$WORK/w1.sqlite" --forecast-url "$OM" --now "$NOW" 2>&1
echo "-- two workers (two processes started together, sharing the run)"
reset_run
( /usr/bin/time -f "worker A: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
    "$REL/bench-notifier" run --database-url "$URL" --db "$WORK/wa.sqlite" --forecast-url "$OM" --now "$NOW" > "$WORK/a.txt" 2>&1 ) &
A=$!
( /usr/bin/time -f "worker B: %e s wall, %U s user, %S s sys, %M KiB max RSS" \
    "$REL/bench-notifier" run --database-url "$URL" --db "$WORK/wb.sqlite" --forecast-url "$OM" --now "$NOW" > "$WORK/b.txt" 2>&1 ) &
B=$!
wait $A $B
echo "worker A:"; cat "$WORK/a.txt"; echo "worker B:"; cat "$WORK/b.txt"
psql -d frostbox -At -c "select 'run ' || id || ' ' || status || ': boxes ' || boxes || ', planned ' || alerts_planned || ', delivered ' || alerts_delivered || ', ' || (finished_at - started_at) || ' s' from notify_run order by id"
