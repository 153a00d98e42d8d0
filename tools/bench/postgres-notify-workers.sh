#!/usr/bin/env bash
# The 1M-subscription notify run on PostgreSQL with 1, 2 and 3 workers, and two builds side
# by side (issue #25, goal 3). A throwaway PostgreSQL cluster (Debian's stock settings: fsync
# and synchronous_commit on) gets the notifier benchmark's data; then, for each round, each
# binary runs the whole notify run with one worker, then (the first binary only) with two and
# three workers started together, sharing the run. In-process push sender, mock Open-Meteo,
# the frozen clock of 2026-09-20T12:00Z; the outbox and run tables are emptied before each run.
# Each round also runs the first binary in process on a fresh copy of the SQLite file (the
# peer of "one worker ≤ 1.5× SQLite"). At the end, the cluster's own write path: pgbench with
# 1, 2 and 3 clients, each transaction a chunk of 5,000 outbox rows written in box order and
# then marked delivered (a run's chunk and its outcomes, without Frostbox), into a copy of
# `outbox` with its indexes — how far parallel writers scale on this machine's engine.
#
#   tools/bench/postgres-notify-workers.sh GENERATED.sqlite NAME=BENCH_NOTIFIER [NAME=BENCH_NOTIFIER…] [ROUNDS=2]
#   GENERATED.sqlite: from `bench-notifier generate --db … --subscriptions 1000000 --boxes 100000`
#   SCHEMA_BIN: the frostbox that creates the schema (default: this tree's release build).
set -euo pipefail
cd "$(dirname "$0")/../.."
GEN=$1; shift
BINARIES=()
while [ $# -gt 0 ] && [[ "$1" == *=* ]]; do BINARIES+=("$1"); shift; done
ROUNDS=${1:-2}
NOW=1789905600
REL=.build-release/release
for product in frostbox mock-open-meteo; do
  [ -x "$REL/$product" ] || swift build -c release --scratch-path .build-release --product "$product"
done
source tools/bench/postgres-common.sh
start_cluster pgworkers
# The schema: the newest binary's frostbox creates it.
P=$(free_port)
FROSTBOX_LOG_LEVEL=warning FROSTBOX_PLACES_SEED_PATH= FROSTBOX_DATABASE_URL="$URL" "${SCHEMA_BIN:-$REL/frostbox}" serve --port "$P" --db "$WORK/places.sqlite" >"$WORK/serve.log" 2>&1 & SERVE=$!
for _ in $(seq 150); do curl -sf "http://127.0.0.1:$P/ready" >/dev/null && break; sleep 0.2; done
kill $SERVE; wait $SERVE 2>/dev/null || true
load_generated "$GEN"
start_mock_open_meteo "$NOW"
reset_run() {
  psql -d frostbox -c "TRUNCATE outbox, outbox_push, notify_run, run_worker, run_box, box_fetch, forecast_cache, quota_charge CASCADE" -c "VACUUM ANALYZE" -c "CHECKPOINT"
}
# summary FILE: a run's store and total times, alerts planned and delivered, and its time line.
summary() {
  echo "$(grep -o 'store=[0-9]*ms\|duration=[0-9]*ms\|planned=[0-9]*\|delivered=[0-9]*' "$1" | head -4 | tr '\n' ' ')$(tail -1 "$1")"
}
# workers NAME BIN N: N processes started together; prints each one's summary line and the wall time of the last.
workers() {
  local name=$1 bin=$2 n=$3 pids=() start cpu
  reset_run
  cpu=$(cluster_cpu)
  start=$(date +%s.%N)
  for i in $(seq "$n"); do
    ( /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KiB max RSS" \
        "$bin" run --database-url "$URL" --db "$WORK/w$i.sqlite" --forecast-url "$OM" --now "$NOW" > "$WORK/w$i.txt" 2>&1 ) &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "-- $name, $n worker(s): $(seconds_since "$start") s until the last ended; the cluster used $(python3 -c "print(round($(cluster_cpu) - $cpu, 1))") s of CPU"
  for i in $(seq "$n"); do
    echo "   worker $i: $(summary "$WORK/w$i.txt")"
    echo "     $(grep -E '^planning|^alerts planned' "$WORK/w$i.txt" | tr '\n' ';')"
  done
}
# sqlite NAME BIN: the same run in process on a fresh copy of the generated SQLite file.
sqlite() {
  local name=$1 bin=$2 start
  cp "$GEN" "$WORK/sqlite-run.sqlite"; rm -f "$WORK/sqlite-run.sqlite-wal" "$WORK/sqlite-run.sqlite-shm"
  start=$(date +%s.%N)
  /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KiB max RSS" \
    "$bin" run --db "$WORK/sqlite-run.sqlite" --forecast-url "$OM" --now "$NOW" > "$WORK/sqlite.txt" 2>&1
  echo "-- $name, SQLite in process: $(seconds_since "$start") s"
  echo "   $(summary "$WORK/sqlite.txt")"
  rm -f "$WORK/sqlite-run.sqlite"*
}
for round in $(seq "$ROUNDS"); do
  echo "== round $round"
  first=${BINARIES[0]}
  sqlite "${first%%=*}" "${first#*=}"
  for entry in "${BINARIES[@]}"; do workers "${entry%%=*}" "${entry#*=}" 1; done
  workers "${first%%=*}" "${first#*=}" 2
  workers "${first%%=*}" "${first#*=}" 3
done

# The engine alone: a chunk of 5,000 rows in box order and its outcomes per transaction.
psql -d frostbox -c "CREATE TABLE outbox_pgbench (LIKE outbox INCLUDING ALL)"
cat > "$WORK/chunk.sql" <<'SQL'
\set chunk random(1, 1000000000)
BEGIN;
INSERT INTO outbox_pgbench (device_id, box, night, level, kind, push_id, status, attempts, created_at, expires_at, run_id,
                            claimed_by, claim_run)
SELECT (:chunk::bigint * 7 + g) % 500000 + 1, :chunk::bigint * 1000 + g / 11, 20260920, 2, 'frost', 1, 'pending', 0, 1, 2, 1, 'w', 1
FROM generate_series(1, 5000) AS g;
UPDATE outbox_pgbench SET status = 'delivered', attempts = 1, last_attempt_at = 3, delivered_at = 3, delivered_message_id = 'm'
WHERE box BETWEEN :chunk::bigint * 1000 AND :chunk::bigint * 1000 + 999 AND status = 'pending';
COMMIT;
SQL
# The same with the chunk's devices locked first, as the writer locks them (2,500 devices at random).
sed 's/^BEGIN;$/BEGIN;\
SELECT count(*) FROM (SELECT id FROM device WHERE id = ANY(ARRAY(SELECT abs(hashint8(:chunk::bigint * 2500 + g)) % 500000 + 1\
    FROM generate_series(1, 2500) AS g)) ORDER BY id FOR KEY SHARE) AS locked;/' "$WORK/chunk.sql" > "$WORK/chunk-locked.sql"
for script in chunk chunk-locked; do
  for clients in 1 2 3; do
    psql -d frostbox -c "TRUNCATE outbox_pgbench" -c "CHECKPOINT"
    tps=$(as_pg "$PGBIN/pgbench" -h 127.0.0.1 -p "$PGPORT" -U frostbox -n -f "$WORK/$script.sql" -c "$clients" -j "$clients" -T 20 frostbox \
      | awk '/^tps/ {print $3}')
    echo "-- pgbench $script, $clients client(s): $tps chunks/s = $(python3 -c "print(round($tps * 5000))") rows written and marked delivered a second"
  done
done
