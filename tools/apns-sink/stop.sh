#!/usr/bin/env bash
# Stops the sink started by start.sh.
set -euo pipefail
dir="${1:-/tmp/frostbox-apns-sink}"
if [[ -f "$dir/nginx.pid" ]]; then
    kill "$(cat "$dir/nginx.pid")" && echo "apns-sink stopped"
fi
