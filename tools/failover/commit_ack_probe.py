#!/usr/bin/env python3
"""What a client receives when a commit waiting for the synchronous standby is ended by the
server (issue #50: a fenced primary's Patroni demotes it with a fast shutdown while commits wait).

    failover.py start DIR && commit_ack_probe.py DIR [--transaction] && failover.py stop DIR

On the harness's primary it holds the replicas' WAL receivers (SIGSTOP), so a commit waits for
the synchronous standby; sends one `INSERT … RETURNING` with the extended query protocol (Parse,
Bind, Execute, Sync: what postgres-nio sends), as a single statement in its implicit transaction,
which commits at Sync; after 2 s ends that backend with pg_terminate_backend (what a fast
shutdown does to it); prints each message the client receives, with its time; then lets the WAL
receivers go. With --transaction the INSERT runs in BEGIN … (a simple query) and what is sent
with the extended protocol is the COMMIT. Standard library only; the wire protocol by hand
(trust authentication).
"""
import os
import signal
import socket
import struct
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import failover  # noqa: E402


def message(kind, body):
    return kind + struct.pack("!I", len(body) + 4) + body


def receive(sock):
    """(type, body) of the next message, ("EOF", b"") when the server closed the connection."""
    head = b""
    while len(head) < 5:
        chunk = sock.recv(5 - len(head))
        if not chunk:
            return "EOF", b""
        head += chunk
    length = struct.unpack("!I", head[1:5])[0] - 4
    body = b""
    while len(body) < length:
        chunk = sock.recv(length - len(body))
        if not chunk:
            return "EOF", b""
        body += chunk
    return head[:1].decode(), body


def main():
    directory = sys.argv[1]
    explicit = "--transaction" in sys.argv[2:]
    state = failover.require_state(directory)
    name = failover.primary(state)
    port = state["nodes"][name]["pg_port"]
    failover.psql(port, "CREATE TABLE IF NOT EXISTS commit_ack_probe (x int)")
    held = failover.walreceivers(directory, state, name)
    for pid in held:
        os.kill(pid, signal.SIGSTOP)
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        startup = b"user\0postgres\0database\0postgres\0application_name\0commit_ack_probe\0\0"
        sock.sendall(struct.pack("!II", len(startup) + 8, 196608) + startup)
        while receive(sock)[0] not in ("Z", "EOF"):
            pass
        statement = b"INSERT INTO commit_ack_probe VALUES (1) RETURNING x"
        if explicit:
            sock.sendall(message(b"Q", b"BEGIN; " + statement + b"\0"))
            while receive(sock)[0] not in ("Z", "EOF"):
                pass
            statement = b"COMMIT"
        terminate = threading.Timer(2, lambda: failover.psql(
            port, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'commit_ack_probe'"))
        sent = time.monotonic()
        sock.sendall(message(b"P", b"\0" + statement + b"\0\0\0") + message(b"B", b"\0\0" + b"\0\0" * 3)
                     + message(b"E", b"\0" + b"\0\0\0\0") + message(b"S", b""))
        terminate.start()
        print(f"{name}: replicas' WAL receivers held; sent Parse, Bind, Execute, Sync: {statement.decode()}")
        while True:
            kind, body = receive(sock)
            print(f"{time.monotonic() - sent:6.3f} s  {kind}  {body[:160]!r}")
            if kind in ("Z", "EOF"):
                break
        terminate.join()
    finally:
        for pid in held:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass


if __name__ == "__main__":
    main()
