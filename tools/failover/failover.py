#!/usr/bin/env python3
"""A PostgreSQL failover cluster on loopback for Frostbox's failover tests (issue #50): one
etcd, three PostgreSQL 15 nodes under Patroni (synchronous replication unless --async) and
HAProxy in front, sending connections to whichever node Patroni's REST API calls the primary.
Every port is free when chosen (bound on port 0 first); nothing listens beyond 127.0.0.1.

    failover.py start DIR [--async] [--relays]
                                      start everything in DIR (new or empty); prints JSON
    failover.py status DIR            the nodes, their roles and lag, as JSON
    failover.py kill-primary DIR [--replicas-behind S]
                                      SIGKILL the primary's Patroni and PostgreSQL (node lost);
                                      with S, the replicas S seconds behind at that moment
    failover.py switchover DIR        a planned switchover to a replica (patronictl)
    failover.py rejoin DIR            restart the node kill-primary lost: it rejoins as a replica
                                      (pg_rewind), returns once it streams on the new timeline
    failover.py partition DIR [--clients]
                                      cut the primary off from etcd and the other nodes (and
                                      HAProxy with --clients); needs start --relays
    failover.py heal DIR              undo partition; returns once the old primary streams again
    failover.py stop DIR [--keep]     stop everything (idempotent); removes DIR unless --keep

Debian's packages: etcd-server, patroni, haproxy, postgresql-15. See README.md beside it.
Standard library only; run as root or as any user (as root, Patroni and PostgreSQL run as
`postgres`, since initdb refuses root).
"""
import argparse
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

PG_BIN = Path(os.environ.get("FAILOVER_PG_BIN", "/usr/lib/postgresql/15/bin"))
NODES = ("n0", "n1", "n2")
DATABASE = "frostbox"
# Patroni's timing, tuned for a quick failover (README.md says what each costs). Patroni wants
# ttl >= loop_wait + 2 * retry_timeout.
TTL, LOOP_WAIT, RETRY_TIMEOUT = 10, 2, 4


def free_ports(count):
    """`count` distinct ports the kernel hands out for port 0, released for the caller."""
    sockets, ports = [], []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in sockets:
            s.close()
    return ports


def run_as():
    """The user PostgreSQL runs as: `postgres` when we are root, else ourselves (None)."""
    if os.geteuid() != 0:
        return None
    return pwd.getpwnam("postgres")


def chown_tree(path, user):
    if user is None:
        return
    for root, dirs, files in os.walk(path):
        os.chown(root, user.pw_uid, user.pw_gid)
        for name in files:
            os.chown(os.path.join(root, name), user.pw_uid, user.pw_gid)


def spawn(argv, log, user=None, env=None):
    """A detached process (its own session, so it outlives this command) logging to `log`."""
    extra = {}
    if user is not None:
        extra = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    with open(log, "ab") as out:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env, **extra)
    return process.pid


def http_get(url, timeout=1.0):
    """(status, body) of a GET, (None, reason) when nothing answered."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except (OSError, urllib.error.URLError) as error:
        return None, str(error)


def psql(port, sql, database="postgres", timeout=10):
    """Runs `sql` on 127.0.0.1:`port` as `postgres` (trust on loopback); its unaligned output."""
    result = subprocess.run(
        [str(PG_BIN / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
         "-d", database, "-c", sql],
        capture_output=True, text=True, timeout=timeout, env={**os.environ, "PGCONNECT_TIMEOUT": "2"})
    if result.returncode != 0:
        raise RuntimeError(result.stderr.strip())
    return result.stdout.strip()


def load_state(directory):
    path = Path(directory) / "state.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())


def save_state(directory, state):
    path = Path(directory) / "state.json"
    path.write_text(json.dumps(state, indent=2) + "\n")


def patroni_yaml(directory, state, name, synchronous):
    node = state["nodes"][name]
    data = Path(directory) / name
    relays = state.get("relays") or {}
    # With relays (start --relays), what the others use to reach this node, and this node's
    # way to etcd, pass through the relay process, which `partition` can cut.
    pg_address = relays.get(f"{name}/pg", node["pg_port"])
    rest_address = relays.get(f"{name}/rest", node["rest_port"])
    etcd_port = relays.get(f"{name}/etcd", state["etcd_port"])
    # YAML written by hand: JSON is YAML, so every value is a JSON literal.
    q = json.dumps
    return f"""# Patroni node {name} of the failover harness (tools/failover/failover.py writes it).
