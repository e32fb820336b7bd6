#!/usr/bin/env python3
"""An independent APNs client (aioapns, from PyPI) against the Liveline APNs sandbox.

Sends COUNT Live Activity pushes with JWT auth to TOKEN, then one push each that APNs must
refuse: a malformed token, a topic of another app, an oversized payload, and an unregistered
token. Prints one JSON object with what came back. Run by AioapnsPeerTests.swift:

    .venv/bin/python aioapns_peer.py --port P --ca cert.pem --key AuthKey.p8 --key-id K --team-id T \
        --bundle-id B --token HEX --unregistered-token HEX --count 1000
"""
import argparse
import asyncio
import json
import ssl
import time

from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsDevelopmentClientProtocol, APNsProductionClientProtocol


def result_dict(result):
    return {"status": result.status, "reason": result.description, "timestamp": result.timestamp,
            "id": result.notification_id}


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--ca", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--unregistered-token", required=True)
    parser.add_argument("--count", type=int, default=1000)
    args = parser.parse_args()

    # aioapns always dials Apple's host on port 443: point it at the sandbox instead.
    for protocol in (APNsDevelopmentClientProtocol, APNsProductionClientProtocol):
        protocol.APNS_SERVER = args.host
        protocol.APNS_PORT = args.port
    # The default context offers no ALPN (a quirk the sandbox must tolerate) and checks the
    # certificate against the sandbox's CA file and the IP address.
    context = ssl.create_default_context(cafile=args.ca)
    with open(args.key) as key_file:
        key = key_file.read()
    topic = args.bundle_id + ".push-type.liveactivity"
    client = APNs(key=key, key_id=args.key_id, team_id=args.team_id, topic=topic, use_sandbox=True,
                  ssl_context=context, max_connections=4)

    def request(token, n, **extra):
        payload = {"aps": {"timestamp": int(time.time()), "event": "update", "content-state": {"n": n}}}
        return NotificationRequest(device_token=token, message=payload, push_type=PushType.LIVEACTIVITY,
                                   priority=10, **extra)

    started = time.monotonic()
    results = await asyncio.gather(*(client.send_notification(request(args.token, n)) for n in range(args.count)))
    elapsed = time.monotonic() - started
    statuses = {}
    for result in results:
        statuses[result.status] = statuses.get(result.status, 0) + 1

    bad_token = await client.send_notification(request("not-a-hex-token", -1))
    wrong_topic = await client.send_notification(request(args.token, -2, apns_topic="com.example.wrong.push-type.liveactivity"))
    oversized = request(args.token, -3)
    oversized.message["pad"] = "x" * 5000
    too_large = await client.send_notification(oversized)
    unregistered = await client.send_notification(request(args.unregistered_token, -4))

    print(json.dumps({
        "statuses": statuses,
        "ids": len({result.notification_id for result in results}),
        "seconds": round(elapsed, 3),
        "badToken": result_dict(bad_token),
        "wrongTopic": result_dict(wrong_topic),
        "tooLarge": result_dict(too_large),
        "unregistered": result_dict(unregistered),
    }))
    client.pool.close()


if __name__ == "__main__":
    asyncio.run(main())
