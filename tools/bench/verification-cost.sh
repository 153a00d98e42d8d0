#!/bin/sh
# What proving devices real (issue #33) adds to a notify run's reads on SQLite: the notify
# order with and without the "a verified device in the box" filter, the pending-device page
# and the verification counts, on a generated database with every device verified, timed
# by the sqlite3 shell (median of 3, the two orders interleaved), at 1x and 10x.
#
#   swift build -c release --scratch-path .build-release --product bench-notifier
#   tools/bench/verification-cost.sh [SUBSCRIPTIONS...]     (default 100000 1000000)
set -eu
bin=${BIN:-.build-release/release}
out=${OUT:-/tmp/verification-cost}
mkdir -p "$out"
order_plain="SELECT count(*) FROM (SELECT s.box FROM (SELECT DISTINCT box FROM subscription) AS s LEFT JOIN box_fetch AS f ON f.box = s.box ORDER BY CASE WHEN f.failing_since IS NOT NULL THEN 0 WHEN f.box IS NULL THEN 1 ELSE 2 END, COALESCE(f.failing_since, f.last_success_at, 0), s.box);"
order_verified="SELECT count(*) FROM (SELECT s.box FROM (SELECT DISTINCT box FROM subscription) AS s LEFT JOIN box_fetch AS f ON f.box = s.box WHERE EXISTS (SELECT 1 FROM subscription AS v JOIN device AS d ON d.token = v.token WHERE v.box = s.box AND d.verified_at IS NOT NULL) ORDER BY CASE WHEN f.failing_since IS NOT NULL THEN 0 WHEN f.box IS NULL THEN 1 ELSE 2 END, COALESCE(f.failing_since, f.last_success_at, 0), s.box);"
pending="SELECT count(*) FROM (SELECT token FROM device WHERE verified_at IS NULL AND token > '' ORDER BY token LIMIT 1000);"
counts="SELECT p.pending, CASE WHEN p.pending = 0 THEN 0 ELSE (SELECT count(*) FROM (SELECT DISTINCT box FROM subscription) AS s WHERE NOT EXISTS (SELECT 1 FROM subscription AS v JOIN device AS d ON d.token = v.token WHERE v.box = s.box AND d.verified_at IS NOT NULL)) END FROM (SELECT count(*) AS pending FROM device WHERE verified_at IS NULL) AS p;"
seconds() { # the sqlite3 shell's "Run Time: real X" of one statement
    printf '.timer on\n%s\n' "$2" | sqlite3 "$1" 2>&1 | awk '/Run Time/ { print $4 }'
}
median() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
for subscriptions in ${@:-100000 1000000}; do
    db="$out/verify-$subscriptions.sqlite"
    rm -f "$db"*
    "$bin/bench-notifier" generate --db "$db" --subscriptions "$subscriptions" --boxes $((subscriptions / 10)) > /dev/null
    sqlite3 "$db" "UPDATE device SET verified_at = 1;" "ANALYZE;"
    a=""; b=""
    for _ in 1 2 3; do
        a="$a $(seconds "$db" "$order_plain")"
        b="$b $(seconds "$db" "$order_verified")"
    done
    p=$(seconds "$db" "$pending"); c=$(seconds "$db" "$counts")
    echo "subscriptions=$subscriptions order=$(median $a)s order+verified=$(median $b)s pending-page=${p}s counts=${c}s"
done