scope: {q(state["scope"])}
namespace: /frostbox-failover/
name: {name}
log:
  level: INFO
restapi:
  listen: {q(f"127.0.0.1:{node['rest_port']}")}
  connect_address: {q(f"127.0.0.1:{rest_address}")}
etcd3:
  hosts: {q(f"127.0.0.1:{etcd_port}")}
  # Only the address above: without this Patroni asks etcd for its members and connects to
  # the client URL etcd advertises, past the relay.
  use_proxies: {q(bool(relays))}
bootstrap:
  dcs:
    ttl: {TTL}
    loop_wait: {LOOP_WAIT}
    retry_timeout: {RETRY_TIMEOUT}
    maximum_lag_on_failover: 1048576
    synchronous_mode: {q(synchronous)}
    postgresql:
      # A lost or fenced primary comes back as a replica of the new one: pg_rewind takes
      # back what it wrote past the point where the new primary's timeline forked (WAL
      # never acknowledged under synchronous replication). It needs wal_log_hints (or data
      # checksums, which initdb does not enable here).
      use_pg_rewind: true
      parameters:
        wal_level: replica
        wal_log_hints: "on"
        hot_standby: "on"
        max_connections: 100
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 128MB
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  pg_hba:
    - host replication replicator 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
    - local all all trust
postgresql:
  listen: {q(f"127.0.0.1:{node['pg_port']}")}
  connect_address: {q(f"127.0.0.1:{pg_address}")}
  data_dir: {q(str(data / "data"))}
  bin_dir: {q(str(PG_BIN))}
  pgpass: {q(str(data / "pgpass"))}
  authentication:
    replication:
      username: replicator
      password: replicator
    superuser:
      username: postgres
      password: postgres
  parameters:
    unix_socket_directories: {q(str(data))}
    logging_collector: "on"
    # Outside the data directory: pg_rewind and pg_basebackup copy the data directory's files
    # (a log/ inside it would be overwritten with the source node's).
    log_directory: {q(str(data / "pglog"))}
    # A statement (a COMMIT waiting for the synchronous standby) that took over a second.
    log_min_duration_statement: 1000
    fsync: "on"
    synchronous_commit: "on"
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
"""


def haproxy_cfg(directory, state):
    relays = state.get("relays") or {}
    servers = "\n".join(
        f"    server {name} 127.0.0.1:{relays.get(f'{name}/client-pg', node['pg_port'])} check port "
        f"{relays.get(f'{name}/client-rest', node['rest_port'])}" for name, node in state["nodes"].items())
    return f"""# HAProxy of the failover harness (tools/failover/failover.py writes it).
global
    maxconn 2000
    pidfile {directory}/haproxy.pid

defaults
    mode tcp
    timeout connect 2s
    timeout client 30m
    timeout server 30m
    timeout check 1s

# Writes: only the node whose Patroni answers GET /primary with 200.
listen write
    bind 127.0.0.1:{state['haproxy_port']}
    option httpchk GET /primary
    http-check expect status 200
    default-server inter 1s fastinter 500ms downinter 1s fall 2 rise 1 on-marked-down shutdown-sessions
{servers}

listen stats
    mode http
    bind 127.0.0.1:{state['haproxy_stats_port']}
    stats enable
    stats uri /
"""


def roles(state):
    """{node: role} from each Patroni's REST API ("primary", "replica", … or "down")."""
    result = {}
    for name, node in state["nodes"].items():
        status, body = http_get(f"http://127.0.0.1:{node['rest_port']}/patroni")
        if status is None:
            result[name] = "down"
            continue
        try:
            info = json.loads(body)
            result[name] = info.get("role", "unknown") + ("" if info.get("state") == "running" else f" ({info.get('state')})")
        except ValueError:
            result[name] = "unknown"
    return result


def primary(state):
    """The node whose Patroni answers /primary with 200, or None."""
    for name, node in state["nodes"].items():
        if http_get(f"http://127.0.0.1:{node['rest_port']}/primary")[0] == 200:
            return name
    return None


def cluster(state):
    """Patroni's view of the cluster (GET /cluster on any node that answers), or None."""
    for node in state["nodes"].values():
        status, body = http_get(f"http://127.0.0.1:{node['rest_port']}/cluster")
        if status == 200:
            return json.loads(body)
    return None


