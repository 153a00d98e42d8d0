#!/usr/bin/env bash
# The outbox write by key order, in SQLite alone (issue #25): the outbox rows of a finished
# notify run written again, chunk by chunk (one transaction each, as a run commits), into a
# copy of the outbox table keyed device-first (the layout before v16) and box-first (v16).
#   tools/bench/outbox-key-order.sh DB [CHUNKS]
# DB: a database after one `bench-notifier run` (its outbox holds the run's rows); it is not
# changed (each layout is written into a fresh copy). Prints the time per tenth of the
# chunks and the total; synchronous = FULL and the writer's 128 MiB cache, as Frostbox's.
set -euo pipefail
db="$1"
chunks="${2:-100}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
command -v sqlite3 >/dev/null || { echo "sqlite3 is missing: apt-get install -y sqlite3" >&2; exit 1; }
rows="$(sqlite3 "$db" "SELECT max(id) FROM outbox")"
size=$(((rows + chunks - 1) / chunks))
columns="device_id, box, night, level, kind, push_id, message_id, app, environment, status, attempts, created_at, expires_at, run_id, not_before, frost_starts_at"
# As the run wrote them: pending, not yet attempted.
pending="device_id, box, night, level, kind, push_id, message_id, app, environment, 'pending', 0, created_at, expires_at, run_id, not_before, frost_starts_at"
table="$(sqlite3 "$db" ".schema outbox" | sed -e 's/CREATE TABLE IF NOT EXISTS "outbox"/CREATE TABLE o2/' -e 's/CREATE TABLE outbox/CREATE TABLE o2/' \
    -e '/^CREATE INDEX/d' -e 's/UNIQUE ([a-z_, ]*)/UNIQUE (@KEY@)/' -e 's/ REFERENCES device(id) ON DELETE CASCADE//')"
for layout in device-first box-first; do
    if [[ $layout == device-first ]]; then
        key="device_id, box, night, level"
        indexes="CREATE INDEX o2_pending ON o2(id) WHERE status = 'pending'; CREATE INDEX o2_on_box ON o2(box, expires_at);
                 CREATE INDEX o2_held ON o2(device_id, box, night) WHERE status = 'pending' AND not_before IS NOT NULL;"
    else
        key="box, device_id, night, level"
        indexes="CREATE INDEX o2_pending ON o2(id) WHERE status = 'pending';
                 CREATE INDEX o2_held ON o2(box, device_id, night) WHERE status = 'pending' AND not_before IS NOT NULL;"
    fi
    cp "$db" "$work/copy.sqlite"
    {
        echo "PRAGMA foreign_keys = ON; PRAGMA cache_size = -131072; PRAGMA synchronous = FULL;"
        echo "${table//@KEY@/$key}"
        echo "$indexes"
        echo ".timer on"
        for ((i = 0; i < chunks; i++)); do
            echo "BEGIN; INSERT INTO o2 ($columns) SELECT $pending FROM outbox WHERE id > $((i * size)) AND id <= $(((i + 1) * size)) ORDER BY id; COMMIT;"
        done
    } > "$work/script.sql"
    sqlite3 "$work/copy.sqlite" < "$work/script.sql" | awk '/^Run Time/ {print $4}' > "$work/times.txt"
    awk -v layout="$layout" -v chunks="$chunks" '
        { t[++n] = $1; total += $1 }
        END {
            step = int(chunks / 10); line = layout ": chunk time (s) at chunk"
            for (c = 1; c <= n; c += step) line = line sprintf(" %d: %.3f", c, t[c])
            printf "%s; total %.2f s over %d chunks\n", line, total, n
        }' "$work/times.txt"
done
