"""The peers for the Web Push benchmark: pywebpush sending the same alerts to the neutral sink.

    python3 tools/apns-sink/webpush_peers.py --url https://127.0.0.1:PORT --trust SINK/sink.crt \
        --plaintext SAMPLE/plaintext.json [--count 20000] [--concurrency 1000] [--runs 3] \
        [--threads 16] [--peers webpush,webpush-async]

Each peer sends `count` messages per run, one to each of `count` browsers (a P-256 key and a
16-byte auth secret each, made before the clock starts; endpoints URL/push/<140 characters>, as
bench-webpush's). The plaintext is the JSON bench-webpush encrypts (its --sample plaintext.json)
with a fresh alert_id per message, so every body has the same size as Frostbox's; the headers are
the ones Frostbox sends: TTL 36000, Urgency high, Topic the collapse id's SHA-256 cut to 24 bytes
(base64url), Content-Encoding aes128gcm, and a VAPID authorization (`vapid t=…, k=…`) for the
claims sub mailto:bench@example.org (pywebpush adds aud, the endpoint's origin, and exp). A run
counts only when every message came back 201; otherwise it prints an error and no rate. Runs are
interleaved (run 1 of every peer, then run 2, …). Output, per run and then per peer:

    peer webpush run 1: 412 messages/s (5000 ok)
    median webpush 412

The peers, each pywebpush's documented way to send:
  webpush        pywebpush.webpush(...) per message, as its README shows, with a requests.Session
                 per thread (its `requests_session` argument) on a pool of --threads threads:
                 requests is synchronous, so threads are how a Python program sends many at once.
  webpush-async  pywebpush.webpush_async(...) per message with one aiohttp.ClientSession (its
                 `aiohttp_session` argument; aiohttp's default pool of 100 connections),
                 `concurrency` messages in flight through asyncio.gather and a semaphore.
Both speak HTTP/1.1 (requests and aiohttp have no HTTP/2); the sink answers HTTP/1.1 over TLS too.
pywebpush makes a fresh ECDH key per message (as RFC 8291 requires, as Frostbox does) and signs a
fresh VAPID JWT per call (Frostbox signs one per push service and reuses it for hours).
Trust: each client verifies the sink's certificate against --trust through its own settings
(requests.Session.verify, with trust_env off so that the environment's REQUESTS_CA_BUNDLE does
not replace it; an ssl context made from that CA file for aiohttp), verification on.
"""

import argparse
import asyncio
import base64
import hashlib
import json
import os
import ssl
import statistics
import sys
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

PEERS = ("webpush", "webpush-async")
COLLAPSE = "frost-60.20,25.00"
TTL_SECONDS = 36000
CLAIMS = {"sub": "mailto:bench@example.org"}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def subscriptions(url, count):
    """`count` browsers' subscriptions, as PushSubscription.toJSON() gives them."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    made = []
    for index in range(count):
        key = ec.generate_private_key(ec.SECP256R1())
        public = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        tail = format(index, "x")
        made.append({"endpoint": f"{url}/push/{'b' * (140 - len(tail))}{tail}",
                     "keys": {"p256dh": b64url(public), "auth": b64url(os.urandom(16))}})
    return made


def reason(exception):
    text = " ".join(f"{type(exception).__name__}: {exception}".split())
    return text if len(text) <= 120 else text[:117] + "..."


class Alerts:
    """The plaintext of each message: the sample's JSON with a fresh alert_id, and the headers."""

    def __init__(self, path):
        with open(path, "rb") as file:
            self.template = json.loads(file.read())
        topic = b64url(hashlib.sha256(COLLAPSE.encode()).digest()[:24])
        self.headers = {"Urgency": "high", "Topic": topic, "Content-Type": "application/octet-stream"}

    def plaintext(self):
        message = dict(self.template, alert_id=str(uuid.uuid4()))
        return json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class WebPushPeer:
    name = "webpush"

    def __init__(self, args, vapid, alerts):
        import requests

        self.args, self.vapid, self.alerts = args, vapid, alerts
        self.local = threading.local()
        self.requests = requests
        self.pool = ThreadPoolExecutor(max_workers=args.threads)

    def session(self):
        session = getattr(self.local, "session", None)
        if session is None:
            session = self.requests.Session()
            session.verify = self.args.trust
            # Else a REQUESTS_CA_BUNDLE in the environment would take the place of `verify`.
            session.trust_env = False
            self.local.session = session
        return session

    def send(self, subscription, data):
        from pywebpush import webpush

        try:
            response = webpush(subscription, data=data, vapid_private_key=self.vapid, vapid_claims=dict(CLAIMS),
                               ttl=TTL_SECONDS, headers=self.alerts.headers, requests_session=self.session(),
                               timeout=30)
            return (True, None) if response.status_code == 201 else (False, f"status {response.status_code}")
        except Exception as error:  # noqa: BLE001 - any failure is the peer's result
            return False, reason(error)

    async def run(self, browsers):
        # The messages are made before the clock starts, as bench-webpush's are.
        work = [(subscription, self.alerts.plaintext()) for subscription in browsers]
        start = time.perf_counter()
        outcomes = list(self.pool.map(lambda item: self.send(*item), work))
        return outcomes, time.perf_counter() - start

    async def close(self):
        self.pool.shutdown()


