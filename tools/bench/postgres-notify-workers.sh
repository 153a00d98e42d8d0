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
REL=.build-release/release
for product in frostbox mock-open-meteo; do
  [ -x "$REL/$product" ] || swift build -c release --scratch-path .build-release --product "$product"
done
source tools/bench/postgres-common.sh
start_cluster pgworkers
# The schema: the newest binary's frostbox creates it.
P=$(free_port)
FROSTBOX_LOG_LEVEL=warning FROSTBOX_PLACES_SEED_PATH= FROSTBOX_DATABASE_URL="$URL" "$REL/frostbox" serve --port "$P" --db "$WORK/places.sqlite" >"$WORK/serve.log" 2>&1 & SERVE=$!
for _ in $(seq 150); do curl -sf "http://127.0.0.1:$P/ready" >/dev/null && break; sleep 0.2; done
kill $SERVE; wait $SERVE 2>/dev/null || true
load_generated "$GEN"
start_mock_open_meteo "$NOW"
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
  echo "-- $name, $n worker(s): $(seconds_since "$start") s until the last ended"
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
