#!/usr/bin/env python3
"""How fast can the notifier's outbox be written on PostgreSQL, and is COPY faster than the
unnest batches Frostbox sends? (issue #25, goal 3; release binary of frostbox for the schema.)

Starts a throwaway PostgreSQL cluster (Debian's stock settings: fsync and synchronous_commit
on), lets `frostbox serve --database-url` create the schema, fills DEVICES devices and a
notify run, then writes ROWS outbox rows in chunks of CHUNK, one transaction per chunk (as a
notify run does), by each method in turn on an emptied outbox, METHOD order repeated ROUNDS
times:

  unnest      the statement Frostbox sends: ids from the sequence, rows from bound arrays
              (unnest), the device found by token, ON CONFLICT DO NOTHING, RETURNING id;
  copy-stage  COPY the chunk into a temporary table, then the same INSERT … SELECT from it;
  copy-taken  copy-stage with the staged rows taken out by the INSERT (DELETE … RETURNING);
  copy-lateral copy-taken finding each device by a LATERAL index lookup;
  copy-direct COPY straight into outbox with the device ids known (no conflict handling, no
              RETURNING): what the engine takes at best for these rows and indexes.

With --layout box-first the outbox's unique key becomes (box, device_id, night, level), the
held-alerts index (box, device_id, night), outbox_on_box goes and so does the device id's
foreign key (as SQLite's outbox since v16); --order box writes the rows in box order, as a
run does (default: random). --outcomes also marks each chunk's rows delivered afterwards, one
UPDATE per chunk by id, as a run records its outcomes (timed separately).

  tools/bench/postgres-outbox-write.py --frostbox .build-release/release/frostbox [--rows 1100000] [--chunk 1000]
      [--layout device-first|box-first] [--order random|box] [--outcomes]
"""
import argparse
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

import psycopg

