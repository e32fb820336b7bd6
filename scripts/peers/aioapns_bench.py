"""Sends N Live Activity pushes with aioapns (an independent Python APNs client) to an
APNs-compatible server on one connection and prints the rate as JSON. Benchmark peer only."""
import argparse
import asyncio
import json
import ssl
import time

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca-file", required=True)
    parser.add_argument("--key-file", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("-n", type=int, default=10000)
    parser.add_argument("--concurrency", type=int, default=100)
    args = parser.parse_args()

    # aioapns only knows Apple's hosts: point its development protocol at the given server.
    connection.APNsDevelopmentClientProtocol.APNS_SERVER = args.host
    connection.APNsDevelopmentClientProtocol.APNS_PORT = args.port
    context = ssl.create_default_context(cafile=args.ca_file)
    with open(args.key_file) as f:
        key = f.read()
    client = APNs(key=key, key_id=args.key_id, team_id=args.team_id, topic=args.topic,
                  use_sandbox=True, max_connections=1, ssl_context=context)
    message = {"aps": {"timestamp": int(time.time()), "event": "update", "content-state": {"rev": 1}}}

    async def one() -> int:
        request = NotificationRequest(device_token=args.token, message=message,
                                      push_type=PushType.LIVEACTIVITY, priority=10)
        result = await client.send_notification(request)
        return 1 if result.is_successful else 0

    await one()  # connect and authenticate first, as the other clients do
    ok = 0
    started = time.perf_counter()
    remaining = args.n
    while remaining > 0:
        batch = min(args.concurrency, remaining)
        ok += sum(await asyncio.gather(*(one() for _ in range(batch))))
        remaining -= batch
    elapsed = time.perf_counter() - started
    print(json.dumps({"sent": args.n, "ok": ok, "seconds": elapsed, "rate": args.n / elapsed}))


asyncio.run(main())
