#!/usr/bin/env python3
"""Seeds a migrated Frostbox database with subscriptions around the world, cached forecasts,
fetch failures, notify runs, quota charges and checked nights, for the status page's browser
test and its screenshot. Writes SQL straight into the schema of the migrations (v1, v3, v4,
v18, v19), so that tens of thousands of rows take a second.

    python3 tools/status-page/seed.py frostbox.sqlite [subscriptions]

The database must exist and be migrated (start `frostbox serve` on it once). Deterministic:
the same count gives the same rows. `KNOWN` lists boxes whose class the test checks;
`CHANCES` boxes that also have a cached ensemble, with the chance of each level it gives;
`VERIFIED` the nights checked against what happened (issue #48), whose scores the test counts
by hand.
"""
import math
import random
import sqlite3
import struct
import sys
import time

# (name, latitude, longitude, class): one box each, away from the random ones.
KNOWN = [
    ("Helsinki", 60.17, 24.94, "freeze"),
    ("Reykjavik", 64.15, -21.94, "hard-freeze"),
    ("Madrid", 40.42, -3.70, "frost-risk"),
    ("Cape Town", -33.92, 18.42, "none"),
    ("Ulaanbaatar", 47.92, 106.92, "no-forecast"),
    ("Anchorage", 61.22, -149.90, "fetch-failing"),
    ("Labasa", -16.43, 179.99, "freeze"),
]

# (name, latitude, longitude, class, ensemble, {level: chance}): boxes with a cached ensemble
# (issue #47), each member or the mean constant all night, so that the chances are exact.
OSLO_MEMBERS = [-4, -3.5, -3, -2.5, -2, -1.5, -1.2, -1, -0.8, -0.6, -0.4, -0.2, -0.1, 0, 0, 0.5, 1, 1.5, 2, 4]
CHANCES = [
    ("Oslo", 59.91, 10.75, "freeze", {"members": OSLO_MEMBERS}, {"frost-risk": 0.95, "freeze": 0.75, "hard-freeze": 0.25}),
    # Mean 1 °C, spread 2 °C: Φ((3 − 1) / 2), Φ(−1 / 2), Φ(−3 / 2).
    ("Lyon", 45.76, 4.84, "frost-risk", {"mean": 1.0, "spread": 2.0}, {"frost-risk": 0.841, "freeze": 0.309, "hard-freeze": 0.067}),
]

# Checked nights (issue #48), one box each: (region, latitude, longitude, alerted level,
# forecast low, chance of freeze or None, observed low, weight, stratum). Levels: 0 none,
# 1 frost risk, 2 freeze, 3 hard freeze; default thresholds 3, 0, −2 °C. Away from the boxes
# above, so that a region's marker covers none of them. Freeze, counted by hand:
#   FI.15  hits 3, misses 1, false alarms 0: CSI 0.75
#   SE.25  hits 1, misses 1, false alarms 1: CSI 1/3
#   NO.18  no frost said or seen: no CSI (its two sampled nights stand for three each)
#   all    hits 4, misses 2, false alarms 1, correct negatives 5 nights standing for 9: CSI 4/7
# The chances fall in five tenths (0.0, 0.2, 0.4, 0.8, 0.9): five points in the freeze diagram.
VERIFIED = [
    ("FI.15", 62.90, 27.70, 2, -1.0, 0.85, -1.5, 1, "alerted"),  # hit
    ("FI.15", 63.00, 27.80, 3, -4.0, 0.95, -3.0, 1, "alerted"),  # hit
    ("FI.15", 62.80, 27.60, 2, -0.5, 0.85, -0.2, 1, "alerted"),  # hit
    ("FI.15", 62.90, 27.90, 0, 1.5, 0.25, -0.5, 1, "FI.15/census"),  # miss
    ("FI.15", 63.10, 27.70, 0, 6.0, 0.05, 4.0, 1, "FI.15/census"),  # correct negative
    ("SE.25", 65.60, 22.10, 2, -1.0, 0.85, 1.0, 1, "alerted"),  # false alarm
    ("SE.25", 65.70, 22.20, 2, -2.0, 0.95, -1.0, 1, "alerted"),  # hit
    ("SE.25", 65.50, 22.00, 0, 2.0, 0.45, -0.5, 1, "SE.25/census"),  # miss
    ("SE.25", 65.60, 21.90, 0, 5.0, 0.05, 6.0, 1, "SE.25/census"),  # correct negative
    ("NO.18", 68.40, 17.40, 1, 2.0, 0.25, 2.5, 1, "alerted"),  # frost-risk hit, freeze correct negative
    ("NO.18", 68.50, 17.50, 0, 7.0, None, 5.0, 3, "NO.18/sample"),  # correct negative, for three
    ("NO.18", 68.30, 17.30, 0, 8.0, None, 6.0, 3, "NO.18/sample"),  # correct negative, for three
]
LEADS = {1: "same-night", 2: "next-night", 3: "same-night"}

