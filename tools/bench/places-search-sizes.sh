#!/usr/bin/env bash
# Place search latency in process at several sizes of the synthetic world (release build):
# for each row count, generate the dump (seed 1), import it, run bench-places on it. The
# figures at each size come from one run of bench-places: the local path (nearby places
# alone), the worldwide completion (fewer than 10 nearby) and worldwide queries side by side.
#
#   tools/bench/places-search-sizes.sh [WORKDIR=/tmp/frostbox-places-sizes] ROWS...
#   tools/bench/places-search-sizes.sh /tmp/frostbox-places-sizes 1340000 2680000 13400000
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=${1:-/tmp/frostbox-places-sizes}
shift || true
[ $# -gt 0 ] || set -- 1340000 2680000 13400000
mkdir -p "$WORK"
for product in frostbox geonames-generator bench-places; do
  swift build -c release --scratch-path .build-release --product "$product" >/dev/null 2>&1
done
BIN=.build-release/release
echo "machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
for rows in "$@"; do
  dump="$WORK/synthetic-$rows.txt"
  db="$WORK/places-$rows.sqlite"
  [ -f "$dump" ] || "$BIN/geonames-generator" --rows "$rows" --output "$dump"
  if [ ! -f "$db" ]; then
    start=$(date +%s)
    "$BIN/frostbox" import geonames "$dump" --set places.path="$db" >/dev/null 2>&1
    echo "imported $rows rows in $(( $(date +%s) - start )) s"
  fi
  echo "== $rows rows (load $(cut -d' ' -f1-3 /proc/loadavg))"
  "$BIN/bench-places" --db "$db" --queries 10000
done
