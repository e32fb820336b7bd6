"""An application server and a browser outside Swift, against the sandbox's Web Push service.

Uses the control API only (POST /subscriptions, GET /subscriptions/<id>/pushes), http_ece
(RFC 8188/8291, pywebpush's encryption) to encrypt, PyJWT to sign the VAPID token (RFC 8292) and
urllib for HTTP/1.1. Prints one JSON object: the answers and what the control API reported, with
the accepted push decrypted again here with the subscription's privateKey.
"""

import argparse
import base64
import json
import time
import urllib.error
import urllib.request

import http_ece
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64(raw):
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def call(method, url, body=None, headers=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--origin", required=True)
    parser.add_argument("--plaintext", required=True)
    args = parser.parse_args()

    status, _, raw = call("POST", args.origin + "/subscriptions")
    subscription = json.loads(raw)

    vapid_key = ec.generate_private_key(ec.SECP256R1())
    k = b64(vapid_key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
    token = jwt.encode(
        {"aud": args.origin, "exp": int(time.time()) + 3600, "sub": "mailto:peer@example.com"}, vapid_key, algorithm="ES256"
    )
    sender = ec.generate_private_key(ec.SECP256R1())
    body = http_ece.encrypt(
        args.plaintext.encode(), private_key=sender, dh=unb64(subscription["keys"]["p256dh"]),
        auth_secret=unb64(subscription["keys"]["auth"]), rs=4096,
    )
    headers = {
        "Content-Encoding": "aes128gcm", "Content-Type": "application/octet-stream", "TTL": "120", "Urgency": "normal",
        "Authorization": "vapid t=%s, k=%s" % (token, k),
    }
    accepted = call("POST", subscription["endpoint"], body, headers)
    refused = call("POST", subscription["endpoint"], body, dict(headers, TTL="forever"))

    _, _, raw = call("GET", "%s/subscriptions/%s/pushes" % (args.origin, subscription["id"]))
    pushes = json.loads(raw)
    browser = ec.derive_private_key(int.from_bytes(unb64(subscription["privateKey"]), "big"), ec.SECP256R1())
    decrypted = http_ece.decrypt(unb64(pushes[0]["body"]), private_key=browser, auth_secret=unb64(subscription["keys"]["auth"]))

    print(json.dumps({
        "created": status,
        "id": subscription["id"],
        "k": k,
        "accepted": {"status": accepted[0], "location": accepted[1].get("Location")},
        "refused": {"status": refused[0], "body": json.loads(refused[2])},
        "pushes": pushes,
        "decryptedHere": decrypted.decode(),
    }))


if __name__ == "__main__":
    main()
