"""The peers for the FCM benchmark: the Python FCM libraries sending to the neutral sink.

    python3 tools/apns-sink/fcm_peers.py --url https://127.0.0.1:PORT --trust SINK/sink.crt \
        [--count 100000] [--concurrency 1000] [--runs 3] [--per-client 9000] \
        [--peers async-firebase,firebase-admin,firebase-admin-async] [--account SERVICE_ACCOUNT.json]

Each peer sends `count` FCM HTTP v1 messages per run, the same Android frost alert bench-fcm
sends (tools/apns-sink/bench-fcm.sh's body.json), a fresh token (`fcm:bench_…` + the index in
hex) and alert id each, and the rate counts only when every message came back with a name:
a run with failures prints an error and no rate (the libraries write android.priority in lower
case, "high", where body.json has "HIGH"; firebase-admin accepts no other). Runs are interleaved (run 1 of every peer,
then run 2, …) so that the machine's load drifts over all peers alike. Output, per run and
then per peer:

    peer async-firebase run 1: 812 messages/s (1000 ok)
    median async-firebase 812

(or `median <peer> error` when a run of that peer failed).

The peers:
  async-firebase        AsyncFirebaseClient(use_http2=True) (httpx over HTTP/2); send_each()
                        takes at most 500 messages and gathers them; concurrency / 500 such
                        calls run at once (asyncio.gather over the chunks, a semaphore), so
                        `concurrency` messages are in flight.
  firebase-admin        messaging.send_each(messages), 500 a call (its maximum), one call after
                        the other, as a synchronous program loops over it: each call sends its
                        500 on 500 threads through requests (HTTP/1.1).
  firebase-admin-async  messaging.send_each_async(messages), 500 a call (its maximum; httpx over
                        HTTP/2); concurrency / 500 calls at once through asyncio.gather and a
                        semaphore: a user with more than 500 messages chunks them and gathers the
                        chunks, and this keeps the same `concurrency` in flight as bench-fcm
                        (batches of concurrency / 2, two outstanding) and async-firebase.

How each is pointed at the sink (the FCM API otherwise lives at https://fcm.googleapis.com):
  * credentials: a throwaway service account (a fresh RSA key from openssl) whose token_uri is
    URL/token and project_id `bench` (or --account). google-auth, which firebase-admin uses,
    fetches its access token from token_uri. async-firebase ignores token_uri: it posts the
    JWT grant to its module constant `async_firebase._credentials.TOKEN_URL`, monkeypatched here
    (the library has no argument for it).
  * endpoint: async-firebase builds its URL from the class attribute `BASE_URL` (set on the
    client instance); firebase-admin reads the class attribute `_MessagingService.FCM_URL` when
    its messaging service is created (set before the first send). firebase-admin mounts a
    100-connection requests adapter (with its retries) for https://fcm.googleapis.com only;
    that same adapter object is mounted for the sink's URL too, so send_each keeps the pool it
    would have against Google (otherwise it falls back to requests' default 10-connection pool).
  * trust: every client here verifies with its default settings, so the sink's certificate is
    given through the environment: REQUESTS_CA_BUNDLE for requests (firebase-admin's send_each
    and google-auth's token fetch) and SSL_CERT_FILE for httpx (async-firebase and
    send_each_async; httpx reads it when verify=True and trust_env=True, both defaults, and
    neither library passes a verify argument).
After the warm-up (one message: the access token and the connections) each httpx peer reports the
HTTP versions of its pooled connections, to show that it really speaks HTTP/2 to the sink.
httpx does not survive the sink's GOAWAY (every 10,000 requests on a connection): the two HTTP/2
peers move to a fresh client every --per-client messages, as aioapns_peer.py does (run_segmented).
"""

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from collections import Counter

PEERS = ("async-firebase", "firebase-admin", "firebase-admin-async")
BATCH = 500  # the most either library takes in one send_each call
PROJECT = "bench"


