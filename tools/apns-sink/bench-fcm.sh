#!/usr/bin/env bash
# The FCM send benchmark, side by side in one run (release build):
#   1. h2load sending the same FCM HTTP v1 request to the nginx sink: the limit;
#   2. bench-fcm (Frostbox's FCM adapter: OAuth2 token, v1 message, the push engine's
#      frame-level HTTP/2 transport) against the same sink;
#   3. the Python FCM libraries a user would otherwise pick, the same message to the same sink
#      (fcm_peers.py: async-firebase over HTTP/2, firebase-admin's send_each and send_each_async).
# Ends with the medians and the ratios.
# Usage: [PEER_COUNT=N] tools/apns-sink/bench-fcm.sh [COUNT] [CONCURRENCY] [RUNS]
#   PEER_COUNT: messages per run for the Python peers (default COUNT; they are slow).
# Installs what it needs when missing: nginx, nghttp2-client (h2load), and from PyPI
# async-firebase, firebase-admin, httpx[http2].
set -euo pipefail
command -v nginx >/dev/null && command -v h2load >/dev/null \
    || { apt-get update -qq && apt-get install -y -qq nginx nghttp2-client; }
python3 -c 'import async_firebase, firebase_admin, h2' 2>/dev/null || {
    packages=(async-firebase firebase-admin 'httpx[http2]')
    python3 -m pip install -q --break-system-packages "${packages[@]}" 2>/dev/null \
        || python3 -m pip install -q "${packages[@]}"
}
count="${1:-100000}"
concurrency="${2:-1000}"
runs="${3:-3}"
peer_count="${PEER_COUNT:-$count}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d /tmp/frostbox-fcm-bench.XXXXXX)"
chmod 755 "$work"
port=18444

cd "$root"
swift build -c release --scratch-path .build-release --product bench-fcm >/dev/null
bin="$root/.build-release/release"
"$here/start.sh" "$port" "$work/sink" >/dev/null
trap '"$here/stop.sh" "$work/sink" >/dev/null 2>&1 || true' EXIT

# The request bench-fcm sends (one message of the run; every message differs in token and id).
printf '%s' '{"message":{"android":{"collapse_key":"frost-60.20,25.00","notification":{"body_loc_args":["-3"],"body_loc_key":"FROST_ALERT","notification_priority":"PRIORITY_HIGH","sound":"default","tag":"frost-60.20,25.00"},"priority":"HIGH","ttl":"36000s"},"data":{"alert_id":"2b1f0d1a-7c1e-4c8a-9a54-0a6a6c1f2e3d","box":"61.50,23.75","group":"frost","level":"hard","minimum_c":"-3.0","night":"2026-11-22"},"notification":{"body":"Minimum −3 °C near Tampere","title":"Frost tonight"},"token":"fcm:bench_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1"}}' >"$work/body.json"
bearer="ya29.$(head -c 96 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')"
# nginx sends GOAWAY every 10,000 requests and h2load does not reconnect: enough connections.
h2_connections=$(( (count + 9999) / 10000 ))
streams=$(( (concurrency + h2_connections - 1) / h2_connections ))

echo "== machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); count $count, concurrency $concurrency, runs $runs"
echo "== h2load → nginx sink (limit; $h2_connections connections × $streams streams)"
for run in $(seq "$runs"); do
    h2load -n "$count" -c "$h2_connections" -m "$streams" -t 1 -d "$work/body.json" \
        -H "content-type: application/json" -H "authorization: Bearer $bearer" \
        "https://127.0.0.1:$port/v1/projects/bench/messages:send" \
        | awk -v run="$run" '/^finished in/ {print "run " run ": " $4 " req/s"} /^requests:/ {print "  " $0}'
done | tee "$work/h2load.out"
echo "== bench-fcm (Frostbox) → nginx sink"
"$bin/bench-fcm" --url "https://127.0.0.1:$port" --trust "$work/sink/sink.crt" \
    --count "$count" --concurrency "$concurrency" --runs "$runs" | tee "$work/frostbox.out"

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
limit=$(awk '/^run/ {print $3}' "$work/h2load.out" | median)
ours=$(awk '/^median/ {print $2}' "$work/frostbox.out")
echo "== medians: h2load $limit, Frostbox $ours messages/s"
awk -v l="$limit" -v o="$ours" 'BEGIN {printf "== Frostbox FCM = %.1f %% of h2load\n", 100 * o / l}'
echo "== Python peers → nginx sink (count $peer_count, concurrency $concurrency, runs $runs)"
# A peer whose sends fail prints an error instead of a rate (and the script exits 1): go on.
python3 "$here/fcm_peers.py" --url "https://127.0.0.1:$port" --trust "$work/sink/sink.crt" \
    --count "$peer_count" --concurrency "$concurrency" --runs "$runs" | tee "$work/peers.out" || true
awk '/^median / {print "== median " $2 ": " $3 ($3 ~ /^[0-9.]+$/ ? " messages/s" : "")}' "$work/peers.out"
fastest=$(awk '/^median / && $3 ~ /^[0-9.]+$/ {print $3, $2}' "$work/peers.out" | sort -n | tail -1)
if [[ -n "$fastest" ]]; then
    awk -v o="$ours" -v p="${fastest% *}" -v name="${fastest#* }" -v c="$count" -v pc="$peer_count" 'BEGIN {
        printf "== Frostbox = %.1f× the fastest Python peer (%s)%s\n", o / p, name,
            (c == pc ? "" : sprintf("; Frostbox over %d messages a run, the peers over %d", c, pc)) }'
else
    echo "== no Python peer finished its runs without errors"
fi
