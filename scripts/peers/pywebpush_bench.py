"""pywebpush (PyPI) sending web pushes to the sandbox's push service: the peer of
`liveline-bench webpush`. Subscribes SUBSCRIPTIONS simulated browsers through the control API,
(their endpoints moved to --endpoint-origin when given: a lean receiver that accepts every POST),
then sends COUNT pushes round-robin with pywebpush.webpush() — its encryption (http_ece,
aes128gcm), its VAPID signing, one requests.Session kept alive — and prints one JSON line:
{"pushes": n, "accepted": n, "seconds": s, "rate": n/s}.

    .venv/bin/python scripts/peers/pywebpush_bench.py --origin http://127.0.0.1:PORT --count 2000
"""

import argparse
import json
import os
import tempfile
import time
import urllib.request

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from pywebpush import webpush


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--origin", required=True)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--subscriptions", type=int, default=10)
    parser.add_argument("--endpoint-origin")
    args = parser.parse_args()

    subscriptions = []
    for _ in range(args.subscriptions):
        request = urllib.request.Request(args.origin + "/subscriptions", data=b"", method="POST")
        with urllib.request.urlopen(request, timeout=10) as response:
            created = json.loads(response.read())
        endpoint = created["endpoint"]
        if args.endpoint_origin:
            endpoint = f"{args.endpoint_origin}/push/{len(subscriptions)}"
        subscriptions.append({"endpoint": endpoint, "keys": created["keys"]})

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    # pywebpush takes the VAPID key as a PEM file's path.
    handle, key_file = tempfile.mkstemp(suffix=".pem")
    os.write(handle, pem)
    os.close(handle)
    session = requests.Session()
    payload = json.dumps({"title": "Bench", "body": "a web push of the benchmark", "dedupeKey": "bench:1", "notificationId": 1})
    accepted = 0
    started = time.perf_counter()
    for index in range(args.count):
        response = webpush(
            subscription_info=subscriptions[index % len(subscriptions)], data=payload, vapid_private_key=key_file,
            vapid_claims={"sub": "mailto:bench@liveline.test"}, ttl=60, content_encoding="aes128gcm", requests_session=session,
        )
        if response.status_code == 201:
            accepted += 1
    seconds = time.perf_counter() - started
    os.unlink(key_file)
    print(json.dumps({"pushes": args.count, "accepted": accepted, "seconds": seconds, "rate": args.count / seconds}))


if __name__ == "__main__":
    main()
