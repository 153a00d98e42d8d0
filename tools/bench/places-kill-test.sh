#!/usr/bin/env bash
# Crash check for the place import: import a dump, start importing a second one, kill -9
# the importer at several moments (reading, indexing, swapping), and check after each kill
# that the previous places are intact (same count, integrity_check ok, search works); then
# rerun the import to completion.
#
#   tools/bench/places-kill-test.sh [ROWS=300000]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROWS=${1:-300000}
BIN=${FROSTBOX_BIN:-.build-release/release}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$BIN/geonames-generator" --rows "$ROWS" --seed 11 --output "$WORK/a.txt" 2>/dev/null
"$BIN/geonames-generator" --rows "$ROWS" --seed 12 --output "$WORK/b.txt" 2>/dev/null
DB="$WORK/places.sqlite"
"$BIN/frostbox" import geonames "$WORK/a.txt" --set places.path="$DB" >/dev/null 2>&1
before=$(sqlite3 "$DB" "select count(*) from place")
names=$(sqlite3 "$DB" "select count(*) from place_name_box")
echo "first import: $before places, $names names"
# Time a full second import to spread the kills over it.
start=$(date +%s.%N)
cp "$DB" "$WORK/copy.sqlite"
"$BIN/frostbox" import geonames "$WORK/b.txt" --set places.path="$WORK/copy.sqlite" >/dev/null 2>&1
total=$(python3 -c "print($(date +%s.%N) - $start)")
echo "an uninterrupted second import takes ${total%.*}.x s"
for fraction in 0.1 0.3 0.5 0.7 0.85 0.95; do
  "$BIN/frostbox" import geonames "$WORK/b.txt" --set places.path="$DB" >/dev/null 2>&1 &
  pid=$!
  sleep "$(python3 -c "print($total * $fraction)")"
  kill -9 "$pid" 2>/dev/null && state=killed || state="had finished"
  wait "$pid" 2>/dev/null || true
  count=$(sqlite3 "$DB" "select count(*) from place")
  check=$(sqlite3 "$DB" "pragma integrity_check")
  hits=$(sqlite3 "$DB" "select count(*) from place_name_box where folded >= 'ka' and folded < 'kb'")
  echo "kill at ${fraction} of the run ($state): places $count, integrity $check, names 'ka…' $hits"
  if [ "$state" = killed ] && [ "$count" != "$before" ]; then
    # Either the old tables or, when the kill came after the swap committed, the new ones.
    [ "$count" = "$(sqlite3 "$WORK/copy.sqlite" "select count(*) from place")" ] || { echo "FAIL: partial data"; exit 1; }
  fi
  [ "$check" = ok ] || { echo "FAIL: integrity"; exit 1; }
done
"$BIN/frostbox" import geonames "$WORK/b.txt" --set places.path="$DB" | head -3
after=$(sqlite3 "$DB" "select count(*) from place")
expected=$(sqlite3 "$WORK/copy.sqlite" "select count(*) from place")
leftovers=$(sqlite3 "$DB" "select count(*) from sqlite_master where name like '%_next'")
runs=$( [ -e "$DB.import-runs" ] && echo present || echo none )
echo "rerun: $after places (uninterrupted import gives $expected), leftover tables $leftovers, run files $runs"
[ "$after" = "$expected" ] && [ "$leftovers" = 0 ] && [ "$runs" = none ] && echo "PASS"