def token(index):
    tail = format(index, "x")
    return "fcm:bench_" + "a" * (140 - len(tail)) + tail


# The content of bench-fcm.sh's body.json (one frost alert); alert_id is fresh per message.
TITLE, BODY = "Frost tonight", "Minimum −3 °C near Tampere"
COLLAPSE = "frost-60.20,25.00"
TTL_SECONDS = 36000


def data_map():
    return {"alert_id": str(uuid.uuid4()), "box": "61.50,23.75", "group": "frost", "level": "hard",
            "minimum_c": "-3.0", "night": "2026-11-22"}


def make_account(url, directory):
    """A throwaway service account whose token endpoint is the sink's."""
    key = subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"],
                         check=True, capture_output=True, text=True).stdout
    account = {
        "type": "service_account", "project_id": PROJECT, "private_key_id": uuid.uuid4().hex,
        "private_key": key, "client_email": f"bench@{PROJECT}.iam.gserviceaccount.com",
        "client_id": "100000000000000000000", "token_uri": url + "/token",
    }
    path = os.path.join(directory, "service-account.json")
    with open(path, "w") as file:
        json.dump(account, file)
    return path


def reason(exception):
    text = " ".join(f"{type(exception).__name__}: {exception}".split())
    return text if len(text) <= 120 else text[:117] + "..."


def http_versions(client):
    """The HTTP versions of an httpx.AsyncClient's pooled connections (reads httpx/httpcore
    internals, for the report only)."""
    transports = [client._transport] + [t for t in client._mounts.values() if t is not None]
    versions = Counter()
    for transport in transports:
        transport = getattr(transport, "_wrapped_transport", transport)  # firebase-admin's retry wrapper
        pool = getattr(transport, "_pool", None)
        for connection in getattr(pool, "connections", []):
            inner = type(getattr(connection, "_connection", None)).__name__
            versions["HTTP/2" if "HTTP2" in inner else "HTTP/1.1" if "HTTP11" in inner else inner] += 1
    return " ".join(f"{v}×{n}" for v, n in sorted(versions.items())) or "none pooled"


