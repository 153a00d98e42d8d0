# Shared by the PostgreSQL benchmarks (source it from the repository's root, after setting
# REL to the release build directory): a throwaway cluster with Debian's stock settings
# (fsync and synchronous_commit on), the notifier benchmark's data loaded into it, and the mock
# Open-Meteo. Everything started is stopped and removed on exit.
#
#   start_cluster NAME [DATABASE…]   WORK, PGPORT, URL (database frostbox), psql, free_port, PIDS
#   load_generated GENERATED.sqlite  devices and subscriptions of `bench-notifier generate`
#   start_mock_open_meteo NOW        OM, the mock's URL, answering with the frozen clock NOW
PGBIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
PIDS=()

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql() { "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U frostbox -v ON_ERROR_STOP=1 -q "$@"; }
seconds_since() { python3 -c "print(f'{$(date +%s.%N)-$1:.1f}')"; }

cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$WORK"
}

start_cluster() {
  local name=$1; shift
  WORK=$(mktemp -d "/tmp/frostbox-$name-XXXX"); chmod 755 "$WORK"
  trap cleanup EXIT
  if [ "$(id -u)" = 0 ]; then chown postgres "$WORK"; fi
  PGPORT=$(free_port)
  as_pg "$PGBIN/initdb" -D "$WORK/pg" -U frostbox --auth=trust -E UTF8 --locale=C >/dev/null
  as_pg "$PGBIN/pg_ctl" -D "$WORK/pg" -o "-p $PGPORT -k $WORK -c listen_addresses=127.0.0.1 -c max_connections=200" \
    -l "$WORK/pg.log" -w start >/dev/null
  local database
  for database in frostbox "$@"; do psql -d postgres -c "CREATE DATABASE $database"; done
  URL="postgres://frostbox@127.0.0.1:$PGPORT/frostbox?sslmode=disable"
  echo "machine: $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg); PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}')"
}

load_generated() {
  local generated=$1 started
  started=$(date +%s.%N)
  sqlite3 -csv "$generated" "select token, platform, app, environment, locale, created_at, registered_at, verified_at from device" \
    | psql -d frostbox -c "\copy device (token, platform, app, environment, locale, created_at, registered_at, verified_at) from stdin with (format csv)"
  sqlite3 -csv "$generated" "select token, latitude, longitude, box, name, unit, created_at, rule, frost_risk_c, freeze_c, hard_freeze_c, all_clear from subscription" \
    | psql -d frostbox -c "\copy subscription (token, latitude, longitude, box, name, unit, created_at, rule, frost_risk_c, freeze_c, hard_freeze_c, all_clear) from stdin with (format csv)"
  psql -d frostbox -c "ANALYZE"
  echo "loaded $(psql -d frostbox -At -c 'select count(*) from subscription') subscriptions into PostgreSQL in $(seconds_since "$started") s (not part of the runs)"
}

start_mock_open_meteo() {
  echo "{\"now\": $1}" > "$WORK/scenario.json"
  "$REL/mock-open-meteo" --scenario "$WORK/scenario.json" > "$WORK/om-port.txt" 2>"$WORK/om.log" & PIDS+=($!)
  for _ in $(seq 100); do [ -s "$WORK/om-port.txt" ] && break; sleep 0.1; done
  OM="http://127.0.0.1:$(head -1 "$WORK/om-port.txt")"
}

# CPU seconds the cluster has used so far: the postmaster, its live children and those it reaped.
cluster_cpu() {
  python3 - "$(head -1 "$WORK/pg/postmaster.pid")" <<'PY'
import os, sys
postmaster, ticks = sys.argv[1], os.sysconf("SC_CLK_TCK")
def stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()
fields = stat(postmaster)
total = sum(int(value) for value in fields[11:15])  # utime, stime, cutime, cstime
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        child = stat(pid)
    except OSError:
        continue
    if child[1] == postmaster:
        total += int(child[11]) + int(child[12])
print(f"{total / ticks:.1f}")
PY
}