def running(state):
    """True while every process started so far runs; exits saying which one died."""
    for name, pid in state["pids"].items():
        if not alive(pid):
            raise SystemExit(f"failover: {name} exited during start (see its log)")
    return True


def wait_until(what, check, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.25)
    raise SystemExit(f"failover: timed out after {timeout} s waiting for {what}")


def healthy(state, synchronous):
    """True when one node is primary, the two others stream from it (one synchronous when
    `synchronous`) and HAProxy reaches the primary."""
    members = (cluster(state) or {}).get("members", [])
    leaders = [m for m in members if m.get("role") in ("leader", "master", "primary") and m.get("state") == "running"]
    replicas = [m for m in members if m.get("role") in ("replica", "sync_standby") and m.get("state") in ("running", "streaming")]
    if len(leaders) != 1 or len(replicas) != len(state["nodes"]) - 1:
        return False
    if synchronous and not any(m.get("role") == "sync_standby" for m in members):
        return False
    try:
        return psql(state["haproxy_port"], "SELECT pg_is_in_recovery()") == "f"
    except (RuntimeError, subprocess.TimeoutExpired):
        return False


def url(state):
    return f"postgres://postgres@127.0.0.1:{state['haproxy_port']}/{DATABASE}?sslmode=disable"


def summary(state):
    return {
        "url": url(state),
        "haproxy_port": state["haproxy_port"],
        "haproxy_stats_port": state["haproxy_stats_port"],
        "etcd_port": state["etcd_port"],
        "synchronous": state["synchronous"],
        "nodes": {name: {"pg_port": n["pg_port"], "rest_port": n["rest_port"]} for name, n in state["nodes"].items()},
        **({"relays": state["relays"]} if state.get("relays") else {}),
    }


# --- Relays: a network cut without CAP_NET_ADMIN (start --relays; see README.md) ---

RELAY_KINDS = {  # kind: (what it carries, the group `partition` cuts it with)
    "etcd": ("the node's Patroni to etcd", "cluster"),
    "pg": ("the other nodes to its PostgreSQL (replication, pg_rewind, pg_basebackup)", "cluster"),
    "rest": ("the other nodes to its Patroni REST API", "cluster"),
    "client-pg": ("HAProxy to its PostgreSQL (the clients' traffic)", "clients"),
    "client-rest": ("HAProxy's checks of its Patroni REST API", "clients"),
}


def relay_target(state, key):
    name, kind = key.split("/")
    if kind == "etcd":
        return state["etcd_port"]
    return state["nodes"][name]["rest_port" if kind.endswith("rest") else "pg_port"]


