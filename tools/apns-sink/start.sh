#!/usr/bin/env bash
# Starts the neutral nginx HTTP/2 + TLS sink used by the push benchmark.
#   tools/apns-sink/start.sh [PORT] [DIR]   (defaults: 8443, /tmp/frostbox-apns-sink)
# Writes DIR/sink.crt (self-signed, CN and SAN 127.0.0.1/localhost) for clients to trust;
# stop it with tools/apns-sink/stop.sh [DIR].
set -euo pipefail
port="${1:-8443}"
dir="${2:-/tmp/frostbox-apns-sink}"
here="$(cd "$(dirname "$0")" && pwd)"

command -v nginx >/dev/null || { echo "nginx is missing: apt-get install -y nginx nghttp2-client" >&2; exit 1; }
mkdir -p "$dir/empty"
# nginx workers run unprivileged: they must be able to reach the (empty) document root.
chmod 755 "$dir" "$dir/empty"
if [[ ! -f "$dir/sink.crt" ]]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
        -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
        -keyout "$dir/sink.key" -out "$dir/sink.crt" 2>/dev/null
fi
sed -e "s|@DIR@|$dir|g" -e "s|@PORT@|$port|g" "$here/nginx.conf.template" > "$dir/nginx.conf"
nginx -c "$dir/nginx.conf" -p "$dir"
for _ in $(seq 50); do
    if curl -sk --http2 -o /dev/null -X POST "https://127.0.0.1:$port/3/device/00" 2>/dev/null; then
        echo "apns-sink listening on https://127.0.0.1:$port (certificate $dir/sink.crt)"
        exit 0
    fi
    sleep 0.1
done
echo "apns-sink did not start; see $dir/error.log" >&2
exit 1
