#!/usr/bin/env python3
"""PostgreSQL faults under a write load, from the outside (issue #32).

Starts a throwaway PostgreSQL cluster and one `frostbox serve` per binary given (each on its
own database of the cluster, so the binaries are measured side by side in one run), drives
durable writes (PUT /v1/devices/{new token}) at a steady rate from keep-alive clients, polls
/ready every 0.5 s, and puts the cluster through each fault in turn: a read-only spell, a
stop, a fast restart, a kill -9 of the postmaster. Per fault and binary it reports the answer
codes, the slowest answer, how long /ready said 503, how long after the fault writes
succeeded again, the log lines written meanwhile, and every acknowledged write looked up.

  tools/bench/postgres-faults.py --binary NAME=PATH [--binary NAME=PATH …] [--rate 150]
      [--clients 12] [--faults readonly:20,stop:30,stop:90,restart,kill]
"""
import argparse, glob, http.client, json, os, shutil, socket, subprocess, sys, tempfile, threading, time

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close(); return port

class Cluster:
    def __init__(self, work):
        self.bin = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]))[-1]
        self.data, self.port, self.work = f"{work}/pg", free_port(), work
        self.as_pg = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if os.geteuid() == 0: shutil.chown(work, "postgres")
        self.run("initdb", "-D", self.data, "-U", "frostbox", "--auth=trust", "-E", "UTF8", "--locale=C")
        self.start("-o", f"-p {self.port} -k {work} -c listen_addresses=127.0.0.1 -c max_connections=200")
        for name, value in [("port", self.port), ("listen_addresses", "127.0.0.1"), ("unix_socket_directories", work)]:
            self.sql("postgres", f"ALTER SYSTEM SET {name} = '{value}'")
    def run(self, tool, *args):
        subprocess.run(self.as_pg + [f"{self.bin}/{tool}", *args], check=True, capture_output=True)
    def start(self, *args):
        for _ in range(40):
            try: return self.run("pg_ctl", "-D", self.data, "-l", f"{self.work}/pg.log", "-w", "-t", "120", *args, "start")
            except subprocess.CalledProcessError: time.sleep(0.25)
        raise RuntimeError("PostgreSQL did not start")
    def stop(self, mode="fast"): self.run("pg_ctl", "-D", self.data, "-m", mode, "-w", "stop")
    def sql(self, db, text):
        out = subprocess.run([f"{self.bin}/psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "frostbox", "-d", db, "-At", "-c", text],
                             check=True, capture_output=True, text=True)
        return out.stdout.split("\n")
    def read_only(self, on):
        self.sql("postgres", f"ALTER SYSTEM SET default_transaction_read_only = {'on' if on else 'off'}")
        self.sql("postgres", "SELECT pg_reload_conf()")
    def kill9(self):
        pid = int(open(f"{self.data}/postmaster.pid").readline())
        os.kill(pid, 9)

class Server:
    def __init__(self, name, binary, cluster, work, extra_env=None):
        self.name, self.port, self.db = name, free_port(), f"fb_{name}"
        cluster.sql("postgres", f"CREATE DATABASE {self.db}")
        self.log = f"{work}/{name}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("FROSTBOX_")}
        env.update(FROSTBOX_DATABASE_URL=f"postgres://frostbox@127.0.0.1:{cluster.port}/{self.db}?sslmode=disable",
                   FROSTBOX_PLACES_SEED_PATH="", FROSTBOX_LIMITS_RATE_LIMIT_BURST="0", FROSTBOX_NOTIFIER_FIRST_RUN_DELAY="24h")
        env.update(extra_env or {})
        self.process = subprocess.Popen([binary, "serve", "--port", str(self.port), "--db", f"{work}/{name}.sqlite"],
                                        env=env, stdout=open(self.log, "w"), stderr=subprocess.STDOUT)
        for _ in range(600):
            try:
                if request(self.port, "GET", "/health")[0] == 200: return
            except OSError: pass
            time.sleep(0.1)
        raise RuntimeError(f"{name} did not start")
    def log_lines(self): return sum(1 for _ in open(self.log, errors="replace"))

def request(port, method, path, connection=None, timeout=60):
    own = connection is None
    connection = connection or http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request(method, path, headers={"Content-Length": "0"})
        response = connection.getresponse()
        body = response.read()
        return response.status, body
    finally:
        if own: connection.close()

class Load:
    """`clients` keep-alive clients sharing `rate` writes a second; every answer kept."""
    def __init__(self, server, rate, clients):
        self.server, self.rate, self.clients, self.answers, self.ready = server, rate, clients, [], []
        self.running, self.lock, self.next = True, threading.Lock(), 0
        self.threads = [threading.Thread(target=self.client, args=(i,)) for i in range(clients)]
        self.threads.append(threading.Thread(target=self.poll_ready))
        self.origin = time.monotonic()
        for t in self.threads: t.start()
    def ticket(self):
        with self.lock:
            self.next += 1
            return self.next, self.origin + self.next / self.rate
    def client(self, index):
        connection = None
        while self.running:
            n, due = self.ticket()
            if due > time.monotonic(): time.sleep(due - time.monotonic())
            token = f"{index:08x}{n:024x}"
            started = time.monotonic()
            try:
                connection = connection or http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=60)
                status, body = request(self.server.port, "PUT", f"/v1/devices/{token}", connection)
            except (OSError, http.client.HTTPException) as error:
                status, body, connection = 0, str(error).encode(), None
            code = ""
            if status >= 400:
                try: code = json.loads(body)["error"]["code"]
                except Exception: code = body[:40].decode(errors="replace")
            with self.lock: self.answers.append((started - self.origin, time.monotonic() - started, status, code, token))
    def poll_ready(self):
        while self.running:
            try: status = request(self.server.port, "GET", "/ready", timeout=30)[0]
            except OSError: status = 0
            self.ready.append((time.monotonic() - self.origin, status))
            time.sleep(0.5)
    def now(self): return time.monotonic() - self.origin
    def stop(self):
        self.running = False
        for t in self.threads: t.join()

