#!/usr/bin/env bash
# Device API benchmark: durable POST /add_location vs the trivial GET /health route, same
# server, same wrk settings, interleaved rounds in one run. Release build only.
#
#   tools/bench/device-api.sh [rounds=3] [seconds=10] [connections=64]
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}; SECONDS_PER=${2:-10}; CONNS=${3:-64}
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
BIN=${FROSTBOX_BIN:-.build-release/release/frostbox}
[ -x "$BIN" ] || swift build -c release --scratch-path .build-release --product frostbox
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
# One load generator on loopback is one client: lift the per-client rate limit for the run.
FROSTBOX_LIMITS_RATE_LIMIT_BURST=0 FROSTBOX_LOG_LEVEL=warning "$BIN" serve --port "$PORT" --db "$WORK/bench.sqlite" > "$WORK/server.log" 2>&1 &
PID=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
rate() { awk '/Requests\/sec/ {print $2}'; }
# A round only counts when every response was a success: a 429 or 4xx is not a durable write.
checked() { out=$(cat); if grep -q "Non-2xx" <<<"$out"; then echo "non-2xx responses in a round:" >&2; grep "Non-2xx" <<<"$out" >&2; exit 1; fi; rate <<<"$out"; }
echo "machine: $(nproc) cores, $(uname -r); wrk -t2 -c$CONNS -d${SECONDS_PER}s; rounds: $ROUNDS"
for round in $(seq "$ROUNDS"); do
  trivial=$(wrk -t2 -c"$CONNS" -d"${SECONDS_PER}s" "http://127.0.0.1:$PORT/health" | checked)
  durable=$(wrk -t2 -c"$CONNS" -d"${SECONDS_PER}s" -s tools/bench/add_location.lua "http://127.0.0.1:$PORT" | checked)
  echo "round $round: GET /health $trivial req/s, POST /add_location $durable req/s, ratio $(python3 -c "print(f'{$durable/$trivial:.2f}')")"
done
rows=$(sqlite3 "$WORK/bench.sqlite" "select count(*) from subscription" 2>/dev/null || echo "?")
echo "subscriptions stored: $rows (every one acknowledged with 201 after a synchronous=FULL commit)"