# Where the random subscribers live: (latitude, longitude, spread in degrees, weight).
HUBS = [
    (60.2, 24.9, 2.0, 6), (59.3, 18.1, 2.0, 4), (59.9, 10.8, 2.0, 3), (55.7, 12.6, 1.5, 3), (52.5, 13.4, 3.0, 5),
    (48.9, 2.4, 3.0, 5), (51.5, -0.1, 2.0, 5), (45.5, 9.2, 2.5, 3), (50.1, 14.4, 2.0, 2), (47.5, 19.0, 2.0, 2),
    (55.8, 37.6, 3.0, 3), (41.0, 29.0, 2.0, 2), (40.7, -74.0, 3.0, 5), (43.7, -79.4, 2.5, 3), (41.9, -87.6, 3.0, 3),
    (39.7, -105.0, 3.0, 2), (47.6, -122.3, 2.0, 2), (37.8, -122.4, 2.0, 2), (45.5, -73.6, 2.0, 2), (35.7, 139.7, 2.5, 4),
    (37.6, 127.0, 2.0, 3), (39.9, 116.4, 3.0, 3), (43.1, 141.3, 1.5, 2), (-33.9, 151.2, 2.0, 3), (-37.8, 145.0, 2.0, 2),
    (-43.5, 172.6, 2.0, 2), (-34.6, -58.4, 2.5, 2), (-23.5, -46.6, 2.5, 2), (-33.4, -70.6, 2.0, 1), (19.4, -99.1, 2.5, 1),
    (28.6, 77.2, 3.0, 1), (30.0, 31.2, 2.0, 1), (-26.2, 28.0, 2.0, 1), (64.8, -147.7, 2.0, 1), (69.6, 18.9, 1.5, 1),
    (-18.0, 178.4, 1.0, 1), (-13.8, -171.8, 0.5, 1), (65.0, -18.0, 1.5, 1), (78.2, 15.6, 0.5, 1), (-77.8, 166.7, 0.3, 1),
]

BOX = 0.05


def box_index(degrees):
    # Swift rounds half away from zero: `(degrees / 0.05).rounded()`.
    value = degrees / BOX
    return int(math.floor(abs(value) + 0.5)) * (1 if value >= 0 else -1)


def box_key(lat, lon):
    lat_index = max(-1800, min(1800, box_index(lat)))
    lon_index = box_index(lon) % 7200
    if lon_index <= -3600:
        lon_index += 7200
    if lon_index > 3600:
        lon_index -= 7200
    return (lat_index + 1800) * 7200 + (lon_index + 3599)


def ensemble_blob(start, count, offset_seconds, series):
    """The ensemble cache's codec (EnsembleCodec): version 1, kind (0 members, 1 mean and
    spread), hour and series counts, per hour time and offset, then each series' hundredths."""
    kind = 1 if len(series) == 2 and "mean" in series else 0
    values = [series["mean"], series["spread"]] if kind else series["members"]
    parts = [bytes([1, kind]), struct.pack("<II", count, len(values))]
    parts += [struct.pack("<qi", start + i * 3600, offset_seconds) for i in range(count)]
    for value in values:
        parts.append(struct.pack(f"<{count}h", *([round(value * 100)] * count)))
    return b"".join(parts)


