#!/usr/bin/env bash
# Places by generation (issue #27), release build, every comparison side by side in one run:
#   1. POST /v1/devices/{token}/subscriptions and GET /v1/places on an idle server that serves
#      a directory of generations: p50/p99 and non-2xx (wrk --latency, 1 thread, 2 connections
#      each, both at once);
#   2. the same load while `frostbox import geonames DUMP --build DIR --replace` builds a ROWS
#      generation into that directory, then until the server has switched to it (the switch:
#      wrk's max latency and non-2xx across it; the server's switch time from /admin/stats);
#   3. a day of GeoNames changes (CHANGES rows) as a new generation (copy + apply) vs in place
#      on a plain copy of the same file;
#   4. disk: the directory and each file.
#
#   tools/bench/places-generations.sh [ROWS=1340000] [WORKDIR=/tmp/frostbox-generations-bench] [CHANGES=5000]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=${1:-1340000}
WORK=${2:-/tmp/frostbox-generations-bench}
CHANGES=${3:-5000}
mkdir -p "$WORK"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
for product in frostbox geonames-generator; do
  swift build -c release --scratch-path .build-release --product "$product" >/dev/null 2>&1
done
BIN=.build-release/release
TOKEN=bench-generations-admin-token
now() { date +%s.%N; }
seconds() { python3 -c "print(f'{$2 - $1:.2f}')"; }
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"

DUMP="$WORK/synthetic-$ROWS.txt"
[ -f "$DUMP" ] || "$BIN/geonames-generator" --rows "$ROWS" --output "$DUMP"
GEN="$WORK/generations"
rm -rf "$GEN" "$WORK"/devices.sqlite* "$WORK"/plain-places.sqlite*
mkdir -p "$GEN"
# shellcheck source=tools/bench/places-load.sh
source tools/bench/places-load.sh
"$BIN/frostbox" import geonames data/geonames/nordic-cities1000.txt --replace --build "$GEN" >/dev/null
nordic_urls

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
FROSTBOX_LOG_LEVEL=notice FROSTBOX_ADMIN_TOKEN=$TOKEN "$BIN/frostbox" serve --port "$PORT" --db "$WORK/devices.sqlite" \
  --set places.path="$GEN" --set places.watch_interval=1s --set limits.rate_limit.burst=0 --set limits.new_boxes_per_hour=0 >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null && break; sleep 0.2; done
generation() { curl -s -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/admin/stats" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("places_generation"), d.get("places_switched_at"))'; }
echo "serving: $(generation)"


echo "== 1. idle server, 60 s"
load 60 idle; wait $WRITE $SEARCH
summary "POST /v1/devices/{token}/subscriptions, idle" "$WORK/wrk-write-idle.txt"
summary "GET /v1/places, idle" "$WORK/wrk-search-idle.txt"

echo "== 2. the same load during import geonames of $ROWS rows --build (a new generation), and across the switch"
load 0 build
start=$(now)
"$BIN/frostbox" import geonames "$DUMP" --replace --build "$GEN" >"$WORK/build.txt" 2>"$WORK/build.progress"
built=$(now)
NEW=$(sed -n 's/^generation: \([^ ]*\).*/\1/p' "$WORK/build.txt")
until generation | grep -q "$NEW"; do sleep 0.2; done
switched=$(now)
sleep 5
kill -INT $WRITE $SEARCH; wait $WRITE $SEARCH || true
echo "build: $(seconds "$start" "$built") s; switched $(seconds "$built" "$switched") s after the build ended: $(generation)"
grep -E "^generation|^holds" "$WORK/build.txt"
summary "POST /v1/devices/{token}/subscriptions, build + switch" "$WORK/wrk-write-build.txt"
summary "GET /v1/places, build + switch" "$WORK/wrk-search-build.txt"

echo "== 3. a day of $CHANGES rows: a new generation (copy + apply) vs in place on a plain copy"
files=$(python3 tools/bench/make-daily-files.py "$DUMP" "$ROWS" "$CHANGES" "$WORK/day-$CHANGES" 1)
cp "$GEN/$NEW" "$WORK/plain-places.sqlite"
start=$(now)
# shellcheck disable=SC2086
"$BIN/frostbox" import geonames $files --build "$GEN" >"$WORK/day-generation.txt"
echo "day as a new generation: $(seconds "$start" "$(now)") s"
start=$(now)
# shellcheck disable=SC2086
"$BIN/frostbox" import geonames $files --set places.path="$WORK/plain-places.sqlite" >"$WORK/day-in-place.txt"
echo "day in place:            $(seconds "$start" "$(now)") s"
start=$(now)
cp "$GEN/$NEW" "$WORK/copy-only.sqlite" && sync -f "$WORK/copy-only.sqlite"
echo "copy of the file alone:  $(seconds "$start" "$(now)") s"
rm -f "$WORK/copy-only.sqlite"

echo "== 4. disk"
ls -l "$GEN" | grep -v "^total"
du -sh "$GEN"
