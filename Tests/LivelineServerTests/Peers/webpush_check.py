"""An independent reader of the web pushes a Liveline server sent: decrypts each body with http_ece
(RFC 8188/8291, the encryption pywebpush uses) with the simulated browser's private key and auth
secret, and verifies each VAPID JWT (RFC 8292) with PyJWT against the public key the server serves.

    .venv/bin/python webpush_check.py pushes.json

pushes.json: {"publicKey": b64url, "audience": origin, "subject": str,
              "pushes": [{"body": b64url, "privateKey": b64url d, "auth": b64url, "authorization": str}]}
Prints {"decrypted": n, "verified": n, "plaintexts": [...], "errors": [...]}.
"""

import base64
import json
import sys
import time

import http_ece
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main():
    with open(sys.argv[1]) as handle:
        job = json.load(handle)
    served = unb64(job["publicKey"])
    verifier = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), served)
    result = {"decrypted": 0, "verified": 0, "plaintexts": [], "errors": []}
    for push in job["pushes"]:
        try:
            key = ec.derive_private_key(int.from_bytes(unb64(push["privateKey"]), "big"), ec.SECP256R1())
            plaintext = http_ece.decrypt(unb64(push["body"]), private_key=key, auth_secret=unb64(push["auth"]), version="aes128gcm")
            result["decrypted"] += 1
            result["plaintexts"].append(plaintext.decode())
        except Exception as error:  # noqa: BLE001 - reported to the test
            result["errors"].append("decrypt: %r" % error)
        try:
            scheme, _, params = push["authorization"].partition(" ")
            fields = dict(part.strip().split("=", 1) for part in params.split(","))
            if scheme.lower() != "vapid" or unb64(fields["k"]) != served:
                raise ValueError("k is not the served public key")
            claims = jwt.decode(fields["t"], verifier, algorithms=["ES256"], audience=job["audience"])
            if claims["sub"] != job["subject"] or not (time.time() < claims["exp"] <= time.time() + 24 * 3600):
                raise ValueError("claims %r" % claims)
            result["verified"] += 1
        except Exception as error:  # noqa: BLE001 - reported to the test
            result["errors"].append("vapid: %r" % error)
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
