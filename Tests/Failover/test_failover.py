"""Losing the PostgreSQL primary under a write load (issue #50): three PostgreSQL 15 nodes
under Patroni with synchronous replication, HAProxy in front (tools/failover/failover.py), two
`frostbox serve` (Tests/Support/frostbox_server.py) through HAProxy, ten clients writing
~150 registrations and subscriptions a second to both. After ~10 s the primary's Patroni and
PostgreSQL are killed with SIGKILL (the node is lost); the load goes on until writes have
worked again for ~10 s. Then, on the new primary itself:

- every write answered 2xx is there (one missing fails the test);
- no answer was a 500 or came after the request deadline; every refused write was 503
  `storage_unavailable` with `Retry-After`;
- `/ready` said 503 while there was no primary, and says 200 at the end on both instances.

It prints the figures (writes acknowledged / found, 503s, seconds without writes). Run by
.ci/run after the Schema suite (about a minute: 56 s on a 2-core machine):

    FROSTBOX_BIN=.build/debug/frostbox python3 -m pytest -q -p no:cacheprovider Tests/Failover
"""
import contextlib
import http.client
import json
import os
import random
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "Support"))
from frostbox_server import running_server  # noqa: E402

FAILOVER = ROOT / "tools" / "failover" / "failover.py"
PSQL = "/usr/lib/postgresql/15/bin/psql"
TOKEN = "failover-test-admin-token-0123456789"
CLIENTS = 10
RATE = 15  # writes a second per client: 150 in all
WARM_UP = 10  # seconds of load before the kill
AFTER = 10  # seconds of working writes after the failover before the load stops
GIVE_UP = 120  # seconds after the kill by which writes must work again
DEADLINE = 15  # server.request_timeout (the default)


def short(token):
    """A token as the logs show it: never whole."""
    return f"{token[:6]}…{token[-4:]}"


