#!/usr/bin/env bash
# The push benchmark, side by side in one run (release builds):
#   1. h2load against the nginx sink: the limit (what the sink and the machine can take);
#   2. bench-push (Frostbox's APNs transport: frames on NIOHTTP2Handler) against the sink;
#   3. aioapns against the sink: the peer;
#   4. bench-push against mock-apns (JWT verified, every header validated).
# 1–3 are interleaved, one run of each in turn. Ends with the medians and the ratios
# (Frostbox vs h2load, Frostbox vs aioapns).
# Usage: tools/apns-sink/bench.sh [COUNT] [CONCURRENCY] [STREAMS] [RUNS]
#   STREAMS: streams per connection for bench-push (connections = CONCURRENCY / STREAMS).
# Installs what it needs when missing: nginx, nghttp2-client (h2load), aioapns.
set -euo pipefail
command -v nginx >/dev/null && command -v h2load >/dev/null \
    || { apt-get update -qq && apt-get install -y -qq nginx nghttp2-client; }
python3 -c "import aioapns" 2>/dev/null || pip install -q aioapns
count="${1:-100000}"
concurrency="${2:-1000}"
streams_per_connection="${3:-100}"
connections=$(( (concurrency + streams_per_connection - 1) / streams_per_connection ))
runs="${4:-3}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d /tmp/frostbox-push-bench.XXXXXX)"
chmod 755 "$work"
port=18443

cd "$root"
swift build -c release --scratch-path .build-release --product bench-push >/dev/null
swift build -c release --scratch-path .build-release --product mock-apns >/dev/null
bin="$root/.build-release/release"

openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/AuthKey_BENCH12345.p8" 2>/dev/null
key=(--key "$work/AuthKey_BENCH12345.p8" --key-id BENCH12345 --team-id TEAM123456)

"$here/start.sh" "$port" "$work/sink" >/dev/null
"$bin/mock-apns" --port 0 --cert-dir "$work/mock" --key "BENCH12345:TEAM123456:$work/AuthKey_BENCH12345.p8" >"$work/mock.out" &
mock_pid=$!
trap 'kill $mock_pid 2>/dev/null || true; "$here/stop.sh" "$work/sink" >/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do [[ -s "$work/mock.out" ]] && break; sleep 0.1; done
mock_port="$(head -1 "$work/mock.out")"

# The same request h2load sends: headers and body of a Frostbox alert, a JWT-sized bearer.
printf '%s' '{"aps":{"alert":{"body":"Minimum −3 °C near Tampere","loc-args":["-3"],"loc-key":"FROST_ALERT","title":"Frost tonight"},"interruption-level":"time-sensitive","sound":"default","thread-id":"frost"},"frost":{"box":"61.50,23.75","level":"hard","minimum_c":-3,"night":"2026-11-22"}}' >"$work/body.json"
jwt="eyJhbGciOiJFUzI1NiIsImtpZCI6IkJFTkNIMTIzNDUifQ.eyJpc3MiOiJURUFNMTIzNDU2IiwiaWF0IjoxODAwMDAwMDAwfQ.$(head -c 64 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')"
# nginx sends GOAWAY every 10,000 requests (nginx.conf.template says why) and h2load does not
# reconnect: it gets enough connections to stay under that, with the same streams in flight.
h2_connections=$(( (count + 9999) / 10000 ))
(( h2_connections < connections )) && h2_connections=$connections
streams=$(( (concurrency + h2_connections - 1) / h2_connections ))

echo "== machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); count $count, concurrency $concurrency, $connections connections × $streams_per_connection streams, runs $runs"
# The runs are interleaved (h2load, bench-push, aioapns, then again), so that the machine's
# load drifts over all three alike; each line is one run of COUNT.
for run in $(seq "$runs"); do
    echo "== run $run: h2load → nginx sink (limit; $h2_connections connections × $streams streams)"
    h2load -n "$count" -c "$h2_connections" -m "$streams" -t 1 -d "$work/body.json" \
        -H "apns-topic: com.example.frost" -H "apns-push-type: alert" -H "apns-priority: 10" \
        -H "apns-collapse-id: frost-60.20,25.00" -H "apns-id: 2b1f0d1a-7c1e-4c8a-9a54-0a6a6c1f2e3d" \
        -H "content-type: application/json" -H "authorization: bearer $jwt" \
        "https://127.0.0.1:$port/3/device/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
        | awk -v run="$run" '/^finished in/ {print "run " run ": " $4 " req/s"} /^requests:/ {print "  " $0}' | tee -a "$work/h2load.out"
    echo "== run $run: bench-push (Frostbox) → nginx sink"
    "$bin/bench-push" --host "127.0.0.1:$port" --trust "$work/sink/sink.crt" "${key[@]}" \
        --count "$count" --concurrency "$concurrency" --streams "$streams_per_connection" --runs 1 | tee -a "$work/frostbox.out"
    echo "== run $run: aioapns → nginx sink (peer)"
    python3 "$here/aioapns_peer.py" --port "$port" --trust "$work/sink/sink.crt" "${key[@]}" \
        --count "$count" --concurrency "$concurrency" --connections "$connections" --runs 1 | tee -a "$work/aioapns.out"
done
echo "== bench-push (Frostbox) → mock-apns"
"$bin/bench-push" --host "127.0.0.1:$mock_port" --trust "$work/mock/mock-apns.crt" "${key[@]}" \
    --count "$count" --concurrency "$concurrency" --streams "$streams_per_connection" --runs "$runs"

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
limit=$(awk '/^run/ {print $3}' "$work/h2load.out" | median)
ours=$(awk '/^median/ {print $2}' "$work/frostbox.out" | median)
peer=$(awk '/^median/ {print $2}' "$work/aioapns.out" | median)
echo "== medians: h2load $limit, Frostbox $ours, aioapns $peer pushes/s"
awk -v l="$limit" -v o="$ours" -v p="$peer" 'BEGIN {printf "== Frostbox = %.1f %% of h2load, %.1f× aioapns\n", 100 * o / l, o / p}'