class AsyncFirebasePeer:
    name = "async-firebase"

    def __init__(self, args, account_path):
        import async_firebase._credentials as credentials_module
        from async_firebase import AsyncFirebaseClient
        from async_firebase import messages

        self.m = messages
        # No argument for the token endpoint: the module constant is what it posts to.
        credentials_module.TOKEN_URL = args.url + "/token"
        self.client = AsyncFirebaseClient(use_http2=True)
        self.client.BASE_URL = args.url  # class attribute, overridden on the instance
        self.client.creds_from_service_account_file(account_path)
        self.concurrent_calls = max(1, args.concurrency // BATCH)
        self.per_client, self.used = args.per_client, 0

    async def renew(self):
        # close() drops the httpx client; the next send opens a new one (the token is kept).
        await self.client.close()

    def message(self, index):
        m = self.m
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # `token` is deprecated for `fid`
            return m.Message(
                token=token(index),
                notification=m.Notification(title=TITLE, body=BODY),
                android=m.AndroidConfig(
                    collapse_key=COLLAPSE, priority="high", ttl=f"{TTL_SECONDS}s",
                    notification=m.AndroidNotification(
                        body_loc_key="FROST_ALERT", body_loc_args=["-3"], sound="default", tag=COLLAPSE,
                        priority=m.AndroidNotificationPriority.HIGH)),
                data=data_map())

    async def send_chunk(self, first, last):
        response = await self.client.send_each([self.message(i) for i in range(first, last)])
        return [(r.success, None if r.success else reason(r.exception or "no name")) for r in response.responses]

    async def run(self, count):
        return await run_segmented(self, count)

    def protocols(self):
        return http_versions(self.client._http_client)


class FirebaseAdminPeer:
    name = "firebase-admin"

    def __init__(self, args, account_path, app_name):
        import firebase_admin
        from firebase_admin import credentials, messaging

        self.messaging = messaging
        # The endpoint: a class attribute read when the app's messaging service is created.
        messaging._MessagingService.FCM_URL = args.url + "/v1/projects/{0}/messages:send"
        self.app = firebase_admin.initialize_app(credentials.Certificate(account_path), name=app_name)
        service = messaging._get_messaging_service(self.app)
        session = service._client.session
        # The library's own FCM adapter (100 connections, its retries), for the sink's URL too.
        session.mount(args.url, session.adapters["https://fcm.googleapis.com"])
        self.service = service
        self.concurrent_calls = max(1, args.concurrency // BATCH)
        self.per_client, self.used = args.per_client, 0

    def message(self, index):
        messaging = self.messaging
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # `token` is deprecated for `fid`
            return messaging.Message(
                token=token(index),
                notification=messaging.Notification(title=TITLE, body=BODY),
                android=messaging.AndroidConfig(
                    collapse_key=COLLAPSE, priority="high", ttl=TTL_SECONDS,
                    notification=messaging.AndroidNotification(
                        body_loc_key="FROST_ALERT", body_loc_args=["-3"], sound="default", tag=COLLAPSE,
                        priority="high")),
                data=data_map())

    @staticmethod
    def outcomes(batch):
        return [(r.success, None if r.success else reason(r.exception)) for r in batch.responses]

    async def run(self, count):
        # send_each blocks (500 threads a call): a synchronous sender calls it in a loop.
        results = []
        for first in range(0, count, BATCH):
            batch = [self.message(i) for i in range(first, min(count, first + BATCH))]
            results += self.outcomes(self.messaging.send_each(batch, app=self.app))
        return results

    def protocols(self):
        return "HTTP/1.1 (requests)"


class FirebaseAdminAsyncPeer(FirebaseAdminPeer):
    name = "firebase-admin-async"

    async def send_chunk(self, first, last):
        batch = [self.message(i) for i in range(first, last)]
        return self.outcomes(await self.messaging.send_each_async(batch, app=self.app))

    async def renew(self):
        # An httpx client cannot reopen: a new one made as the messaging service makes its own
        # (same credential, so the token is kept, same timeout; HTTP/2 and retries by default).
        from firebase_admin import _http_client

        old = self.service._async_client
        await old.aclose()
        self.service._async_client = _http_client.HttpxAsyncClient(credential=self.service._credential,
                                                                   timeout=old.timeout)

    async def run(self, count):
        return await run_segmented(self, count)

    def protocols(self):
        return http_versions(self.service._async_client.async_client)


async def gather_chunks(send_chunk, start, end, concurrent_calls):
    """Sends messages [start, end) in chunks of BATCH, `concurrent_calls` chunks at once."""
    semaphore = asyncio.Semaphore(concurrent_calls)

    async def limited(first):
        async with semaphore:
            return await send_chunk(first, min(end, first + BATCH))

    chunks = await asyncio.gather(*(limited(first) for first in range(start, end, BATCH)))
    return [outcome for chunk in chunks for outcome in chunk]


async def run_segmented(peer, count):
    """Sends messages [0, count) through an httpx (HTTP/2) peer, on a fresh client (so a fresh
    connection) before its current one would carry more than `per_client` messages: httpx does
    not survive the GOAWAY the sink sends every 10,000 requests on a connection (the requests
    sent after it fail with h2 state errors instead of moving to a new connection), so, as
    aioapns_peer.py does for aioapns, the peer moves on before that. --per-client 0 keeps one
    client throughout (and shows those failures on runs past 10,000 messages)."""
    results = []
    segment = peer.per_client or count
    for first in range(0, count, segment):
        end = min(count, first + segment)
        if peer.per_client and peer.used + (end - first) > peer.per_client:
            await peer.renew()
            peer.used = 0
        results += await gather_chunks(peer.send_chunk, first, end, peer.concurrent_calls)
        peer.used += end - first
    return results


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", required=True, help="the sink, e.g. https://127.0.0.1:18444")
    parser.add_argument("--trust", required=True, help="the sink's certificate (PEM)")
    parser.add_argument("--count", type=int, default=100000)
    parser.add_argument("--concurrency", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--peers", default=",".join(PEERS))
    parser.add_argument("--per-client", type=int, default=9000,
                        help="messages an HTTP/2 peer sends on one httpx client before it opens a fresh one "
                             "(the sink sends GOAWAY every 10,000 requests; 0: never)")
    parser.add_argument("--account", help="a service-account JSON (default: a throwaway one for the sink)")
    args = parser.parse_args()
    args.url = args.url.rstrip("/")
    names = [name.strip() for name in args.peers.split(",") if name.strip()]
    unknown = [name for name in names if name not in PEERS]
    if unknown:
        parser.error(f"unknown peer(s) {', '.join(unknown)}; known: {', '.join(PEERS)}")

    # Set before any client exists: requests reads REQUESTS_CA_BUNDLE per request, httpx
    # reads SSL_CERT_FILE when it builds its SSL context.
    os.environ["REQUESTS_CA_BUNDLE"] = args.trust
    os.environ["SSL_CERT_FILE"] = args.trust

    with tempfile.TemporaryDirectory(prefix="fcm-peers.") as directory:
        account = args.account or make_account(args.url, directory)
        peers = []
        for name in names:
            if name == "async-firebase":
                peers.append(AsyncFirebasePeer(args, account))
            elif name == "firebase-admin":
                peers.append(FirebaseAdminPeer(args, account, "peer-sync"))
            else:
                peers.append(FirebaseAdminAsyncPeer(args, account, "peer-async"))

        print(f"peers: {', '.join(names)}; count {args.count}, concurrency {args.concurrency}, runs {args.runs}",
              flush=True)
        failed = set()
        # Warm-up, as bench-fcm: the access token and the connections (one message, not timed).
        for peer in peers:
            try:
                outcomes = await peer.run(1)
            except Exception as error:  # noqa: BLE001 - any failure is the peer's result
                outcomes = [(False, reason(error))]
            if not outcomes[0][0]:
                print(f"peer {peer.name} warm-up: error: {outcomes[0][1]}", flush=True)
                failed.add(peer.name)
            else:
                print(f"peer {peer.name} warm-up: ok, connections {peer.protocols()}", flush=True)

        rates = {peer.name: [] for peer in peers}
        for run in range(1, args.runs + 1):
            for peer in peers:
                if peer.name in failed:
                    continue
                start = time.perf_counter()
                try:
                    outcomes = await peer.run(args.count)
                except Exception as error:  # noqa: BLE001
                    outcomes = [(False, reason(error))] * args.count
                elapsed = time.perf_counter() - start
                ok = sum(1 for success, _ in outcomes if success)
                if ok == args.count and len(outcomes) == args.count:
                    rate = args.count / elapsed
                    rates[peer.name].append(rate)
                    print(f"peer {peer.name} run {run}: {rate:.0f} messages/s ({ok} ok)", flush=True)
                else:
                    reasons = Counter(why for success, why in outcomes if not success)
                    summary = "; ".join(f"{n}× {why}" for why, n in reasons.most_common(3))
                    print(f"peer {peer.name} run {run}: error: {ok} of {args.count} ok ({summary})", flush=True)
                    failed.add(peer.name)
            if run == 1:
                for peer in peers:
                    if peer.name not in failed:
                        print(f"peer {peer.name} connections after run 1: {peer.protocols()}", flush=True)

        for peer in peers:
            if peer.name in failed or not rates[peer.name]:
                print(f"median {peer.name} error")
            else:
                print(f"median {peer.name} {statistics.median(rates[peer.name]):.0f}")

        for peer in peers:
            if isinstance(peer, AsyncFirebasePeer):
                await peer.client.close()
            elif isinstance(peer, FirebaseAdminAsyncPeer):
                await peer.service._async_client.aclose()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