def failover(*arguments, timeout=300):
    result = subprocess.run([sys.executable, str(FAILOVER), *arguments], capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"failover.py {' '.join(arguments)} failed:\n{result.stdout}\n{result.stderr}"
    return json.loads(result.stdout) if result.stdout.strip() else None


@contextlib.contextmanager
def running_cluster(asynchronous=False, relays=False):
    """The harness started in a temporary directory; stopped and removed on exit, also when
    its start failed half-way. `relays`: through relays `partition` can cut."""
    for tool in ("etcd", "patroni", "haproxy"):
        assert shutil.which(tool), f"{tool} is missing: apt-get install etcd-server patroni haproxy (.ci/run does)"
    directory = Path(tempfile.mkdtemp(prefix="frostbox-failover-")) / "cluster"
    # As root PostgreSQL runs as `postgres`, which must reach the cluster's directory.
    directory.parent.chmod(0o755)
    try:
        try:
            info = failover("start", str(directory), *(["--async"] if asynchronous else []), *(["--relays"] if relays else []))
        except AssertionError as error:
            logs = "".join(f"\n--- {log}\n" + log.read_text()[-2000:] for log in sorted(directory.glob("**/*.log")))
            raise AssertionError(f"{error}{logs}") from None
        info["directory"] = directory
        yield info
    finally:
        keep = os.environ.get("FAILOVER_KEEP")  # a directory to keep the cluster's logs and data in
        subprocess.run([sys.executable, str(FAILOVER), "stop", str(directory), *(["--keep"] if keep else [])], timeout=180)
        if keep:
            shutil.move(str(directory), str(Path(keep) / f"cluster-{int(time.time())}"))
        shutil.rmtree(directory.parent, ignore_errors=True)


@contextlib.contextmanager
def running_servers(cluster):
    """Two `frostbox serve` through HAProxy, both ready."""
    # Every client adds places nobody had: no limit on new boxes (the load comes from one address).
    settings = {"FROSTBOX_DATABASE_URL": cluster["url"], "FROSTBOX_LIMITS_NEW_BOXES_PER_HOUR": "0"}
    with contextlib.ExitStack() as stack:
        # One after the other: the first migrates the new database, the second finds it done.
        live = [stack.enter_context(running_server(TOKEN, settings=settings)) for _ in range(2)]
        for server in live:
            status, _, _ = request(server["url"], "GET", "/ready")
            assert status == 200, f"{server['url']} not ready:\n" + server["log"].read_text()[-2000:]
        yield live


@pytest.fixture(scope="module")
def cluster():
    with running_cluster() as info:
        yield info


@pytest.fixture(scope="module")
def servers(cluster):
    with running_servers(cluster) as live:
        yield live


def request(base, method, path, body=None, connection=None, timeout=DEADLINE + 10):
    """(status, headers, body) — status None with the reason when no answer came."""
    own = connection is None
    if own:
        connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=timeout)
    try:
        payload = json.dumps(body).encode() if body is not None else None
        connection.request(method, path, body=payload, headers={"Content-Type": "application/json"} if payload else {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        if own:
            connection.close()


class Load:
    """Clients that register devices and subscribe them to places, each at RATE a second,
    retrying a refused write as an app would; every answer recorded."""

    def __init__(self, urls):
        self.urls = urls
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.answers = []  # (started, finished, kind, status, error code, Retry-After)
        self.devices = set()  # tokens acknowledged
        self.subscriptions = {}  # (token, name) -> (latitude, longitude) acknowledged
        self.acknowledged_at = {}  # token or (token, name) -> when its answer came
        self.threads = [threading.Thread(target=self.client, args=(index,), daemon=True) for index in range(CLIENTS)]

    def start(self):
        for thread in self.threads:
            thread.start()

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(DEADLINE + 15)

    def acknowledged(self):
        with self.lock:
            return [a[1] for a in self.answers if a[3] is not None and 200 <= a[3] < 300]

    def client(self, index):
        base = self.urls[index % len(self.urls)]
        rng = random.Random(index)
        connection = None
        token, stored, pending = None, 0, None
        next_at = time.monotonic()
        while not self.stopping.is_set():
            if token is None or stored == 3:
                token, stored = secrets.token_hex(32), -1
            if stored == -1:
                kind, path, method, body = "device", f"/v1/devices/{token}", "PUT", {"locale": "fi-FI"}
            else:
                if pending is None:
                    pending = (f"place-{index}-{rng.randrange(10**9)}", round(rng.uniform(55, 70), 5), round(rng.uniform(5, 30), 5))
                name, latitude, longitude = pending
                kind, path, method = "subscription", f"/v1/devices/{token}/subscriptions", "POST"
                body = {"latitude": latitude, "longitude": longitude, "name": name}
            if connection is None:
                connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=DEADLINE + 10)
            started = time.time()
            try:
                status, headers, raw = request(base, method, path, body, connection)
            except (OSError, http.client.HTTPException) as error:
                status, headers, raw = None, {}, str(error).encode()
                connection.close()
                connection = None
            finished = time.time()
            code = None
            if status is not None and not 200 <= status < 300:
                try:
                    code = json.loads(raw)["error"]["code"]
                except (ValueError, KeyError, TypeError):
                    code = raw[:200].decode(errors="replace")
            elif status is None:
                code = raw.decode(errors="replace")
            with self.lock:
                self.answers.append((started, finished, kind, status, code, headers.get("Retry-After")))
                if status is not None and 200 <= status < 300:
                    if kind == "device":
                        self.devices.add(token)
                        self.acknowledged_at[token] = finished
                    else:
                        self.subscriptions[(token, pending[0])] = pending[1:]
                        self.acknowledged_at[(token, pending[0])] = finished
                        pending = None
                    stored += 1
            next_at += 1 / RATE
            pause = next_at - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            else:
                next_at = time.monotonic()
        if connection is not None:
            connection.close()


class ReadyWatch:
    """`/ready` of each instance, asked every quarter second."""

    def __init__(self, urls):
        self.urls = urls
        self.stopping = threading.Event()
        self.seen = []  # (time, url, status)
        self.thread = threading.Thread(target=self.watch, daemon=True)

    def watch(self):
        while not self.stopping.is_set():
            for url in self.urls:
                try:
                    status = request(url, "GET", "/ready", timeout=10)[0]
                except (OSError, http.client.HTTPException):
                    status = None
                self.seen.append((time.time(), url, status))
            time.sleep(0.25)


class PrimaryWatch:
    """Which node Patroni's REST API calls the primary (GET /primary), every fifth of a second:
    when the new primary was promoted, to tell Patroni's part of the time without writes from
    HAProxy's and Frostbox's."""

    def __init__(self, cluster):
        self.ports = {name: node["rest_port"] for name, node in cluster["nodes"].items()}
        self.stopping = threading.Event()
        self.seen = []  # (time, node answering 200 or None)
        self.thread = threading.Thread(target=self.watch, daemon=True)

    def watch(self):
        while not self.stopping.is_set():
            found = None
            for name, port in self.ports.items():
                try:
                    if request(f"http://127.0.0.1:{port}", "GET", "/primary", timeout=1)[0] == 200:
                        found = name
                except (OSError, http.client.HTTPException):
                    pass
            self.seen.append((time.time(), found))
            time.sleep(0.2)


def rows(port, sql):
    result = subprocess.run(
        [PSQL, "-X", "-A", "-t", "-F", "\t", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres", "-d", "frostbox", "-c", sql],
        capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return [line.split("\t") for line in result.stdout.splitlines() if line]


# Each scenario: the event (a failover.py command), then, once the new primary has taken writes
# for a while, what follows it (None, or a failover.py command that brings the old primary back).
ACTIONS = {
    "kill-primary": ("kill-primary", None),
    "switchover": ("switchover", None),
    "rejoin": ("kill-primary", "rejoin"),  # the lost node restarted: pg_rewind, then a replica
    "partition": ("partition", "heal"),  # the primary cut off from etcd and the replicas, then healed
}


def old_primary_of(event):
    return event.get("killed") or event.get("from") or event.get("isolated")


def compare_with_primary(cluster, status, node, tables):
    """Once `node` has replayed everything the primary wrote so far: per query in `tables`,
    rows the node has that the primary has not (leaked back from the old primary's own WAL)
    and rows it lacks. The writes must have stopped."""
    primary_port = status["nodes"][status["primary"]]["pg_port"]
    node_port = status["nodes"][node]["pg_port"]
    target = rows(primary_port, "SELECT pg_current_wal_lsn()")[0][0]
    deadline = time.time() + 60
    while time.time() < deadline:
        caught_up = rows(node_port, f"SELECT coalesce(pg_last_wal_replay_lsn() >= '{target}', false)")[0][0]
        if caught_up == "t":
            break
        time.sleep(0.5)
    else:
        return {"caught up": False}
    result = {"caught up": True}
    for name, sql in tables.items():
        on_primary = {tuple(row) for row in rows(primary_port, sql)}
        on_node = {tuple(row) for row in rows(node_port, sql)}
        result[name] = {"rows": len(on_node), "not on the primary": len(on_node - on_primary), "missing": len(on_primary - on_node)}
    return result


def rejoin_figures(then, second, comparison, status):
    """What a scenario reports of the old primary's return (`then`: "rejoin" or "heal")."""
    figures = {
        f"{then}: old primary streaming, s after the command": second["seconds to streaming"],
        f"{then}: pg_rewind ran": second["pg_rewind ran"],
        f"{then}: pg_rewind said": [line for line in second["pg_rewind log"] if "diverged" in line or "required" in line or "exit code" in line],
        f"{then}: timeline, sync_state": [second["timeline"], second["sync_state"]],
        f"{then}: old primary against the new": comparison,
        "members": [[m["name"], m["role"], m["state"], m.get("timeline")] for m in status.get("members", [])],
    }
    if "while cut off" in second:
        figures["partition: the isolated primary's Patroni"] = second["while cut off"]
        figures["partition: demoted, s after the cut"] = second.get("demoted, s after the cut")
    return figures


def rejoin_problems(second, comparison, status, old_primary):
    """What did not hold once the old primary came back."""
    problems = []
    member = {m["name"]: m for m in status.get("members", [])}.get(old_primary, {})
    if member.get("role") not in ("replica", "sync_standby"):
        problems.append(f"{old_primary} is not a replica after {second.get('command')}: {member}")
    if not any(m.get("role") == "sync_standby" for m in status.get("members", [])):
        problems.append(f"no synchronous standby after {second.get('command')}: {status.get('members')}")
    if not comparison.get("caught up"):
        problems.append(f"{old_primary} did not catch up with the primary within 60 s")
    for table, counts in comparison.items():
        if isinstance(counts, dict) and (counts["not on the primary"] or counts["missing"]):
            problems.append(f"{old_primary} after {second.get('command')}: {table} {counts}")
    return problems


def scenario(cluster, servers, action="kill-primary", *options):
    """Load, then `action` (ACTIONS: failover.py kill-primary, switchover or partition), load
    until writes have worked again for AFTER seconds; for rejoin and partition the old primary
    is then brought back (failover.py rejoin or heal) and the load goes on AFTER seconds more;
    what was checked afterwards on the new primary (and on the old one, once a replica).
    Returns (figures, problems): problems are the failures' messages, empty when all held."""
    command, then = ACTIONS[action]
    second = None
    began = time.time()
    urls = [server["url"] for server in servers]
    load, ready, primaries = Load(urls), ReadyWatch(urls), PrimaryWatch(cluster)
    wal_start = rows(cluster["haproxy_port"], "SELECT pg_current_wal_lsn()")[0][0]
    ready.thread.start()
    primaries.thread.start()
    load.start()
    load_began = time.time()
    try:
        time.sleep(WARM_UP)
        event = failover(command, str(cluster["directory"]), *options)
        kill_at, returned = event["at"], time.time()
        # The load goes on until writes have worked again for AFTER seconds (a switchover
        # returns once the new primary runs).
        back_at = None
        while time.time() < kill_at + GIVE_UP:
            time.sleep(0.5)
            if back_at is None:
                after = [t for t in load.acknowledged() if t > returned + 0.5]
                back_at = min(after) if after else None
            elif time.time() > back_at + AFTER:
                break
        if then is not None and back_at is not None:
            second = {**failover(then, str(cluster["directory"])), "command": then}
            second["acknowledged before"] = len(load.acknowledged())
            time.sleep(AFTER)
    finally:
        load.stop()
    # /ready must come back on both instances.
    deadline = time.time() + 30
    while time.time() < deadline and not all(request(url, "GET", "/ready")[0] == 200 for url in urls):
        time.sleep(0.5)
    ready.stopping.set()
    primaries.stopping.set()
    ready.thread.join(15)
    primaries.thread.join(15)
    logs = "\n".join(f"--- {s['url']}\n" + s["log"].read_text()[-3000:] for s in servers)
    if os.environ.get("FAILOVER_KEEP"):
        for index, server in enumerate(servers):
            shutil.copy(server["log"], Path(os.environ["FAILOVER_KEEP"]) / f"server-{index}-{int(began)}.log")
    assert back_at is not None, f"writes did not work again within {GIVE_UP} s of {action}\n{logs}"

    # Every acknowledged write, on the new primary itself.
    status = failover("status", str(cluster["directory"]))
    new_primary = status["primary"]
    old_primary = old_primary_of(event)
    assert new_primary and new_primary != old_primary, status
    port = status["nodes"][new_primary]["pg_port"]
    stored_devices = {row[0] for row in rows(port, "SELECT token FROM device")}
    stored_subscriptions = {(row[0], row[1]): (float(row[2]), float(row[3]))
                            for row in rows(port, "SELECT token, name, latitude, longitude FROM subscription")}
    missing_devices = sorted(load.devices - stored_devices)
    missing_subscriptions = sorted(key for key in load.subscriptions if key not in stored_subscriptions)
    wrong_points = sorted(key for key, point in load.subscriptions.items()
                          if key in stored_subscriptions and any(abs(a - b) > 1e-6 for a, b in zip(point, stored_subscriptions[key])))

    answers = load.answers
    acknowledged = sorted(a[1] for a in answers if a[3] is not None and 200 <= a[3] < 300)
    refused = [a for a in answers if a[3] is None or not 200 <= a[3] < 300]
    unavailable = [a for a in refused if a[3] == 503 and a[4] == "storage_unavailable" and a[5]]
    other = [a for a in refused if a not in unavailable]
    slow = [a for a in answers if a[1] - a[0] > DEADLINE + 1]
    before = [t for t in acknowledged if t <= kill_at]
    # The time without writes: the longest wait between two acknowledged writes (a few
    # milliseconds apart while the primary is there).
    gap, gap_end = max((later - earlier, later) for earlier, later in zip(acknowledged, acknowledged[1:]))
    not_ready = sorted({s[1] for s in ready.seen if s[0] > kill_at and s[2] == 503})
    final_ready = {url: request(url, "GET", "/ready")[0] for url in urls}
    acknowledged_count = len(load.devices) + len(load.subscriptions)
    promoted = min((t for t, name in primaries.seen if t > kill_at and name not in (None, old_primary)), default=None)
    # What async replication puts at risk: the WAL a write costs (the lag bound, Patroni's
    # maximum_lag_on_failover of 1 MB, is that many writes).
    wal = float(rows(port, f"SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '{wal_start}')")[0][0])
    figures = {
        "action": " ".join([action, *options]),
        "synchronous": cluster["synchronous"],
        "writes": len(answers),
        "acknowledged writes a second before": round(len(before) / (kill_at - load_began), 1),
        "acknowledged": acknowledged_count,
        "found": acknowledged_count - len(missing_devices) - len(missing_subscriptions),
        "devices acknowledged": len(load.devices),
        "subscriptions acknowledged": len(load.subscriptions),
        "WAL bytes per acknowledged write": round(wal / max(1, acknowledged_count)),
        "503 storage_unavailable": len(unavailable),
        "other refusals": len(other),
        "answers past the deadline": len(slow),
        "seconds without writes": round(gap, 1),
        "seconds from the event to the end of that gap": round(gap_end - kill_at, 1),
        "seconds from the event to the new primary's promotion": round(promoted - kill_at, 1) if promoted else None,
        # Not always the end of the longest gap: a fenced primary may answer writes in between.
        "seconds from the event to the first write acknowledged after the promotion": round(
            min((t for t in acknowledged if t > promoted), default=float("nan")) - kill_at, 1) if promoted else None,
        "instances with /ready 503": len(not_ready),
        "old primary": old_primary,
        "new primary": new_primary,
    }
    problems = []
    if then is not None:
        # The old primary back as a replica: what it holds, once it has replayed everything,
        # against the new primary (nothing it wrote and never acknowledged may come back).
        comparison = compare_with_primary(cluster, status, old_primary, {
            "devices": "SELECT token FROM device", "subscriptions": "SELECT token, name FROM subscription"})
        figures.update({
            f"{then}: acknowledged writes after it": len(load.acknowledged()) - second["acknowledged before"],
            f"{then}: writes refused after it": sum(1 for a in answers if a[0] >= second["at"] and not (a[3] and 200 <= a[3] < 300)),
        })
        figures.update(rejoin_figures(then, second, comparison, status))
        problems += rejoin_problems(second, comparison, status, old_primary)
    figures["seconds"] = round(time.time() - began, 1)
    if missing_devices or missing_subscriptions:
        problems.append(
            f"acknowledged writes missing on the new primary: {len(missing_devices)} devices "
            f"({', '.join(short(t) for t in missing_devices[:10])}), {len(missing_subscriptions)} subscriptions "
            f"({', '.join(f'{short(t)} {n}' for t, n in missing_subscriptions[:10])}); acknowledged at, s after the event: "
            f"{sorted(round(load.acknowledged_at[key] - kill_at, 3) for key in [*missing_devices, *missing_subscriptions])[:20]}")
    if wrong_points:
        problems.append(f"subscriptions stored at another point: {len(wrong_points)}")
    if other:
        problems.append("refusals other than 503 storage_unavailable with Retry-After: " + repr(
            sorted({(a[2], a[3], a[4], bool(a[5])) for a in other})) + "\n" + logs)
    if slow:
        problems.append(f"{len(slow)} answers took longer than the {DEADLINE} s request deadline")
    if len(not_ready) != len(urls):
        problems.append(f"/ready was never 503 after {action} on {len(urls) - len(not_ready)} instance(s)")
    if not all(code == 200 for code in final_ready.values()):
        problems.append(f"/ready at the end: {final_ready}")
    return figures, problems


def test_killing_the_primary_loses_no_acknowledged_write(cluster, servers, capsys):
    figures, problems = scenario(cluster, servers, "kill-primary")
    with capsys.disabled():
        print("\nfailover: " + json.dumps(figures))
    assert not problems, "\n".join(problems)


# --- A notify run during a failover (issue #50), by hand only: not collected by pytest (its
# function's name does not start with test_), since CI's time is tight.

NOTIFY_DEVICES = 4000
NOTIFY_BOXES = 200
NOTIFY_CONCURRENCY = 40  # notifier.concurrency on each instance
NOTIFY_KILL_AFTER = 1500  # pushes the APNs stand-in has accepted when the primary goes
NOTIFY_LATENCY_MS = 100  # the stand-in's delay before each answer: delivery lasts seconds, not one
APP = "com.example.frost"
KEY_ID, TEAM_ID = "FAIL123456", "TEAM123456"


def admin(base, method, path, timeout=DEADLINE + 10):
    """(status, parsed JSON or raw text) of an admin request; status None when no answer came."""
    connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=timeout)
    try:
        connection.request(method, path, headers={"Authorization": f"Bearer {TOKEN}"})
        response = connection.getresponse()
        raw = response.read()
        try:
            return response.status, json.loads(raw)
        except ValueError:
            return response.status, raw[:500].decode(errors="replace")
    except (OSError, http.client.HTTPException) as error:
        return None, str(error)
    finally:
        connection.close()


@contextlib.contextmanager
def running_double(binary, arguments, directory, lines):
    """A loopback double (mock-apns, mock-open-meteo) on port 0: yields the first `lines` lines
    it prints (its port, then mock-apns' certificate path); stopped on exit."""
    assert Path(binary).is_file(), f"{binary} is missing: swift build --product {Path(binary).name}"
    out_path = directory / f"{Path(binary).name}.out"
    with open(out_path, "w") as out:
        process = subprocess.Popen([str(binary), *arguments], stdout=out, stderr=subprocess.STDOUT, cwd=directory)
    try:
        deadline = time.time() + 30
        printed = []
        while time.time() < deadline:
            printed = out_path.read_text().splitlines()
            if len(printed) >= lines or process.poll() is not None:
                break
            time.sleep(0.05)
        assert len(printed) >= lines and printed[0].strip().isdigit(), f"{binary} did not start:\n{out_path.read_text()[-2000:]}"
        yield [line.strip() for line in printed[:lines]]
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def read_deliveries(path):
    """The stand-in's accepted pushes: (apns-id upper-cased, token), one per line."""
    found = []
    if not path.exists():
        return found
    for line in path.read_text().splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue  # a line being written
        found.append(((item.get("apns_id") or "").upper(), item.get("token", "")))
    return found


def count_lines(path):
    try:
        with open(path, "rb") as file:
            return sum(1 for _ in file)
    except FileNotFoundError:
        return 0


def seed(urls, devices, boxes):
    """`devices` iOS devices, one subscription each, spread over `boxes` boxes 0.1° apart in
    southern Finland, through both instances' API (20 clients). Returns the tokens."""
    tokens = ["ab" + secrets.token_hex(31) for _ in range(devices)]  # no fault prefix of the stand-in
    failures = []

    def client(index):
        base = urls[index % len(urls)]
        connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=DEADLINE + 10)
        for number in range(index, devices, 20):
            token, box = tokens[number], number % boxes
            latitude, longitude = 60.02 + (box // 20) * 0.1, 20.02 + (box % 20) * 0.1
            for method, path, body in (
                    ("PUT", f"/v1/devices/{token}", {"app": APP, "environment": "sandbox", "locale": "fi-FI"}),
                    ("POST", f"/v1/devices/{token}/subscriptions", {"latitude": latitude, "longitude": longitude, "name": f"Box {box}"})):
                try:
                    status, _, raw = request(base, method, path, body, connection)
                except (OSError, http.client.HTTPException) as error:
                    status, raw = None, str(error).encode()
                    connection.close()
                    connection = http.client.HTTPConnection(base.removeprefix("http://"), timeout=DEADLINE + 10)
                if status is None or not 200 <= status < 300:
                    failures.append((method, short(token), status, raw[:200]))
        connection.close()

    threads = [threading.Thread(target=client, args=(index,), daemon=True) for index in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failures, f"{len(failures)} seeding requests failed, e.g. {failures[:5]}"
    return tokens


def cluster_rows(cluster, sql):
    """Rows through HAProxy, or None while there is no primary to answer."""
    try:
        return rows(cluster["haproxy_port"], sql)
    except (AssertionError, subprocess.TimeoutExpired):
        return None


def wait_for_runs_to_end(cluster, timeout):
    """Waits until no notify run is `running` (asked through HAProxy); whether that happened."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        running = cluster_rows(cluster, "SELECT count(*) FROM notify_run WHERE status = 'running'")
        if running is not None and running[0][0] == "0":
            return True
        time.sleep(1)
    return False


def notify_scenario(cluster, action="kill-primary", devices=NOTIFY_DEVICES, boxes=NOTIFY_BOXES,
                    kill_after=NOTIFY_KILL_AFTER, latency_ms=NOTIFY_LATENCY_MS):
    """Seeds devices, starts a shared notify run on two instances, `action` (ACTIONS) once the
    APNs stand-in accepted `kill_after` pushes (for rejoin and partition, the old primary is
    brought back 5 s after the new one was promoted, while the run goes on), waits for the run
    to end, runs again until nothing is pending; checks on the new primary. Returns (figures,
    problems)."""
    command, then = ACTIONS[action]
    second = None
    began = time.time()
    work = Path(tempfile.mkdtemp(prefix="frostbox-failover-notify-"))
    try:
        with contextlib.ExitStack() as stack:
            # The stand-ins: APNs with token auth (the key Frostbox signs with), Open-Meteo
            # with frost tonight in every box.
            key = work / f"AuthKey_{KEY_ID}.p8"
            subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", str(key)],
                           check=True, capture_output=True)
            key.chmod(0o600)
            deliveries = work / "deliveries.jsonl"
            build = ROOT / ".build" / "debug"
            apns_port, certificate = stack.enter_context(running_double(
                os.environ.get("MOCK_APNS_BIN", build / "mock-apns"),
                ["--port", "0", "--cert-dir", str(work), "--key", f"{KEY_ID}:{TEAM_ID}:{key}", "--topic", APP,
                 "--deliveries", str(deliveries), "--latency-ms", str(latency_ms), "--threads", "2"], work, 2))
            scenario_file = work / "frost.json"
            scenario_file.write_text(json.dumps({"frost_everywhere": {"latitude": 0, "longitude": 0, "minimum_c": -4, "nights": [0]}}))
            (meteo_port,) = stack.enter_context(running_double(
                os.environ.get("MOCK_OPEN_METEO_BIN", build / "mock-open-meteo"), ["--port", "0", "--scenario", str(scenario_file)], work, 1))
            apps = work / "apps.json"
            apps.write_text(json.dumps({"apps": [{
                "bundle_id": APP, "environment": "sandbox", "host": f"127.0.0.1:{apns_port}", "trusted_certificates_path": certificate,
                "key_path": str(key), "key_id": KEY_ID, "team_id": TEAM_ID}]}))
            settings = {
                "FROSTBOX_DATABASE_URL": cluster["url"],
                "FROSTBOX_LIMITS_NEW_BOXES_PER_HOUR": "0",
                "FROSTBOX_FORECAST_URL": f"http://127.0.0.1:{meteo_port}",
                "FROSTBOX_APNS_APPS_FILE": str(apps),
                "FROSTBOX_DEVICES_VERIFY": "false",
                "FROSTBOX_NOTIFIER_CONCURRENCY": str(NOTIFY_CONCURRENCY),
                # Chunks of 20 boxes (a chunk is rounded up to forecast.batch, 1,000 by
                # default): both instances claim boxes; one chunk of all 200 leaves the second
                # instance nothing to do.
                "FROSTBOX_FORECAST_BATCH": "20",
                "FROSTBOX_NOTIFIER_BOXES_PER_CHUNK": "20",
            }  # running_server sets the first run 24 h away: this test starts the runs itself
            servers = []
            for _ in range(2):
                servers.append(stack.enter_context(running_server(TOKEN, settings=settings)))
            urls = [server["url"] for server in servers]
            for url in urls:
                assert request(url, "GET", "/ready")[0] == 200, f"{url} not ready"
            seed_began = time.time()
            seed(urls, devices, boxes)
            seed_seconds = time.time() - seed_began

            ready, primaries = ReadyWatch(urls), PrimaryWatch(cluster)
            ready.thread.start()
            primaries.thread.start()
            answers = []  # (time, what, status) of every admin request
            try:
                started_at = time.time()
                # The first instance starts the run; the second joins it within
                # notifier.join_interval (5 s) by itself (asked, it answers 409 run_in_progress).
                status, body = admin(urls[0], "POST", "/admin/notify")
                answers.append((time.time(), "notify", status))
                assert status == 202, f"POST /admin/notify on {urls[0]}: {status} {body}"
                first_run = cluster_rows(cluster, "SELECT max(id) FROM notify_run")[0][0]
                # The event once the stand-in has accepted `kill_after` pushes.
                deadline = time.time() + 180
                while count_lines(deliveries) < kill_after and time.time() < deadline:
                    running = cluster_rows(cluster, "SELECT count(*) FROM notify_run WHERE status = 'running'")
                    if running is not None and running[0][0] == "0":
                        break
                    time.sleep(0.05)
                pushes_at_event = count_lines(deliveries)
                event = failover(command, str(cluster["directory"]))
                event_at = event["at"]

                def bring_back_when_due(force=False):
                    """rejoin / heal once the new primary has been promoted 5 s (at once with `force`)."""
                    nonlocal second
                    if then is None or second is not None:
                        return
                    promoted_at = min((t for t, name in primaries.seen if t > event_at and name not in (None, old_primary_of(event))),
                                      default=None)
                    if force or (promoted_at is not None and time.time() > promoted_at + 5):
                        second = {**failover(then, str(cluster["directory"])), "command": then,
                                  "pushes accepted": count_lines(deliveries)}

                # The summary on both instances while the run ends (a 500 would be a finding).
                ended = False
                deadline = time.time() + 300
                while time.time() < deadline and not ended:
                    for url in urls:
                        answers.append((time.time(), "summary", admin(url, "GET", "/admin/status/summary", timeout=10)[0]))
                    bring_back_when_due()
                    ended = wait_for_runs_to_end(cluster, 1)
                assert ended, "the run did not end within 300 s of " + action
                bring_back_when_due(force=True)
                first_ended_at = time.time()
                pushes_after_first = count_lines(deliveries)
                # What the first run left: its status beside the alerts still pending then.
                first_left = cluster_rows(cluster, f"SELECT status, coalesce(error, ''), (SELECT count(*) FROM outbox WHERE status = 'pending') FROM notify_run WHERE id = {first_run}")[0]
                # Runs again until nothing is pending, as the kill tests do.
                again = 0
                while again < 3:
                    pending = cluster_rows(cluster, "SELECT count(*) FROM outbox WHERE status = 'pending'")
                    if pending is not None and pending[0][0] == "0":
                        break
                    again += 1
                    for url in urls:
                        status, body = admin(url, "POST", "/admin/notify")
                        answers.append((time.time(), "notify again", status))
                    time.sleep(1)
                    assert wait_for_runs_to_end(cluster, 300), "a later run did not end"
                # /ready must come back on both instances.
                deadline = time.time() + 30
                while time.time() < deadline and not all(request(url, "GET", "/ready")[0] == 200 for url in urls):
                    time.sleep(0.5)
            finally:
                ready.stopping.set()
                primaries.stopping.set()
                ready.thread.join(15)
                primaries.thread.join(15)
            final_ready = {url: request(url, "GET", "/ready")[0] for url in urls}
            logs = {server["url"]: server["log"].read_text() for server in servers}
            summaries = [
                [index, int(match[0]), match[1], int(match[2]), int(match[3]), int(match[4])]
                for index, log in enumerate(logs.values())
                for match in re.findall(r"summary=run (\d+) (\w+): boxes=(\d+) .*? planned=(\d+) .*? delivered=(\d+) ", log)]

            # On the new primary itself.
            status = failover("status", str(cluster["directory"]))
            new_primary = status["primary"]
            old_primary = old_primary_of(event)
            port = status["nodes"][new_primary]["pg_port"]
            if then is not None:
                # The old primary back as a replica, against the new primary once it replayed all.
                comparison = compare_with_primary(cluster, status, old_primary, {
                    "devices": "SELECT token FROM device",
                    "outbox": "SELECT id, status, delivered_message_id FROM outbox",
                    "notify_run": "SELECT id, status, alerts_planned, alerts_delivered FROM notify_run",
                    "run_worker": "SELECT run_id, worker, finished_at, alerts_planned, alerts_delivered FROM run_worker"})
            outbox = rows(port, "SELECT id, status, message_id, delivered_message_id, attempts, run_id, claimed_by FROM outbox")
            runs = rows(port, f"SELECT id, status, alerts_planned, alerts_delivered, coalesce(error, '') FROM notify_run WHERE id >= {first_run} ORDER BY id")
            workers = rows(port, f"SELECT run_id, worker, coalesce(finished_at::text, ''), coalesce(summary, ''), alerts_planned, alerts_delivered, alerts_carried_over FROM run_worker WHERE run_id >= {first_run} ORDER BY run_id, joined_at")
            open_boxes = rows(port, "SELECT run_id, count(*), count(*) FILTER (WHERE lease_until IS NOT NULL) FROM run_box WHERE done_at IS NULL GROUP BY run_id")
            claimed_pending = rows(port, "SELECT count(*) FROM outbox WHERE status = 'pending' AND claimed_by IS NOT NULL")[0][0]
            open_workers = rows(port, "SELECT count(*) FROM run_worker w JOIN notify_run r ON r.id = w.run_id WHERE r.status != 'running' AND w.finished_at IS NULL")[0][0]

        received = read_deliveries(deliveries)
        by_id = {}
        for message_id, token in received:
            by_id.setdefault(message_id, []).append(token)
        # The apns-id an alert went out under: fixed when it is planned, and what it was
        # delivered under (the same for APNs).
        planned = {(row[3] or row[2]).upper(): row for row in outbox}
        differing = sum(1 for row in outbox if row[2] and row[3] and row[2].upper() != row[3].upper())
        not_delivered = [row for row in outbox if row[1] != "delivered"]
        not_received = sorted(set(planned) - set(by_id))
        unplanned = sorted(set(by_id) - set(planned))
        resent = sum(len(tokens) - 1 for message_id, tokens in by_id.items() if message_id in planned)
        resent_ids = sum(1 for message_id, tokens in by_id.items() if message_id in planned and len(tokens) > 1)
        mismatched = sum(1 for tokens in by_id.values() if len(set(tokens)) > 1)
        bound = 2 * NOTIFY_CONCURRENCY  # each instance's in-flight bound; both sent when the primary went
        not_ready = sorted({s[1] for s in ready.seen if s[0] > event_at and s[2] == 503})
        ready_statuses = sorted({s[2] for s in ready.seen if s[2] is not None})
        errors = sorted({(what, code) for _, what, code in answers if code is not None and code >= 500 and code != 503})
        promoted = min((t for t, name in primaries.seen if t > event_at and name not in (None, old_primary)), default=None)
        figures = {
            "action": action,
            "synchronous": cluster["synchronous"],
            "devices": devices,
            "boxes": boxes,
            "seeding seconds": round(seed_seconds, 1),
            "APNs latency ms": latency_ms,
            "pushes accepted at the event": pushes_at_event,
            "seconds from the first POST /admin/notify to the event": round(event_at - started_at, 1),
            "seconds from the event to the new primary's promotion": round(promoted - event_at, 1) if promoted else None,
            "seconds from the event to the end of the first run": round(first_ended_at - event_at, 1),
            "pushes accepted when the first run ended": pushes_after_first,
            "first run's status, error, alerts pending when it ended": [first_left[0], first_left[1][:300], int(first_left[2])],
            "later runs": again,
            "alerts planned": len(outbox),
            "alerts delivered (outbox)": len(outbox) - len(not_delivered),
            "planned alerts received by the stand-in": len(planned) - len(not_received),
            "pushes accepted in all": len(received),
            "resent (pushes beyond one per apns-id)": resent,
            "apns-ids received more than once": resent_ids,
            "in-flight bound (2 instances × notifier.concurrency)": bound,
            "pushes of an apns-id not planned": len(unplanned),
            "alerts delivered under another apns-id than planned": differing,
            "run summaries logged (instance, run, status, boxes, planned, delivered)": summaries,
            "notifier log lines (notice and worse) per instance": {
                index: [line[:700] for line in log.splitlines()
                        if "[FrostboxNotifier]" in line and re.search(r" (notice|warning|error|critical) ", line)]
                for index, log in enumerate(logs.values())},
            "runs": [{"id": int(r[0]), "status": r[1], "planned": int(r[2]), "delivered": int(r[3]), "error": r[4][:300]} for r in runs],
            "workers": [{"run": int(w[0]), "finished": bool(w[2]), "summary": w[3][:200], "planned": int(w[4]), "delivered": int(w[5]),
                         "carried over": int(w[6])} for w in workers],
            "run_box rows not done (run, rows, with a lease)": [[int(c) for c in b] for b in open_boxes],
            "pending outbox rows still claimed": int(claimed_pending),
            "workers of ended runs never finished": int(open_workers),
            "instances with /ready 503 after the event": len(not_ready),
            "/ready statuses seen": ready_statuses,
            "/ready at the end": list(final_ready.values()),
            "admin answers 5xx other than 503": errors,
            "old primary": old_primary,
            "new primary": new_primary,
        }
        problems = []
        if then is not None:
            figures.update({
                f"{then}: pushes accepted when it began": second["pushes accepted"],
                f"{then}: s after the event": round(second["at"] - event_at, 1),
            })
            figures.update(rejoin_figures(then, second, comparison, status))
            problems += rejoin_problems(second, comparison, status, old_primary)
        figures["seconds"] = round(time.time() - began, 1)
        if not_delivered:
            problems.append(f"{len(not_delivered)} planned alerts not delivered in the outbox, e.g. {not_delivered[:3]}")
        if not_received:
            problems.append(f"{len(not_received)} planned apns-ids never received by the stand-in, e.g. {not_received[:3]}")
        if unplanned:
            problems.append(f"{len(unplanned)} apns-ids received that are not in the outbox, e.g. {unplanned[:3]}")
        if differing:
            problems.append(f"{differing} alerts delivered under another apns-id than planned")
        if mismatched:
            problems.append(f"{mismatched} apns-ids sent to more than one token")
        if resent > bound:
            problems.append(f"resent {resent} > the in-flight bound {bound}")
        if any(r[1] == "running" for r in runs):
            problems.append("a run is still running: " + repr(runs))
        # The first run could not record outcomes while the primary was gone: it ends failed or
        # goes on; completed with alerts pending it must not be.
        if first_left[0] == "completed" and first_left[2] != "0":
            problems.append(f"run {first_run} ended completed with {first_left[2]} alerts pending")
        # The runs' totals (the sum of their workers' parts) against the outbox.
        planned_by_runs = sum(int(r[2]) for r in runs)
        if planned_by_runs != len(outbox):
            problems.append(f"the runs' totals say {planned_by_runs} alerts planned, the outbox holds {len(outbox)}: "
                            f"runs {runs}, workers {[w[:2] + w[4:] for w in workers]}")
        delivered_by_runs = sum(int(r[3]) for r in runs)
        if delivered_by_runs != len(outbox) - len(not_delivered):
            problems.append(f"the runs' totals say {delivered_by_runs} alerts delivered, the outbox holds {len(outbox) - len(not_delivered)} "
                            f"delivered: runs {runs}, workers {[w[:2] + w[4:] for w in workers]}")
        if open_boxes:
            problems.append(f"run_box rows left not done: {open_boxes}")
        if claimed_pending != "0":
            problems.append(f"{claimed_pending} pending outbox rows still claimed")
        if open_workers != "0":
            problems.append(f"{open_workers} workers of ended runs never finished")
        if len(not_ready) != 2:
            problems.append(f"/ready was never 503 after {action} on {2 - len(not_ready)} instance(s)")
        if not all(code == 200 for code in final_ready.values()):
            problems.append(f"/ready at the end: {final_ready}")
        if errors:
            problems.append(f"5xx answers other than 503: {errors}")
        if problems:
            for url, log in logs.items():
                problems.append(f"--- log of {url} (last 3000 characters)\n" + log[-3000:])
        return figures, problems
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    """By hand, for the scenarios CI does not run (their figures are in docs/benchmarks.md):

        python3 Tests/Failover/test_failover.py switchover
        python3 Tests/Failover/test_failover.py kill-primary --async
        python3 Tests/Failover/test_failover.py kill-primary --async --replicas-behind 2
        python3 Tests/Failover/test_failover.py notify-kill-primary
        python3 Tests/Failover/test_failover.py notify-switchover
        python3 Tests/Failover/test_failover.py rejoin              # kill -9, then the node restarted
        python3 Tests/Failover/test_failover.py partition           # the primary cut off, then healed
        python3 Tests/Failover/test_failover.py notify-rejoin
        python3 Tests/Failover/test_failover.py notify-partition

    notify-…: a shared notify run of two instances (4,000 devices over 200 boxes, APNs and
    Open-Meteo stand-ins: MOCK_APNS_BIN and MOCK_OPEN_METEO_BIN, default .build/debug/…) loses
    its primary once the APNs stand-in has accepted 1,500 pushes (see notify_scenario).

    Prints the figures and what did not hold (under --async, acknowledged writes may be lost:
    that is the contrast it is for); exits 1 when something did not hold."""
    import argparse
    parser = argparse.ArgumentParser(description=main.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=[*ACTIONS, *(f"notify-{action}" for action in ACTIONS)])
    parser.add_argument("--async", dest="asynchronous", action="store_true", help="asynchronous replication")
    parser.add_argument("--replicas-behind", metavar="SECONDS", help="kill-primary: the replicas that far behind (failover.py)")
    args = parser.parse_args()
    options = ["--replicas-behind", args.replicas_behind] if args.replicas_behind else []
    relays = args.action.endswith("partition")
    if args.action.startswith("notify-"):
        with running_cluster(args.asynchronous, relays) as cluster:
            figures, problems = notify_scenario(cluster, args.action.removeprefix("notify-"))
    else:
        with running_cluster(args.asynchronous, relays) as cluster, running_servers(cluster) as servers:
            figures, problems = scenario(cluster, servers, args.action, *options)
    print(json.dumps(figures, indent=2))
    for problem in problems:
        print("did not hold: " + problem[:3000])
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
