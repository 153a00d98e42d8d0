#!/usr/bin/env bash
# Places benchmarks, release build only, every comparison side by side in one run:
#   1. import time: `frostbox import geonames` vs the sqlite3 shell loading the same file
#      into a bare 19-column table with one index (tools/bench/sqlite3-shell-import.sh),
#      on the shared extract (5 rounds, medians) and on a synthetic dump of ROWS rows;
#   2. in-process search latency, p50/p99 over 10,000 random 1–5 character prefixes at
#      random populated points (tools/bench-places) on the imported synthetic database;
#   3. GET /v1/places over HTTP with wrk next to the trivial GET /health, same server.
#
#   tools/bench/places.sh [ROWS=13400000] [WORKDIR=/tmp/frostbox-places-bench]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=${1:-13400000}
WORK=${2:-/tmp/frostbox-places-bench}
mkdir -p "$WORK"
command -v sqlite3 >/dev/null && command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq sqlite3 wrk; }
for product in frostbox geonames-generator bench-places; do
  swift build -c release --scratch-path .build-release --product "$product" >/dev/null 2>&1
done
BIN=.build-release/release
now() { date +%s.%N; }
seconds() { python3 -c "print(f'{$2 - $1:.2f}')"; }

echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sqlite3 $(sqlite3 --version | cut -d' ' -f1)"

DUMP="$WORK/synthetic-$ROWS.txt"
if [ ! -f "$DUMP" ]; then
  start=$(now)
  "$BIN/geonames-generator" --rows "$ROWS" --output "$DUMP"
  echo "generated $ROWS rows ($(du -h "$DUMP" | cut -f1)) in $(seconds "$start" "$(now)") s"
fi

import_pair() {  # file label
  local file=$1 label=$2 start shell ours
  start=$(now); tools/bench/sqlite3-shell-import.sh "$file" "$WORK/shell.sqlite" 2>/dev/null; shell=$(seconds "$start" "$(now)")
  rm -f "$WORK/places.sqlite"*
  # Progress lines (plain, every 5 s and at each index phase) with elapsed times, for the phases.
  start=$(now); "$BIN/frostbox" import geonames "$file" --set places.path="$WORK/places.sqlite" 2>&1 >"$WORK/import-$label.txt" \
    | python3 -u -c 'import sys, time
t0 = time.time()
for line in sys.stdin: print(f"{time.time() - t0:7.1f} s  {line.rstrip()}")' >"$WORK/import-$label.progress"
  ours=$(seconds "$start" "$(now)")
  echo "$shell $ours"
}

echo "== import: shared extract (2,305 rows), 5 rounds"
for round in 1 2 3 4 5; do import_pair data/geonames/nordic-cities1000.txt extract; done | python3 -c '
import sys, statistics
rows = [tuple(map(float, l.split())) for l in sys.stdin]
shell = statistics.median(r[0] for r in rows); ours = statistics.median(r[1] for r in rows)
print(f"sqlite3 shell median {shell:.3f} s, frostbox import median {ours:.3f} s, ratio {ours/shell:.2f}x  (rounds: {rows})")'

echo "== import: synthetic dump ($ROWS rows), 1 round"
read -r shell ours < <(import_pair "$DUMP" synthetic)
echo "sqlite3 shell $shell s, frostbox import $ours s, ratio $(python3 -c "print(f'{$ours/$shell:.2f}')")x"
cat "$WORK/import-synthetic.txt"
echo "phases (elapsed, progress line):"; grep -E "—|100.0%" "$WORK/import-synthetic.progress" | head -12
echo "sizes: shell db $(du -h "$WORK/shell.sqlite" | cut -f1), frostbox db $(du -h "$WORK/places.sqlite" | cut -f1)"

echo "== search latency in process"
"$BIN/bench-places" --db "$WORK/places.sqlite" --queries 10000 --urls "$WORK/urls.txt"

echo "== HTTP: GET /health vs GET /v1/places (wrk -t2 -c32 -d10s), 3 rounds"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
FROSTBOX_LOG_LEVEL=warning "$BIN/frostbox" serve --port "$PORT" --db "$WORK/devices.sqlite" --set places.path="$WORK/places.sqlite" \
  --set places.seed_path= --set limits.rate_limit.burst=0 --set limits.new_boxes_per_hour=0 >"$WORK/server.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true' EXIT
for _ in $(seq 150); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
rate() { awk '/Requests\/sec/ {print $2}'; }
latency() { awk '/Latency/ {print $2}'; }
for round in 1 2 3; do
  health=$(wrk -t2 -c32 -d10s "http://127.0.0.1:$PORT/health")
  places=$(PLACES_URLS="$WORK/urls.txt" wrk -t2 -c32 -d10s -s tools/bench/places-urls.lua "http://127.0.0.1:$PORT")
  if echo "$health$places" | grep -q "Non-2xx"; then echo "round $round: non-2xx answers, refused"; continue; fi
  h=$(echo "$health" | rate); p=$(echo "$places" | rate)
  echo "round $round: GET /health $h req/s (avg $(echo "$health" | latency)), GET /v1/places $p req/s (avg $(echo "$places" | latency)), ratio $(python3 -c "print(f'{$p/$h:.2f}')")"
done