class WebPushAsyncPeer:
    name = "webpush-async"

    def __init__(self, args, vapid, alerts):
        self.args, self.vapid, self.alerts = args, vapid, alerts
        self.http = None

    async def session(self):
        import aiohttp

        if self.http is None:
            context = ssl.create_default_context(cafile=self.args.trust)
            # aiohttp's default pool (100 connections): more than the sink's 1,024 connections
            # would refuse some.
            self.http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=context))
        return self.http

    async def send(self, semaphore, subscription, data):
        from pywebpush import webpush_async

        async with semaphore:
            try:
                response = await webpush_async(subscription, data=data, vapid_private_key=self.vapid,
                                               vapid_claims=dict(CLAIMS), ttl=TTL_SECONDS, headers=self.alerts.headers,
                                               aiohttp_session=await self.session(), timeout=30)
                return (True, None) if response.status == 201 else (False, f"status {response.status}")
            except Exception as error:  # noqa: BLE001
                return False, reason(error)

    async def run(self, browsers):
        work = [(subscription, self.alerts.plaintext()) for subscription in browsers]
        semaphore = asyncio.Semaphore(self.args.concurrency)
        start = time.perf_counter()
        outcomes = await asyncio.gather(*(self.send(semaphore, *item) for item in work))
        return outcomes, time.perf_counter() - start

    async def close(self):
        if self.http is not None:
            await self.http.close()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True, help="the sink, e.g. https://127.0.0.1:18460")
    parser.add_argument("--trust", required=True, help="the sink's certificate (PEM)")
    parser.add_argument("--plaintext", required=True, help="bench-webpush --sample's plaintext.json")
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=1000, help="messages in flight (webpush-async)")
    parser.add_argument("--threads", type=int, default=16, help="threads sending (webpush)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--peers", default=",".join(PEERS))
    args = parser.parse_args()
    args.url = args.url.rstrip("/")
    names = [name.strip() for name in args.peers.split(",") if name.strip()]
    unknown = [name for name in names if name not in PEERS]
    if unknown:
        parser.error(f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(PEERS)}")

    from py_vapid import Vapid

    vapid = Vapid()
    vapid.generate_keys()
    alerts = Alerts(args.plaintext)
    made = time.perf_counter()
    browsers = subscriptions(args.url, args.count)
    print(f"peers: {', '.join(names)}; count {args.count}, concurrency {args.concurrency}, threads {args.threads}, "
          f"runs {args.runs}; {args.count} browsers made in {time.perf_counter() - made:.1f} s", flush=True)
    peers = [(WebPushPeer if name == "webpush" else WebPushAsyncPeer)(args, vapid, alerts) for name in names]
    failed = set()
    for peer in peers:  # warm-up: the connections (one message, not timed)
        outcomes, _ = await peer.run(browsers[:1])
        if not outcomes[0][0]:
            print(f"peer {peer.name} warm-up: error: {outcomes[0][1]}", flush=True)
            failed.add(peer.name)
    rates = {peer.name: [] for peer in peers}
    for run in range(1, args.runs + 1):
        for peer in peers:
            if peer.name in failed:
                continue
            outcomes, elapsed = await peer.run(browsers)
            ok = sum(1 for success, _ in outcomes if success)
            if ok == args.count:
                rates[peer.name].append(args.count / elapsed)
                print(f"peer {peer.name} run {run}: {args.count / elapsed:.0f} messages/s ({ok} ok)", flush=True)
            else:
                reasons = Counter(why for success, why in outcomes if not success)
                summary = "; ".join(f"{n}× {why}" for why, n in reasons.most_common(3))
                print(f"peer {peer.name} run {run}: error: {ok} of {args.count} ok ({summary})", flush=True)
                failed.add(peer.name)
    for peer in peers:
        if peer.name in failed or not rates[peer.name]:
            print(f"median {peer.name} error")
        else:
            print(f"median {peer.name} {statistics.median(rates[peer.name]):.0f}")
        await peer.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
