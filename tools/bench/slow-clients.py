#!/usr/bin/env python3
"""Slow and idle clients from one address against everyone else (issue #28, item 1).

Starts one `frostbox serve` per binary given (fresh SQLite database, port 0, default
settings, so binaries are measured side by side in one run), then for each binary, in turn:

  quiet     no flood: the figures to compare with
  idle      FLOOD connections from 127.0.0.2 that connect and send nothing
  slowloris FLOOD connections from 127.0.0.2 that send a request head one header line a second
            (never finishing it)

The flooder keeps its connections up: one the server closes is opened again REOPEN seconds
later (1 s; 0.1 s makes it a connection flood of several thousand connects a second). In
every phase a prober on 127.0.0.1 alternates `GET /health` and a durable write (`PUT
/v1/devices/{new token}`), each on a new connection, one every 20 ms for the phase's length,
and reports p50, p99 and the slowest answer per kind, and the probes that failed (no answer
within 5 s, or an error). The goal is p99 <= 100 ms under either flood.

  tools/bench/slow-clients.py --binary NAME=PATH [--binary NAME=PATH …] [--flood 5000] [--seconds 30]
      [--reopen-after 1.0] [--env FROSTBOX_NAME=VALUE …]

The open-file limit is raised to its hard limit first (the flooder holds FLOOD sockets, the
server as many again); both limits are printed.
"""
import argparse, os, re, resource, selectors, shutil, socket, subprocess, sys, tempfile, threading, time

FLOODER, PROBER = "127.0.0.2", "127.0.0.1"


def raise_file_limit(needed):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    print(f"open files: soft {soft}, hard {hard} (ulimit -n); needed about {needed}")
    if soft < needed:
        sys.exit(f"the open-file limit {soft} is below {needed}: raise it (ulimit -n) or flood with fewer connections")


def start_server(binary, work, settings):
    os.makedirs(work, exist_ok=True)
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FROSTBOX_")}
    environment.update({
        "FROSTBOX_DB": f"{work}/frostbox.sqlite", "FROSTBOX_PLACES_SEED_PATH": "", "FROSTBOX_LIMITS_RATE_LIMIT_BURST": "0",
        "FROSTBOX_NOTIFIER_FIRST_RUN_DELAY": "24h", "FROSTBOX_FORECAST_URL": "http://127.0.0.1:9", "FROSTBOX_LOG_LEVEL": "notice",
    })
    environment.update(settings)
    log = open(f"{work}/server.log", "w")
    process = subprocess.Popen([binary, "serve", "--host", "127.0.0.1", "--port", "0"], stdout=log, stderr=subprocess.STDOUT,
                               env=environment, cwd=work)
    deadline = time.time() + 60
    while time.time() < deadline:
        match = re.search(r"port=(\d+) \[FrostboxApp\] listening", open(f"{work}/server.log").read())
        if match:
            return process, int(match.group(1))
        if process.poll() is not None:
            break
        time.sleep(0.1)
    process.kill()
    sys.exit(f"{binary} did not start:\n" + open(f"{work}/server.log").read()[-2000:])


class Flooder(threading.Thread):
    """Holds `count` connections from FLOODER; `slow` ones trickle a request head."""

    def __init__(self, port, count, slow, reopen_after):
        super().__init__(daemon=True)
        self.port, self.count, self.slow, self.reopen_after = port, count, slow, reopen_after
        self.stopping = threading.Event()
        self.opened = self.closed_by_server = 0
        self.selector = selectors.DefaultSelector()

    def connect(self):
        s = socket.socket()
        s.setblocking(False)
        s.bind((FLOODER, 0))
        s.connect_ex(("127.0.0.1", self.port))
        self.selector.register(s, selectors.EVENT_READ)
        self.opened += 1
        return s

    def run(self):
        sockets, reopen, last_line, begun = set(), [], time.time(), set()
        for _ in range(self.count):
            sockets.add(self.connect())
        while not self.stopping.is_set():
            for key, _ in self.selector.select(timeout=0.05):
                try:
                    data = key.fileobj.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    self.selector.unregister(key.fileobj)
                    begun.discard(key.fileobj)
                    key.fileobj.close()
                    sockets.discard(key.fileobj)
                    self.closed_by_server += 1
                    reopen.append(time.time() + self.reopen_after)
            now = time.time()
            while reopen and reopen[0] <= now and not self.stopping.is_set():
                reopen.pop(0)
                sockets.add(self.connect())
            if self.slow and now - last_line >= 1:
                last_line = now
                for s in list(sockets):
                    line = b"X-Slow: 1\r\n" if s in begun else b"GET /health HTTP/1.1\r\nHost: x\r\n"
                    try:
                        s.send(line)
                        begun.add(s)
                    except OSError:
                        pass
        for s in list(sockets):
            self.selector.unregister(s)
            s.close()