def relay_serve(directory):
    """The relay process: one listener per relay, two threads per connection. A relay that is
    cut resets its connections and every new one (accepted, then closed with RST) until healed.
    Controlled through the Unix socket DIR/relay.sock, one JSON line a request."""
    import threading
    directory = Path(directory).resolve()
    state = require_state(directory)
    lock = threading.Lock()
    cut = set()  # relay keys cut
    live = {}  # relay key -> set of sockets

    def reset(sock):
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
            sock.close()
        except OSError:
            pass

    def pump(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def connection(key, client):
        try:
            upstream = socket.create_connection(("127.0.0.1", relay_target(state, key)), timeout=5)
            upstream.settimeout(None)
        except OSError:
            reset(client)
            return
        with lock:
            if key in cut:
                reset(client)
                reset(upstream)
                return
            live.setdefault(key, set()).update((client, upstream))
        for sock in (client, upstream):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        other = threading.Thread(target=pump, args=(upstream, client), daemon=True)
        other.start()
        pump(client, upstream)
        other.join()
        with lock:
            live.get(key, set()).difference_update((client, upstream))
        client.close()
        upstream.close()

    def listen(key, server):
        while True:
            client, _ = server.accept()
            with lock:
                refused = key in cut
            if refused:
                reset(client)
                continue
            threading.Thread(target=connection, args=(key, client), daemon=True).start()

    for key, port in state["relays"].items():
        server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", port))
        server.listen(128)
        threading.Thread(target=listen, args=(key, server), daemon=True).start()

    control_path = directory / "relay.sock"
    control_path.unlink(missing_ok=True)
    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    control.bind(str(control_path))
    control.listen(8)
    while True:
        peer, _ = control.accept()
        with peer:
            request = json.loads(peer.makefile().readline())
            with lock:
                if request["command"] == "cut":
                    keys = [key for key in state["relays"] if key.split("/")[0] == request["node"]
                            and RELAY_KINDS[key.split("/")[1]][1] in request["groups"]]
                    cut.update(keys)
                    dropped = 0
                    for key in keys:
                        for sock in live.pop(key, set()):
                            reset(sock)
                            dropped += 1
                    answer = {"cut": sorted(keys), "sockets reset": dropped}
                elif request["command"] == "heal":
                    answer = {"healed": sorted(cut)}
                    cut.clear()
                else:
                    answer = {"cut": sorted(cut)}
            peer.sendall((json.dumps(answer) + "\n").encode())


def relay_control(directory, request):
    path = Path(directory).resolve() / "relay.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(path))
        sock.sendall((json.dumps(request) + "\n").encode())
        return json.loads(sock.makefile().readline())


def start(directory, synchronous, timeout, relays=False):
    for tool in ("etcd", "patroni", "haproxy"):
        if shutil.which(tool) is None:
            raise SystemExit(f"failover: {tool} is missing (apt-get install etcd-server patroni haproxy)")
    if not (PG_BIN / "initdb").exists():
        raise SystemExit(f"failover: {PG_BIN}/initdb is missing (apt-get install postgresql-15)")
    directory = Path(directory).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    if any(directory.iterdir()):
        raise SystemExit(f"failover: {directory} is not empty (stop it first, or pick another)")
    user = run_as()
    if user is not None:
        # PostgreSQL runs as `postgres`: it must be able to reach DIR (mkdtemp's 0700 does not let it).
        for parent in directory.parents:
            if not os.stat(parent).st_mode & 0o001:
                raise SystemExit(f"failover: {parent} is not searchable by others (chmod o+x): postgres could not reach {directory}")
    relay_keys = [f"{name}/{kind}" for name in NODES for kind in RELAY_KINDS] if relays else []
    # All at once: ports asked for in two calls could repeat.
    ports = free_ports(4 + 2 * len(NODES) + len(relay_keys))
    state = {
        "scope": f"frostbox-{os.getpid()}-{int(time.time())}",
        "synchronous": synchronous,
        "etcd_port": ports[0],
        "etcd_peer_port": ports[1],
        "haproxy_port": ports[2],
        "haproxy_stats_port": ports[3],
        "nodes": {name: {"pg_port": ports[4 + 2 * i], "rest_port": ports[5 + 2 * i]} for i, name in enumerate(NODES)},
        "pids": {},
    }
    if relays:
        state["relays"] = dict(zip(relay_keys, ports[4 + 2 * len(NODES):]))
    save_state(directory, state)
    try:
        etcd_url = f"http://127.0.0.1:{state['etcd_port']}"
        peer_url = f"http://127.0.0.1:{state['etcd_peer_port']}"
        state["pids"]["etcd"] = spawn([
            "etcd", "--name", "etcd0", "--data-dir", str(directory / "etcd"),
            "--listen-client-urls", etcd_url, "--advertise-client-urls", etcd_url,
            "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
            "--initial-cluster", f"etcd0={peer_url}", "--initial-cluster-state", "new",
        ], directory / "etcd.log")
        save_state(directory, state)
        wait_until("etcd", lambda: http_get(f"{etcd_url}/health")[0] == 200, 30)
        if relays:
            state["pids"]["relay"] = spawn([sys.executable, str(Path(__file__).resolve()), "relay", str(directory)],
                                           directory / "relay.log")
            save_state(directory, state)
            wait_until("the relays", lambda: running(state) and (directory / "relay.sock").exists(), 30)

        for name in NODES:
            node_dir = directory / name
            node_dir.mkdir(mode=0o700)
            (node_dir / "patroni.yml").write_text(patroni_yaml(directory, state, name, synchronous))
        os.chmod(directory, 0o755)
        chown_tree(directory, user)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
        for index, name in enumerate(NODES):
            node_dir = directory / name
            state["pids"][name] = spawn(
                ["patroni", str(node_dir / "patroni.yml")], node_dir / "patroni.log", user, {**env, "HOME": str(node_dir)})
            save_state(directory, state)
            if index == 0:
                # The first node bootstraps alone; the others then clone it.
                wait_until("the first primary", lambda: running(state) and primary(state), timeout)

        (directory / "haproxy.cfg").write_text(haproxy_cfg(directory, state))
        state["pids"]["haproxy"] = spawn(
            ["haproxy", "-db", "-f", str(directory / "haproxy.cfg")], directory / "haproxy.log")
        save_state(directory, state)
        wait_until("three nodes streaming and HAProxy at the primary", lambda: running(state) and healthy(state, synchronous), timeout)
        psql(state["haproxy_port"], f"CREATE DATABASE {DATABASE}")
    except BaseException:
        print(f"failover: start failed; logs are in {directory}", file=sys.stderr)
        stop(directory, keep=True)
        raise
    print(json.dumps(summary(state), indent=2))


def status(directory):
    state = require_state(directory)
    members = (cluster(state) or {}).get("members", [])
    print(json.dumps({
        **summary(state),
        "primary": primary(state),
        "roles": roles(state),
        "members": members,
        "processes": {name: alive(pid) for name, pid in state["pids"].items()},
    }, indent=2))


def require_state(directory):
    state = load_state(directory)
    if state is None:
        raise SystemExit(f"failover: nothing started in {directory}")
    return state


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie has exited too.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def descendants(pid):
    """`pid`'s living descendants, from /proc."""
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                children.setdefault(int(fields[1]), []).append(int(entry.name))
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def postmaster_pid(directory, name):
    try:
        return int((Path(directory) / name / "data" / "postmaster.pid").read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return None


def kill_node(directory, state, name):
    """SIGKILL a node's Patroni, then its postmaster with every backend: as if the host died."""
    victims = []
    patroni = state["pids"].get(name)
    if patroni and alive(patroni):
        victims.append(patroni)
    postmaster = postmaster_pid(directory, name)
    if postmaster and alive(postmaster):
        victims += [postmaster] + descendants(postmaster)
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return victims


def walreceivers(directory, state, exclude):
    """The WAL receiver processes of every node but `exclude`."""
    found = []
    for name in state["nodes"]:
        postmaster = postmaster_pid(directory, name)
        if name == exclude or not postmaster or not alive(postmaster):
            continue
        for pid in descendants(postmaster):
            try:
                if b"walreceiver" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(pid)
            except OSError:
                pass
    return found


def kill_primary(directory, behind=0.0):
    """SIGKILL the primary node. With `behind` seconds, the replicas' WAL receivers are first
    stopped (SIGSTOP) that long, then killed with the primary, so the WAL of those seconds,
    sent but not yet received, is lost with it: replicas that far behind when the primary died."""
    state = require_state(directory)
    name = primary(state)
    if name is None:
        raise SystemExit("failover: no primary to kill")
    stalled = walreceivers(directory, state, name) if behind > 0 else []
    for pid in stalled:
        os.kill(pid, signal.SIGSTOP)
    if stalled:
        time.sleep(behind)
    killed_at = time.time()
    victims = kill_node(directory, state, name)
    for pid in stalled:
        # A stopped process dies on SIGKILL without reading what waits in its socket. Its
        # postmaster restarts the standby (a crash of a child), which comes back streaming.
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    state.setdefault("lost", []).append(name)
    save_state(directory, state)
    print(json.dumps({"killed": name, "pids": victims, "at": killed_at, "replicas_behind": behind if stalled else 0}))


def switchover(directory, timeout):
    state = require_state(directory)
    leader = primary(state)
    if leader is None:
        raise SystemExit("failover: no primary to switch over from")
    members = (cluster(state) or {}).get("members", [])
    candidates = [m["name"] for m in members if m.get("role") == "sync_standby"] or [
        m["name"] for m in members if m.get("role") == "replica" and m.get("state") in ("running", "streaming")]
    if not candidates:
        raise SystemExit("failover: no replica to switch over to")
    started = time.time()
    config = Path(directory).resolve() / leader / "patroni.yml"
    result = subprocess.run(
        ["patronictl", "-c", str(config), "switchover", "--leader", leader, "--candidate", candidates[0], "--force", state["scope"]],
        capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise SystemExit(f"failover: patronictl switchover failed:\n{result.stdout}{result.stderr}")
    print(json.dumps({"from": leader, "to": candidates[0], "at": started}))


def streaming(state, name):
    """(primary, state, sync_state, received timeline, primary's timeline) when `name` streams
    from the current primary on its timeline, else None."""
    leader = primary(state)
    if leader is None or leader == name:
        return None
    try:
        row = psql(state["nodes"][leader]["pg_port"],
                   f"SELECT state, sync_state, ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int "
                   f"FROM pg_stat_replication WHERE application_name = '{name}'")
        receiver = psql(state["nodes"][name]["pg_port"], "SELECT status, received_tli FROM pg_stat_wal_receiver")
    except (RuntimeError, subprocess.TimeoutExpired):
        return None
    if not row or not receiver:
        return None
    sender_state, sync_state, timeline = row.split("|")
    receiver_status, received_tli = receiver.split("|")
    if sender_state != "streaming" or receiver_status != "streaming" or int(received_tli) != int(timeline):
        return None
    return leader, sender_state, sync_state, int(received_tli), int(timeline)


def log_since(path, offset):
    try:
        with open(path, "rb") as file:
            file.seek(offset)
            return file.read().decode(errors="replace")
    except OSError:
        return ""


def wait_rejoined(directory, state, name, since, log_offset, timeout):
    """Waits until `name` streams from the primary on its timeline; what Patroni did (pg_rewind)."""
    found = wait_until(f"{name} streaming from the new primary", lambda: streaming(state, name), timeout)
    streaming_at = time.time()
    log = log_since(Path(directory) / name / "patroni.log", log_offset)
    rewind = [line.split(": ", 1)[-1][:200] for line in log.splitlines()
              if ("rewind" in line.lower() or "diverged" in line) and "in progress" not in line]
    return {
        "node": name,
        "primary": found[0],
        "sync_state": found[2],
        "timeline": found[3],
        "seconds to streaming": round(streaming_at - since, 1),
        "pg_rewind ran": any("running pg_rewind" in line for line in rewind),
        "pg_rewind log": rewind[:12],
    }


def rejoin(directory, timeout):
    """Restarts the Patroni of the node `kill-primary` lost (its data as the kill left it):
    Patroni runs crash recovery, pg_rewind against the new primary when the timelines forked,
    and streams from it. Returns once it streams on the new primary's timeline."""
    directory = Path(directory).resolve()
    state = require_state(directory)
    lost = state.get("lost") or []
    if not lost:
        raise SystemExit("failover: no lost node to bring back (kill-primary first)")
    name = lost[-1]
    node_dir = directory / name
    log = node_dir / "patroni.log"
    offset = log.stat().st_size if log.exists() else 0
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": str(node_dir)}
    started = time.time()
    state["pids"][name] = spawn(["patroni", str(node_dir / "patroni.yml")], log, run_as(), env)
    state["lost"] = lost[:-1]
    save_state(directory, state)
    result = wait_rejoined(directory, state, name, started, offset, timeout)
    print(json.dumps({**result, "at": started}))


def partition(directory, clients):
    """Cuts the primary off from etcd and the other nodes (its relays reset every connection and
    refuse new ones); with `clients`, from HAProxy too. Its processes keep running."""
    directory = Path(directory).resolve()
    state = require_state(directory)
    if not state.get("relays"):
        raise SystemExit("failover: no relays in this cluster (start it with --relays)")
    name = primary(state)
    if name is None:
        raise SystemExit("failover: no primary to isolate")
    log = directory / name / "patroni.log"
    cut_at = time.time()
    answer = relay_control(directory, {"command": "cut", "node": name, "groups": ["cluster"] + (["clients"] if clients else [])})
    state["partitioned"] = {"node": name, "at": cut_at, "log_offset": log.stat().st_size if log.exists() else 0}
    save_state(directory, state)
    print(json.dumps({"isolated": name, "at": cut_at, **answer}))


def heal(directory, timeout):
    """Restores the relays `partition` cut; returns once the isolated node streams from the
    new primary (after pg_rewind when it needs one)."""
    directory = Path(directory).resolve()
    state = require_state(directory)
    cut = state.get("partitioned")
    if not cut:
        raise SystemExit("failover: nothing is partitioned")
    healed_at = time.time()
    answer = relay_control(directory, {"command": "heal"})
    state.pop("partitioned")
    save_state(directory, state)
    log = log_since(directory / cut["node"] / "patroni.log", cut["log_offset"])
    # What the isolated node's Patroni did while cut off (it demotes itself when it cannot reach etcd).
    demoted = [line[:200] for line in log.splitlines() if "demot" in line.lower()][:4]
    demoted_after = None
    if demoted:
        # Patroni logs local time with milliseconds after a comma.
        try:
            stamp = time.mktime(time.strptime(demoted[0][:19], "%Y-%m-%d %H:%M:%S")) + int(demoted[0][20:23]) / 1000
            demoted_after = round(stamp - cut["at"], 1)
        except ValueError:
            pass
    offset = (directory / cut["node"] / "patroni.log").stat().st_size
    result = wait_rejoined(directory, state, cut["node"], healed_at, offset, timeout)
    print(json.dumps({**result, "at": healed_at, "healed": answer["healed"], "while cut off": demoted,
                      "demoted, s after the cut": demoted_after}))


def stop(directory, keep=False):
    directory = Path(directory).resolve()
    state = load_state(directory)
    if state is not None:
        pids = state.get("pids", {})
        # HAProxy first (clients see the database go), then Patroni (which stops PostgreSQL
        # cleanly on SIGTERM), then etcd.
        order = ["haproxy"] + [n for n in NODES if n in pids] + ["relay", "etcd"]
        for name in order:
            pid = pids.get(name)
            if pid and alive(pid):
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                deadline = time.monotonic() + 20
                while alive(pid) and time.monotonic() < deadline:
                    time.sleep(0.1)
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
            if name in NODES:
                # A postmaster left by a killed Patroni, or one that did not stop in time.
                postmaster = postmaster_pid(directory, name)
                if postmaster and alive(postmaster):
                    for victim in [postmaster] + descendants(postmaster):
                        try:
                            os.kill(victim, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
        # Reap our own children when start ran in this process (zombies otherwise).
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
    if not keep:
        shutil.rmtree(directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    start_parser = commands.add_parser("start", help="start etcd, three Patroni nodes and HAProxy in DIR")
    start_parser.add_argument("directory", metavar="DIR")
    start_parser.add_argument("--async", dest="asynchronous", action="store_true", help="asynchronous replication")
    start_parser.add_argument("--timeout", type=float, default=180, help="seconds to wait for the cluster (180)")
    start_parser.add_argument("--relays", action="store_true",
                              help="route each node's links to etcd, the other nodes and HAProxy through relays `partition` can cut")
    for name, text in (("status", "roles and ports as JSON"), ("kill-primary", "SIGKILL the primary node"),
                       ("switchover", "planned switchover to a replica")):
        sub = commands.add_parser(name, help=text)
        sub.add_argument("directory", metavar="DIR")
        if name == "kill-primary":
            sub.add_argument("--replicas-behind", type=float, default=0, metavar="SECONDS",
                             help="first hold the replicas' WAL receivers this long, then lose that WAL with the primary")
    rejoin_parser = commands.add_parser("rejoin", help="restart the node kill-primary lost; it rejoins as a replica (pg_rewind)")
    rejoin_parser.add_argument("directory", metavar="DIR")
    partition_parser = commands.add_parser("partition", help="cut the primary off from etcd and the other nodes (needs start --relays)")
    partition_parser.add_argument("directory", metavar="DIR")
    partition_parser.add_argument("--clients", action="store_true", help="from HAProxy too")
    heal_parser = commands.add_parser("heal", help="undo partition; returns once the old primary streams again")
    heal_parser.add_argument("directory", metavar="DIR")
    for sub in (rejoin_parser, heal_parser):
        sub.add_argument("--timeout", type=float, default=180, help="seconds to wait for it to stream (180)")
    relay_parser = commands.add_parser("relay")  # the relay process start --relays spawns
    relay_parser.add_argument("directory", metavar="DIR")
    stop_parser = commands.add_parser("stop", help="stop everything and remove DIR")
    stop_parser.add_argument("directory", metavar="DIR")
    stop_parser.add_argument("--keep", action="store_true", help="keep DIR (logs, data)")
    args = parser.parse_args()
    if args.command == "start":
        start(args.directory, not args.asynchronous, args.timeout, args.relays)
    elif args.command == "status":
        status(args.directory)
    elif args.command == "kill-primary":
        kill_primary(args.directory, args.replicas_behind)
    elif args.command == "switchover":
        switchover(args.directory, 120)
    elif args.command == "rejoin":
        rejoin(args.directory, args.timeout)
    elif args.command == "partition":
        partition(args.directory, args.clients)
    elif args.command == "heal":
        heal(args.directory, args.timeout)
    elif args.command == "relay":
        relay_serve(args.directory)
    elif args.command == "stop":
        stop(args.directory, args.keep)


if __name__ == "__main__":
    main()
