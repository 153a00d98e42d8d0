#!/usr/bin/env bash
# The Web Push send benchmark, side by side in one run (release build):
#   1. h2load posting the request Frostbox makes (path, TTL, Urgency, Topic, VAPID
#      Authorization, Content-Encoding aes128gcm, a pre-encrypted body of the same size) to the
#      nginx sink, which answers 201 with a Location as a push service does: the limit;
#   2. bench-webpush (Frostbox's Web Push adapter: RFC 8291 encryption per message, a cached
#      VAPID token, the push engine's frame-level HTTP/2 transport) against the same sink;
#   3. pywebpush sending the same alerts to the same sink (webpush_peers.py: webpush() on a
#      thread pool and webpush_async(), both over HTTP/1.1).
# Ends with the medians and the ratios.
# Usage: [PEER_COUNT=N] [PEER_THREADS=N] tools/apns-sink/bench-webpush.sh [COUNT] [CONCURRENCY] [RUNS]
#   PEER_COUNT: messages per run for the Python peers (default COUNT; they are slow).
# Installs what it needs when missing: nginx, nghttp2-client (h2load), and pywebpush from PyPI.
set -euo pipefail
command -v nginx >/dev/null && command -v h2load >/dev/null \
    || { apt-get update -qq && apt-get install -y -qq nginx nghttp2-client; }
python3 -c 'import pywebpush, py_vapid, aiohttp' 2>/dev/null || {
    python3 -m pip install -q --break-system-packages pywebpush 2>/dev/null || python3 -m pip install -q pywebpush
}
count="${1:-100000}"
concurrency="${2:-1000}"
runs="${3:-3}"
peer_count="${PEER_COUNT:-$count}"
peer_threads="${PEER_THREADS:-16}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d /tmp/frostbox-webpush-bench.XXXXXX)"
chmod 755 "$work"
port=18460

cd "$root"
swift build -c release --scratch-path .build-release --product bench-webpush >"$work/build.log" 2>&1 \
    || { cat "$work/build.log" >&2; exit 1; }
bin="$root/.build-release/release"
"$here/start.sh" "$port" "$work/sink" >/dev/null
trap '"$here/stop.sh" "$work/sink" >/dev/null 2>&1 || true' EXIT

# One request exactly as the adapter renders it (its VAPID token is valid for 12 hours).
"$bin/bench-webpush" --url "https://127.0.0.1:$port" --trust "$work/sink/sink.crt" --count 1 --runs 1 \
    --sample "$work" | grep '^sample'
headers=()
while IFS= read -r line; do headers+=(-H "$line"); done <"$work/headers"
# nginx sends GOAWAY every 10,000 requests and h2load does not reconnect: enough connections.
h2_connections=$(( (count + 9999) / 10000 ))
streams=$(( (concurrency + h2_connections - 1) / h2_connections ))

echo "== machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); count $count, concurrency $concurrency, runs $runs"
echo "== h2load → nginx sink (limit; $h2_connections connections × $streams streams, one pre-encrypted body)"
for run in $(seq "$runs"); do
    h2load -n "$count" -c "$h2_connections" -m "$streams" -t 1 -d "$work/body.bin" "${headers[@]}" \
        "https://127.0.0.1:$port$(cat "$work/path")" \
        | awk -v run="$run" '/^finished in/ {print "run " run ": " $4 " req/s"} /^requests:/ {print "  " $0} /^status codes:/ {print "  " $0}'
done | tee "$work/h2load.out"
# Every h2load request must have been answered 2xx (the sink's 201), or its rate means nothing.
awk -v c="$count" '/status codes:/ {n++; if ($3 != c) bad++} END {exit (n == 0 || bad) ? 1 : 0}' "$work/h2load.out" \
    || { echo "h2load: not every request was answered 2xx" >&2; exit 1; }
echo "== bench-webpush (Frostbox) → nginx sink"
"$bin/bench-webpush" --url "https://127.0.0.1:$port" --trust "$work/sink/sink.crt" \
    --count "$count" --concurrency "$concurrency" --runs "$runs" | tee "$work/frostbox.out"

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
limit=$(awk '/^run/ {print $3}' "$work/h2load.out" | median)
ours=$(awk '/^median/ {print $2}' "$work/frostbox.out")
echo "== medians: h2load $limit, Frostbox $ours messages/s; load $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v l="$limit" -v o="$ours" 'BEGIN {printf "== Frostbox Web Push = %.1f %% of h2load\n", 100 * o / l}'
echo "== pywebpush → nginx sink (count $peer_count, concurrency $concurrency, $peer_threads threads, runs $runs)"
# A peer whose sends fail prints an error instead of a rate (and the script exits 1): go on.
python3 "$here/webpush_peers.py" --url "https://127.0.0.1:$port" --trust "$work/sink/sink.crt" \
    --plaintext "$work/plaintext.json" --count "$peer_count" --concurrency "$concurrency" \
    --threads "$peer_threads" --runs "$runs" | tee "$work/peers.out" || true
awk '/^median / {print "== median " $2 ": " $3 ($3 ~ /^[0-9.]+$/ ? " messages/s" : "")}' "$work/peers.out"
fastest=$(awk '/^median / && $3 ~ /^[0-9.]+$/ {print $3, $2}' "$work/peers.out" | sort -n | tail -1)
if [[ -n "$fastest" ]]; then
    awk -v o="$ours" -v p="${fastest% *}" -v name="${fastest#* }" -v c="$count" -v pc="$peer_count" 'BEGIN {
        printf "== Frostbox = %.1f× the fastest pywebpush peer (%s)%s\n", o / p, name,
            (c == pc ? "" : sprintf("; Frostbox over %d messages a run, the peers over %d", c, pc)) }'
else
    echo "== no pywebpush peer finished its runs without errors"
fi
