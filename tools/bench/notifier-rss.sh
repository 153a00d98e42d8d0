#!/bin/sh
# Resident size over many notify runs in one process, with and without handing freed memory
# back to the system after each run (issue #28, item 4), side by side: two bench-notifier
# processes at once over copies of one generated database, against one mock Open-Meteo.
#
#   swift build -c release --scratch-path .build-release --product bench-notifier
#   swift build -c release --scratch-path .build-release --product mock-open-meteo
#   tools/bench/notifier-rss.sh [RUNS] [SUBSCRIPTIONS] [BOXES]     (default 100 100000 10000)
#
# Prints each run's line of both processes into $OUT (default /tmp/notifier-rss) and the two
# summary lines: RSS after run 1, after the last run, and their ratio.
set -eu
runs=${1:-100}
subscriptions=${2:-100000}
boxes=${3:-10000}
bin=${BIN:-.build-release/release}
out=${OUT:-/tmp/notifier-rss}
mkdir -p "$out"
rm -f "$out"/*.sqlite* "$out"/port.txt
"$bin/bench-notifier" generate --db "$out/fresh.sqlite" --subscriptions "$subscriptions" --boxes "$boxes"
echo '{"now": 1789905600, "frost_everywhere": {"latitude": 0, "longitude": 0, "minimum_c": -4, "nights": [0, 1]}}' > "$out/scenario.json"
"$bin/mock-open-meteo" --scenario "$out/scenario.json" > "$out/port.txt" &
mock=$!
trap 'kill $mock' EXIT
while [ ! -s "$out/port.txt" ]; do sleep 0.1; done
url="http://127.0.0.1:$(head -1 "$out/port.txt")"
cp "$out/fresh.sqlite" "$out/no-trim.sqlite"
cp "$out/fresh.sqlite" "$out/trim.sqlite"
"$bin/bench-notifier" run --db "$out/no-trim.sqlite" --forecast-url "$url" --now 1789905600 --runs "$runs" --no-trim > "$out/no-trim.txt" &
before=$!
"$bin/bench-notifier" run --db "$out/trim.sqlite" --forecast-url "$url" --now 1789905600 --runs "$runs" > "$out/trim.txt" &
after=$!
wait $before
wait $after
tail -1 "$out/no-trim.txt"
tail -1 "$out/trim.txt"
