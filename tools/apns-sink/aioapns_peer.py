"""The peer for the push benchmark: aioapns pushing to the neutral sink.

    python3 tools/apns-sink/aioapns_peer.py --port 8443 --trust /tmp/frostbox-apns-sink/sink.crt \
        --key AuthKey.p8 --key-id KEYID --team-id TEAMID [--count 100000] [--concurrency 1000] [--runs 3]

aioapns only knows Apple's host names, so its production protocol class is pointed at
127.0.0.1:PORT, and its TLS context offers ALPN h2 (nginx needs it; Apple does not);
everything else (JWT, HTTP/2 framing, connection pool) is aioapns' own.
Prints pushes/s per run and the median, like bench-push.
"""

import argparse
import asyncio
import ssl
import statistics
import time
import uuid

from aioapns import APNs, NotificationRequest
from aioapns import connection as aioapns_connection


async def run_once(make_client, count, concurrency, per_client):
    """Sends `count` pushes, a fresh aioapns client (so a fresh connection) for every
    `per_client` of them: aioapns does not survive a GOAWAY (h2 raises ProtocolError on the
    closed connection), and the sink sends one every 10,000 requests."""
    outcomes = {}

    async def one(client, semaphore, index):
        async with semaphore:
            token = format(index, "x").rjust(64, "a")
            request = NotificationRequest(
                device_token=token,
                message={
                    "aps": {
                        "alert": {"title": "Frost tonight", "body": "Minimum −3 °C near Tampere",
                                  "loc-key": "FROST_ALERT", "loc-args": ["-3"]},
                        "sound": "default", "thread-id": "frost", "interruption-level": "time-sensitive",
                    },
                    "frost": {"box": "61.50,23.75", "night": "2026-11-22", "level": "hard", "minimum_c": -3},
                },
                notification_id=str(uuid.uuid4()),
                collapse_key="frost-60.20,25.00",
            )
            result = await client.send_notification(request)
            key = "delivered" if result.is_successful else str(result.status)
            outcomes[key] = outcomes.get(key, 0) + 1

    start = time.perf_counter()
    for first in range(0, count, per_client):
        client = make_client()
        semaphore = asyncio.Semaphore(concurrency)
        await asyncio.gather(*(one(client, semaphore, index) for index in range(first, min(count, first + per_client))))
    return count / (time.perf_counter() - start), outcomes


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--trust", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--topic", default="com.example.frost")
    parser.add_argument("--count", type=int, default=100000)
    parser.add_argument("--concurrency", type=int, default=1000)
    parser.add_argument("--connections", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--per-client", type=int, default=9000)
    args = parser.parse_args()

    aioapns_connection.APNsProductionClientProtocol.APNS_SERVER = args.host
    aioapns_connection.APNsProductionClientProtocol.APNS_PORT = args.port
    context = ssl.create_default_context(cafile=args.trust)
    # Apple's gateways speak HTTP/2 without ALPN; nginx needs it offered to choose h2.
    context.set_alpn_protocols(["h2"])
    with open(args.key) as key_file:
        key = key_file.read()

    def make_client():
        return APNs(key=key, key_id=args.key_id, team_id=args.team_id, topic=args.topic,
                    use_sandbox=False, ssl_context=context, max_connections=args.connections)

    rates = []
    for index in range(1, args.runs + 1):
        rate, outcomes = await run_once(make_client, args.count, args.concurrency, args.per_client)
        rates.append(rate)
        summary = " ".join(f"{k}={v}" for k, v in sorted(outcomes.items()))
        print(f"run {index}: {rate:.0f} pushes/s ({summary})", flush=True)
    print(f"median: {statistics.median(rates):.0f} pushes/s over {args.runs} runs of {args.count} "
          f"(concurrency {args.concurrency}, {args.connections} connection(s))")


if __name__ == "__main__":
    asyncio.run(main())