NOW = 1789905600


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_postgres(args, **kw):
    if os.getuid() == 0:
        args = ["runuser", "-u", "postgres", "--"] + args
    return subprocess.run(args, check=True, **kw)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--frostbox", required=True)
    p.add_argument("--rows", type=int, default=1_100_000)
    p.add_argument("--devices", type=int, default=500_000)
    p.add_argument("--chunk", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--methods", default="unnest,copy-stage,copy-taken,copy-lateral,copy-direct")
    p.add_argument("--layout", choices=["device-first", "box-first"], default="device-first")
    p.add_argument("--order", choices=["random", "box"], default="random")
    p.add_argument("--outcomes", action="store_true")
    a = p.parse_args()

    pgbin = sorted(d for d in os.listdir("/usr/lib/postgresql"))[-1]
    pgbin = f"/usr/lib/postgresql/{pgbin}/bin"
    work = tempfile.mkdtemp(prefix="frostbox-outbox-write-")
    os.chmod(work, 0o755)
    if os.getuid() == 0:
        shutil.chown(work, "postgres")
    port = free_port()
    as_postgres([f"{pgbin}/initdb", "-D", f"{work}/pg", "-U", "frostbox", "--auth=trust", "-E", "UTF8", "--locale=C"],
                stdout=subprocess.DEVNULL)
    as_postgres([f"{pgbin}/pg_ctl", "-D", f"{work}/pg", "-o", f"-p {port} -k {work} -c listen_addresses=127.0.0.1",
                 "-l", f"{work}/pg.log", "-w", "start"], stdout=subprocess.DEVNULL)
    server = None
    try:
        with psycopg.connect(f"host=127.0.0.1 port={port} user=frostbox dbname=postgres", autocommit=True) as c:
            c.execute("CREATE DATABASE frostbox")
        url = f"postgres://frostbox@127.0.0.1:{port}/frostbox?sslmode=disable"
        http = free_port()
        env = dict(os.environ, FROSTBOX_DATABASE_URL=url, FROSTBOX_LOG_LEVEL="warning", FROSTBOX_PLACES_SEED_PATH="")
        server = subprocess.Popen([a.frostbox, "serve", "--port", str(http), "--db", f"{work}/places.sqlite"], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(300):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{http}/ready", timeout=1)
                break
            except Exception:
                time.sleep(0.2)
        else:
            sys.exit("frostbox did not become ready")
        server.terminate()
        server.wait()
        server = None

        db = psycopg.connect(f"host=127.0.0.1 port={port} user=frostbox dbname=frostbox")
        if a.layout == "box-first":
            with db.cursor() as cur:
                cur.execute("""SELECT conname FROM pg_constraint WHERE conrelid = 'outbox'::regclass
                               AND (contype = 'u' OR (contype = 'f' AND conkey = ARRAY[(SELECT attnum FROM pg_attribute
                                    WHERE attrelid = 'outbox'::regclass AND attname = 'device_id')]))""")
                for (name,) in cur.fetchall():
                    cur.execute(f"ALTER TABLE outbox DROP CONSTRAINT {name}")
                cur.execute("ALTER TABLE outbox ADD UNIQUE (box, device_id, night, level)")
                cur.execute("DROP INDEX IF EXISTS outbox_on_box")
                cur.execute("DROP INDEX IF EXISTS outbox_held")
                cur.execute("CREATE INDEX outbox_held ON outbox (box, device_id, night) WHERE status = 'pending' AND not_before IS NOT NULL")
            db.commit()
        with db.cursor() as cur:
            cur.execute("""INSERT INTO device (token, created_at, registered_at)
                           SELECT lpad(to_hex(g), 64, '0'), %s, %s FROM generate_series(1, %s) AS g""", (NOW, NOW, a.devices))
            cur.execute("INSERT INTO notify_run (started_at, status) VALUES (%s, 'running') RETURNING id", (NOW,))
            run_id = cur.fetchone()[0]
            cur.execute("""INSERT INTO outbox_push (collapse_id, push_type, priority, expiration, payload)
                           SELECT 'frost-' || g, 'alert', 10, %s, '{"aps":{"alert":{"title":"Frost"}}}'
                           FROM generate_series(1, 1000) AS g RETURNING id""", (NOW + 86400,))
            push_ids = [r[0] for r in cur.fetchall()]
            cur.execute("SELECT id, token FROM device ORDER BY id")
            devices = cur.fetchall()
        db.commit()
        rng = random.Random(7)
        # Rows as a run plans them: a device's events in several boxes and nights, no two equal.
        rows = []
        seen = set()
        while len(rows) < a.rows:
            device = devices[rng.randrange(len(devices))]
            box = rng.randrange(100_000) * 7 + 1_000_000
            night = 20260920 + rng.randrange(3)
            level = 1 + rng.randrange(3)
            if (device[0], box, night, level) in seen:
                continue
            seen.add((device[0], box, night, level))
            rows.append((device, box, night, level, push_ids[rng.randrange(len(push_ids))]))
        if a.order == "box":
            rows.sort(key=lambda r: (r[1], r[0][1], r[2], r[3]))
        print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; PostgreSQL {pgbin.split('/')[-2]}; "
              f"{a.rows:,} rows in chunks of {a.chunk:,}, {a.devices:,} devices; layout {a.layout}, order {a.order}", flush=True)

        def unnest(cur, chunk):
            cur.execute("SELECT nextval(pg_get_serial_sequence('outbox', 'id')) FROM generate_series(1, %s)", (len(chunk),))
            ids = sorted(r[0] for r in cur.fetchall())
            cur.execute("""
                INSERT INTO outbox (id, device_id, box, night, level, kind, push_id, message_id, app, environment,
                                    status, attempts, created_at, expires_at, run_id, claimed_by, claim_run)
                SELECT u.id, d.id, u.box, u.night, u.level, 'frost', u.push_id, NULL, NULL, NULL, 'pending', 0,
                       %s, %s, %s, 'bench', %s
                FROM unnest(%s::bigint[], %s::text[], %s::bigint[], %s::int[], %s::smallint[], %s::bigint[])
                    AS u(id, token, box, night, level, push_id)
                JOIN device AS d ON d.token = u.token
                ORDER BY u.id
                ON CONFLICT (device_id, box, night, level) DO NOTHING
                RETURNING id""", (NOW, NOW + 86400, run_id, run_id, ids, [r[0][1] for r in chunk], [r[1] for r in chunk],
                                  [r[2] for r in chunk], [r[3] for r in chunk], [r[4] for r in chunk]))
            return len(cur.fetchall())

        def copy_stage(cur, chunk):
            cur.execute("""CREATE TEMP TABLE IF NOT EXISTS outbox_stage (token text, box bigint, night int, level smallint,
                           push_id bigint) ON COMMIT DELETE ROWS""")
            with cur.copy("COPY outbox_stage (token, box, night, level, push_id) FROM STDIN") as copy:
                for r in chunk:
                    copy.write_row((r[0][1], r[1], r[2], r[3], r[4]))
            cur.execute("""
                INSERT INTO outbox (device_id, box, night, level, kind, push_id, status, attempts, created_at, expires_at,
                                    run_id, claimed_by, claim_run)
                SELECT d.id, s.box, s.night, s.level, 'frost', s.push_id, 'pending', 0, %s, %s, %s, 'bench', %s
                FROM outbox_stage AS s JOIN device AS d ON d.token = s.token
                ON CONFLICT (device_id, box, night, level) DO NOTHING
                RETURNING id""", (NOW, NOW + 86400, run_id, run_id))
            return len(cur.fetchall())

        def copy_stage_taken(cur, chunk, lateral=False):
            # As Frostbox writes it: staged rows taken out by the INSERT itself.
            cur.execute("""CREATE TEMP TABLE IF NOT EXISTS outbox_stage (token text, box bigint, night int, level smallint,
                           push_id bigint) ON COMMIT DELETE ROWS""")
            with cur.copy("COPY outbox_stage (token, box, night, level, push_id) FROM STDIN") as copy:
                for r in chunk:
                    copy.write_row((r[0][1], r[1], r[2], r[3], r[4]))
            join = ("JOIN LATERAL (SELECT id FROM device WHERE token = s.token) AS d ON true" if lateral
                    else "JOIN device AS d ON d.token = s.token")
            cur.execute(f"""
                WITH s AS (DELETE FROM outbox_stage RETURNING *)
                INSERT INTO outbox (device_id, box, night, level, kind, push_id, status, attempts, created_at, expires_at,
                                    run_id, claimed_by, claim_run)
                SELECT d.id, s.box, s.night, s.level, 'frost', s.push_id, 'pending', 0, %s, %s, %s, 'bench', %s
                FROM s {join}
                ON CONFLICT (device_id, box, night, level) DO NOTHING
                RETURNING id""", (NOW, NOW + 86400, run_id, run_id))
            return len(cur.fetchall())

        def copy_direct(cur, chunk):
            with cur.copy("""COPY outbox (device_id, box, night, level, kind, push_id, status, attempts, created_at,
                             expires_at, run_id, claimed_by, claim_run) FROM STDIN""") as copy:
                for r in chunk:
                    copy.write_row((r[0][0], r[1], r[2], r[3], "frost", r[4], "pending", 0, NOW, NOW + 86400, run_id,
                                    "bench", run_id))
            return len(chunk)

        methods = {"unnest": unnest, "copy-stage": copy_stage, "copy-taken": copy_stage_taken,
                   "copy-lateral": lambda cur, chunk: copy_stage_taken(cur, chunk, lateral=True), "copy-direct": copy_direct}
        results = {name: [] for name in a.methods.split(",")}
        for round_ in range(1, a.rounds + 1):
            for name in a.methods.split(","):
                with db.cursor() as cur:
                    cur.execute("TRUNCATE outbox")
                    db.commit()
                    cur.execute("CHECKPOINT")
                    db.commit()
                start = time.monotonic()
                stored = 0
                with db.cursor() as cur:
                    for offset in range(0, len(rows), a.chunk):
                        stored += methods[name](cur, rows[offset:offset + a.chunk])
                        db.commit()
                elapsed = time.monotonic() - start
                results[name].append(elapsed)
                print(f"round {round_}: {name:11s} {elapsed:7.2f} s, {stored / elapsed:9,.0f} rows/s ({stored:,} stored)", flush=True)
                if a.outcomes:
                    with db.cursor() as cur:
                        cur.execute("SELECT id FROM outbox ORDER BY id")
                        ids = [r[0] for r in cur.fetchall()]
                    start = time.monotonic()
                    with db.cursor() as cur:
                        for offset in range(0, len(ids), a.chunk):
                            cur.execute("""UPDATE outbox SET status = 'delivered', attempts = attempts + 1, last_attempt_at = %s,
                                           delivered_at = %s, delivered_message_id = '12345678-1234-1234-1234-123456789012'
                                           WHERE id = ANY(%s) AND status = 'pending'""", (NOW, NOW, ids[offset:offset + a.chunk]))
                            db.commit()
                    spent = time.monotonic() - start
                    results.setdefault(name + "+outcomes", []).append(spent)
                    print(f"round {round_}: {name:11s} outcomes {spent:7.2f} s, {len(ids) / spent:9,.0f} rows/s", flush=True)
        for name, times in results.items():
            median = statistics.median(times)
            print(f"median {name:11s} {median:7.2f} s, {a.rows / median:9,.0f} rows/s")
        db.close()
    finally:
        if server:
            server.terminate()
        as_postgres([f"{pgbin}/pg_ctl", "-D", f"{work}/pg", "-m", "fast", "-w", "stop"], stdout=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