def hours_blob(start, count, offset_seconds, temperature, cloud, wind):
    """The forecast cache's codec: version 1, then per hour time, offset and four hundredths."""
    parts = [bytes([1])]
    for i in range(count):
        t = start + i * 3600
        # Colder at night (local 18:00–10:00), so a day reads as a day.
        local_hour = ((t + offset_seconds) // 3600) % 24
        value = temperature if (local_hour >= 18 or local_hour < 10) else temperature + 6
        parts.append(struct.pack("<qiiiii", t, offset_seconds, round(value * 100), round((value - 2) * 100), round(cloud * 100), round(wind * 100)))
    return b"".join(parts)


# Night temperature and sky per class under the default rule (≤3 °C clear and calm: frost risk;
# ≤0: freeze; ≤−2: hard freeze).
WEATHER = {"none": (7.0, 80.0, 20.0), "frost-risk": (2.0, 10.0, 4.0), "freeze": (-1.0, 50.0, 15.0), "hard-freeze": (-6.0, 50.0, 15.0)}


def seed(path, subscriptions=20000, now=None):
    """Seeds `path`; returns {box key: class} of every seeded box and the runs written."""
    now = int(now or time.time())
    rng = random.Random(20261123)
    database = sqlite3.connect(path, timeout=30)
    database.execute("PRAGMA foreign_keys = ON")
    boxes = {}  # key -> [lat, lon, class, names]
    rows = []
    for name, lat, lon, kind in KNOWN + [c[:4] for c in CHANCES]:
        boxes[box_key(lat, lon)] = (lat, lon, kind)
        rows.append((lat, lon, name))
    known_keys = set(boxes)
    weights = [h[3] for h in HUBS]
    while len(rows) < subscriptions:
        hub = rng.choices(HUBS, weights)[0]
        lat = max(-89.9, min(89.9, rng.gauss(hub[0], hub[2])))
        lon = rng.gauss(hub[1], hub[2] * 1.5)
        lon = (lon + 180) % 360 - 180
        if any(abs(lat - k[1]) < 0.6 and abs(((lon - k[2] + 180) % 360) - 180) < 0.6 for k in KNOWN + CHANCES):
            continue
        key = box_key(lat, lon)
        if key not in boxes:
            climate = 16 - 0.45 * abs(lat) + rng.gauss(0, 5)
            roll = rng.random()
            if roll < 0.03:
                kind = "no-forecast"
            elif roll < 0.045:
                kind = "fetch-failing"
            elif climate <= -2:
                kind = "hard-freeze"
            elif climate <= 0:
                kind = "freeze"
            elif climate <= 3:
                kind = "frost-risk"
            else:
                kind = "none"
            boxes[key] = (lat, lon, kind)
        rows.append((lat, lon, f"Place {len(rows)}"))
    with database:
        devices = max(1, len(rows) // 2)
        database.executemany(
            "INSERT OR IGNORE INTO device (token, app, environment, locale, created_at, registered_at) VALUES (?, 'fi.example.frost', 'production', 'en', ?, ?)",
            [(f"{i:064x}", now - 86400, now - 86400) for i in range(1, devices + 1)])
        database.executemany(
            "INSERT INTO subscription (token, latitude, longitude, box, name, unit, created_at) VALUES (?, ?, ?, ?, ?, 'C', ?)",
            [(f"{(i % devices) + 1:064x}", lat, lon, box_key(lat, lon), name, now - 3600) for i, (lat, lon, name) in enumerate(rows)])
        start = (now // 3600 - 2) * 3600
        cache, fetch = [], []
        for key, (lat, lon, kind) in boxes.items():
            offset = int(round(lon / 15)) * 3600
            if kind in WEATHER:
                temperature, cloud, wind = WEATHER[kind]
                age = rng.randint(120, 3000) if key not in known_keys else 600
                cache.append((key, now - age, "Etc/UTC", offset, lat, lon, 72, hours_blob(start, 72, offset, temperature, cloud, wind)))
                fetch.append((key, now - age, now - age, None, None))
            elif kind == "fetch-failing":
                cache.append((key, now - 90000, "Etc/UTC", offset, lat, lon, 72, hours_blob(start - 86400, 72, offset, 5, 80, 20)))
                fetch.append((key, now - 300, now - 90000, now - 7200, "timeout after 30 s"))
        database.executemany(
            "INSERT OR REPLACE INTO forecast_cache (box, fetched_at, timezone, utc_offset_seconds, grid_latitude, grid_longitude, hour_count, hours) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            cache)
        database.executemany(
            "INSERT OR REPLACE INTO ensemble_cache (box, fetched_at, model, runs, body) VALUES (?, ?, ?, '', ?)",
            [(box_key(lat, lon), now - 900, "icon_seamless" if "members" in series else "ecmwf_ifs025_ensemble_mean",
              ensemble_blob(start, 72, int(round(lon / 15)) * 3600, series)) for _, lat, lon, _, series, _ in CHANCES])
        database.executemany(
            "INSERT OR REPLACE INTO box_fetch (box, last_attempt_at, last_success_at, failing_since, failure) VALUES (?, ?, ?, ?, ?)", fetch)
        runs = []
        for i in range(12):
            started = now - (12 - i) * 3600
            planned = 200 + (i * 137) % 900
            failed_temporary, failed_invalid = (i * 7) % 23, (i * 3) % 11
            delivered = planned - failed_temporary - failed_invalid
            # As the notifier decides: a run with failed pushes is degraded, one that broke off failed.
            status = "failed" if i == 8 else ("degraded" if failed_temporary + failed_invalid else "completed")
            duration = 20000 + (i * 4111) % 40000
            cursor = database.execute(
                """INSERT INTO notify_run (started_at, finished_at, status, boxes, forecasts_cached, forecasts_fetched, forecast_requests,
                       weight_used, verdicts, alerts_planned, alerts_delivered, failed_temporary, failed_invalid_token, duration_ms, error)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (started, started + duration // 1000, status, len(boxes), len(boxes) // 2, len(boxes) // 2, len(boxes) // 2000 + 1,
                 len(boxes) / 2000, len(boxes), planned, delivered, failed_temporary, failed_invalid, duration,
                 "forecast source answered 502" if status == "failed" else None))
            runs.append({"id": cursor.lastrowid, "planned": planned, "delivered": delivered, "failed": failed_temporary + failed_invalid, "duration_ms": duration})
        # Pending outbox entries, as a run interrupted by 503s and refused credentials leaves
        # them: one shared push, entries by the class of their last failed send.
        push = database.execute(
            "INSERT INTO outbox_push (push_type, priority, expiration, payload) VALUES ('alert', 10, ?, '{\"aps\":{}}')",
            (now + 43200,)).lastrowid
        for index, failure in enumerate(PENDING_CLASSES):
            database.execute(
                """INSERT INTO outbox (device_id, box, night, level, kind, push_id, status, attempts, created_at, expires_at, failure_class)
                   SELECT id, 1, 20261124, 2, 'frost', ?, 'pending', ?, ?, ?, ? FROM device ORDER BY id LIMIT 1 OFFSET ?""",
                (push, 0 if failure is None else 1, now - 600, now + 43200, failure, index))
        database.executemany(
            "INSERT INTO quota_charge (at, weight, locations, settled) VALUES (?, ?, ?, 1)",
            [(now - 20, 120.0, 1000), (now - 1800, 900.0, 1000), (now - 30000, 3000.0, 1000)])
        database.executemany(
            """INSERT OR REPLACE INTO night_record (box, night, window_start, window_end, utc_offset_seconds, level, minimum_c,
                   p_frost_risk, p_freeze, p_hard_freeze, runs, judged_at, alerted_level, first_alert_at, lead,
                   check_state, region, stratum, weight, observed_min_c, checked_at)
               VALUES (?, ?, ?, ?, 7200, ?, ?, ?, ?, ?, '', ?, ?, ?, ?, 3, ?, ?, ?, ?, ?)""",
            verified_rows(now))
    database.close()
    return {key: kind for key, (_, _, kind) in boxes.items()}, runs


def verified_rows(now):
    """The `night_record` rows of `VERIFIED`: nights three to five days back, observed (check
    state 3) a day ago."""
    rows = []
    for index, (region, lat, lon, alerted, forecast, freeze, observed, weight, stratum) in enumerate(VERIFIED):
        evening = (now // 86400 - 3 - index % 3) * 86400
        night = int(time.strftime("%Y%m%d", time.gmtime(evening)))
        start = evening + 16 * 3600  # 18:00 at UTC+2
        chances = (None, None, None) if freeze is None else (min(0.99, freeze + 0.1), freeze, round(freeze * 0.4, 2))
        rows.append((box_key(lat, lon), night, start, start + 16 * 3600, alerted, forecast, *chances, start - 7200, alerted,
                     start - 3600 if alerted else None, LEADS.get(alerted), region, stratum, weight, observed, now - 86400))
    return rows


# Pending outbox entries seeded, by the class of their last failed send (None: not sent yet).
PENDING_CLASSES = [None] * 7 + ["temporary"] * 5 + ["auth"] * 3


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        raise SystemExit("usage: seed.py frostbox.sqlite [subscriptions]")
    classes, runs = seed(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 20000)
    counts = {}
    for kind in classes.values():
        counts[kind] = counts.get(kind, 0) + 1
    print(f"{len(classes)} boxes {dict(sorted(counts.items()))}, {len(runs)} runs")
