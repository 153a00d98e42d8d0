#!/usr/bin/env bash
# Places that stay current without blocking the service (issue #14), release build, every
# comparison side by side in one run:
#   1. POST /v1/devices/{token}/subscriptions and GET /v1/places on an idle server: p50/p99
#      and non-2xx, wrk --latency, one thread and 2 connections each, both at once;
#   2. the same load while `frostbox import geonames` loads ROWS synthetic rows into that
#      server's places file (bulk: new name tables swapped in at the end);
#   3. a day of GeoNames changes (CHANGES modified rows, deletes, alternate names) applied in
#      place to the imported file, next to the 2 s goal; again (idempotent); 2× and 10× the day.
#
#   tools/bench/places-no-downtime.sh [ROWS=13400000] [WORKDIR=/tmp/frostbox-places-bench] [CHANGES=5000]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=${1:-13400000}
WORK=${2:-/tmp/frostbox-places-bench}
CHANGES=${3:-5000}
mkdir -p "$WORK"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
for product in frostbox geonames-generator; do
  swift build -c release --scratch-path .build-release --product "$product" >/dev/null 2>&1
done
BIN=.build-release/release
now() { date +%s.%N; }
seconds() { python3 -c "print(f'{$2 - $1:.2f}')"; }
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"

DUMP="$WORK/synthetic-$ROWS.txt"
[ -f "$DUMP" ] || "$BIN/geonames-generator" --rows "$ROWS" --output "$DUMP"
LIVE="$WORK/live-places.sqlite"
rm -f "$WORK"/live-places.sqlite* "$WORK"/live-devices.sqlite*

# shellcheck source=tools/bench/places-load.sh
source tools/bench/places-load.sh
nordic_urls

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
FROSTBOX_LOG_LEVEL=warning "$BIN/frostbox" serve --port "$PORT" --db "$WORK/live-devices.sqlite" \
  --set places.path="$LIVE" --set limits.rate_limit.burst=0 --set limits.new_boxes_per_hour=0 >"$WORK/live-server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null && break; sleep 0.2; done
echo "server up, places seeded: $(curl -s "http://127.0.0.1:$PORT/v1/places?q=hel&lat=60.2&lon=24.9&limit=1" | head -c 80)…"


echo "== 1. idle server, 60 s"
load 60 idle; wait $WRITE $SEARCH
summary "POST /v1/devices/{token}/subscriptions, idle" "$WORK/wrk-write-idle.txt"
summary "GET /v1/places, idle" "$WORK/wrk-search-idle.txt"

echo "== 2. the same load during frostbox import geonames of $ROWS rows into the server's places file"
load 0 import
start=$(now)
"$BIN/frostbox" import geonames "$DUMP" --set places.path="$LIVE" >"$WORK/live-import.txt" 2>"$WORK/live-import.progress"
took=$(seconds "$start" "$(now)")
kill -INT $WRITE $SEARCH; wait $WRITE $SEARCH || true
echo "import: $took s"; sed -n 1,4p "$WORK/live-import.txt"
summary "POST /v1/devices/{token}/subscriptions, during the import" "$WORK/wrk-write-import.txt"
summary "GET /v1/places, during the import" "$WORK/wrk-search-import.txt"
echo "after the import, same server: $(curl -s "http://127.0.0.1:$PORT/v1/places?q=ka&limit=1" | head -c 120)…"

echo "== 3. a day of changes applied in place to the $(sqlite3 "$LIVE" 'select count(*) from place' 2>/dev/null || echo '?')-place file (goal ≤ 2 s)"
for factor in 1 2 10; do
  n=$((CHANGES * factor))
  files=$(python3 tools/bench/make-daily-files.py "$DUMP" "$ROWS" "$n" "$WORK/day-$n" "$factor")
  rows=$(cat $files | wc -l)
  for round in first again; do
    start=$(now)
    # shellcheck disable=SC2086
    "$BIN/frostbox" import geonames $files --set places.path="$LIVE" >"$WORK/day-$n-$round.txt"
    echo "day ×$factor ($rows rows in 4 files), $round: $(seconds "$start" "$(now)") s  [$(grep -E "places re-indexed" "$WORK/day-$n-$round.txt")]"
  done
done
grep -E "applied in place|alternate names written" "$WORK/day-$CHANGES-first.txt"