def probe(port, kind, index):
    if kind == "health":
        request = b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    else:
        token = f"{index:032x}{os.getpid():08x}"[-40:]
        request = f"PUT /v1/devices/{token} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 0\r\n\r\n".encode()
    start = time.perf_counter()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(PROBER, 0)) as s:
            s.sendall(request)
            answer = b""
            while b"\r\n" not in answer:
                chunk = s.recv(4096)
                if not chunk:
                    break
                answer += chunk
        status = answer.split(b" ", 2)[1].decode() if answer.startswith(b"HTTP/1.1 ") else "none"
        return time.perf_counter() - start, status
    except OSError as error:
        return None, type(error).__name__


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def measure(port, seconds, offset):
    results = {"health": [], "write": []}
    failures = {"health": {}, "write": {}}
    end, index = time.time() + seconds, offset
    while time.time() < end:
        for kind in ("health", "write"):
            index += 1
            elapsed, status = probe(port, kind, index)
            if elapsed is not None and status.startswith("2"):
                results[kind].append(elapsed * 1000)
            else:
                failures[kind][status] = failures[kind].get(status, 0) + 1
            time.sleep(0.02)
    return results, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", action="append", required=True, help="NAME=PATH of a frostbox binary")
    parser.add_argument("--flood", type=int, default=5000)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--env", action="append", default=[], help="FROSTBOX_NAME=VALUE setting for every server")
    parser.add_argument("--reopen-after", type=float, default=1.0, help="seconds before the flooder reopens a closed connection")
    arguments = parser.parse_args()
    raise_file_limit(2 * arguments.flood + 200)
    work = tempfile.mkdtemp(prefix="frostbox-slow-clients-")
    print(f"{os.cpu_count()} cores; flood {arguments.flood} connections from {FLOODER}, probes from {PROBER}, {arguments.seconds:.0f} s a phase")
    print(f"{'binary':<10} {'phase':<10} {'kind':<7} {'n':>5} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  failed  flood opened/closed by server")
    try:
        for number, named in enumerate(arguments.binary):
            name, path = named.split("=", 1)
            process, port = start_server(os.path.abspath(path), f"{work}/{name}", dict(item.split("=", 1) for item in arguments.env))
            try:
                for phase in ("quiet", "idle", "slowloris"):
                    flooder = None
                    if phase != "quiet":
                        flooder = Flooder(port, arguments.flood, slow=phase == "slowloris", reopen_after=arguments.reopen_after)
                        flooder.start()
                        time.sleep(3)
                    results, failures = measure(port, arguments.seconds, number * 10_000_000 + len(phase) * 1_000_000)
                    if flooder:
                        flooder.stopping.set()
                        flooder.join()
                    flood = f"{flooder.opened}/{flooder.closed_by_server}" if flooder else "-"
                    for kind in ("health", "write"):
                        values = results[kind]
                        failed = sum(failures[kind].values())
                        detail = f" {failures[kind]}" if failed else ""
                        print(f"{name:<10} {phase:<10} {kind:<7} {len(values):>5} {percentile(values, 50):>8.1f} {percentile(values, 99):>8.1f} "
                              f"{max(values, default=float('nan')):>8.1f}  {failed:>6}{detail}  {flood}", flush=True)
                    time.sleep(2)
            finally:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
