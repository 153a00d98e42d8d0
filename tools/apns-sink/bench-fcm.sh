#!/usr/bin/env bash
# The FCM send benchmark, side by side in one run (release build):
#   1. h2load sending the same FCM HTTP v1 request to the nginx sink: the limit;
#   2. bench-fcm (Frostbox's FCM adapter: OAuth2 token, v1 message, AsyncHTTPClient over
#      HTTP/2) against the same sink.
# Ends with the medians and the ratio.
# Usage: tools/apns-sink/bench-fcm.sh [COUNT] [CONCURRENCY] [RUNS]
# Installs what it needs when missing: nginx, nghttp2-client (h2load).
set -euo pipefail
command -v nginx >/dev/null && command -v h2load >/dev/null \
    || { apt-get update -qq && apt-get install -y -qq nginx nghttp2-client; }
count="${1:-100000}"
concurrency="${2:-1000}"
runs="${3:-3}"
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
