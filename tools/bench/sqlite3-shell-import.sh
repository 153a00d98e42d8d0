#!/usr/bin/env bash
# The peer of `frostbox import geonames`: the sqlite3 command-line shell loading a GeoNames
# dump into a bare 19-column table and building one index (on name), in one transaction.
# ascii mode with tab/newline separators: no quote processing, as GeoNames requires.
#   tools/bench/sqlite3-shell-import.sh DUMP.txt DB
set -euo pipefail
dump=$1
db=$2
rm -f "$db" "$db-journal" "$db-wal" "$db-shm"
sqlite3 "$db" <<SQL
CREATE TABLE geoname (
  geonameid INTEGER, name TEXT, asciiname TEXT, alternatenames TEXT, latitude REAL, longitude REAL,
  feature_class TEXT, feature_code TEXT, country_code TEXT, cc2 TEXT, admin1_code TEXT, admin2_code TEXT,
  admin3_code TEXT, admin4_code TEXT, population INTEGER, elevation INTEGER, dem INTEGER, timezone TEXT,
  modification_date TEXT);
.mode ascii
.separator "\t" "\n"
BEGIN;
.import $dump geoname
CREATE INDEX geoname_name ON geoname(name);
COMMIT;
SQL