def apply(fault, seconds, cluster):
    if fault == "readonly":
        cluster.read_only(True); time.sleep(seconds); cluster.read_only(False)
    elif fault == "stop":
        cluster.stop(); time.sleep(seconds); cluster.start()
    elif fault == "restart":
        cluster.stop(); cluster.start()
    elif fault == "kill":
        cluster.kill9(); cluster.start()

def report(name, fault, load, start, end, settle, lines, cluster, server):
    with load.lock: answers = [a for a in load.answers if start <= a[0] < end + settle]
    during = [a for a in answers if a[0] < end]
    codes = {}
    for a in answers: codes[f"{a[2]} {a[3]}".strip()] = codes.get(f"{a[2]} {a[3]}".strip(), 0) + 1
    healed = next((a[0] + a[1] - end for a in sorted(answers, key=lambda a: a[0]) if a[0] >= end and a[2] in (200, 201)), None)
    late_failures = sum(1 for a in answers if a[0] >= end + 10 and a[2] not in (200, 201))
    ready = [r for r in load.ready if start <= r[0] < end + settle]
    ready_503 = sum(0.5 for r in ready if r[1] != 200)
    first_ready_503 = next((r[0] - start for r in ready if r[1] != 200), None)
    acked = {a[4] for a in answers if a[2] in (200, 201)}
    stored = set(cluster.sql(server.db, "SELECT token FROM device"))
    slowest = max((a[1] for a in answers), default=0)
    print(f"{name:>8} | {fault:<12} | {len(answers):>6} | {json.dumps(codes, sort_keys=True)} | {slowest:6.2f} s | "
          f"{'-' if first_ready_503 is None else f'{first_ready_503:.1f} s'} / {ready_503:.1f} s | "
          f"{'never' if healed is None else f'{healed:.2f} s'} | {late_failures} | {lines} | {len(acked - stored)} of {len(acked)}", flush=True)

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", action="append", required=True)
    parser.add_argument("--rate", type=float, default=150)
    parser.add_argument("--clients", type=int, default=12)
    parser.add_argument("--faults", default="readonly:20,stop:30,stop:90,restart,kill")
    parser.add_argument("--settle", type=float, default=20)
    parser.add_argument("--set", action="append", default=[], help="KEY=VALUE: a FROSTBOX_ setting for every server")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="frostbox-faults-"); os.chmod(work, 0o755)
    cluster = Cluster(work)
    extra = dict(item.split("=", 1) for item in args.set)
    servers = [Server(*spec.split("=", 1), cluster, work, extra) for spec in args.binary]
    print(f"machine: {os.cpu_count()} cores, load {open('/proc/loadavg').read().split()[:3]}; {args.rate:g} writes/s from "
          f"{args.clients} clients per server; /ready every 0.5 s; each fault followed by {args.settle:g} s of load")
    print("  binary | fault        | writes | answers (status code: count) | slowest | /ready first 503 after / 503 for | first success after the fault | failures 10 s after | log lines | acknowledged but missing")
    loads = [Load(s, args.rate, args.clients) for s in servers]
    try:
        time.sleep(5)
        for spec in args.faults.split(","):
            fault, _, seconds = spec.partition(":")
            marks = [(l.now(), s.log_lines()) for l, s in zip(loads, servers)]
            apply(fault, float(seconds or 0), cluster)
            ends = [l.now() for l in loads]
            time.sleep(args.settle)
            label = f"{fault} {seconds} s" if seconds else fault
            for (start, lines), end, load, server in zip(marks, ends, loads, servers):
                report(server.name, label, load, start, end, args.settle, server.log_lines() - lines, cluster, server)
    finally:
        for l in loads: l.stop()
        for s in servers:
            s.process.terminate()
            try: s.process.wait(timeout=90)
            except subprocess.TimeoutExpired: s.process.kill()
        try: cluster.stop("immediate")
        except Exception: pass
        if args.keep: print(f"logs kept in {work}")
        else: shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
