"""Schemathesis hooks for Liveline's /openapi.json: how to make values of the custom `format`s
the document declares (see Sources/LivelineAPI/Documentation/TextFormat.swift). Each format's
`pattern` is printed too, so values that break it are still generated as invalid data; these
strategies make the valid ones, which no pattern alone describes exactly.
"""

import base64
import datetime
import json

import schemathesis
from hypothesis import strategies as st
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives import serialization


def _monday(day: datetime.date) -> str:
    # 0001-01-01 is a Monday (proleptic Gregorian), so going back never leaves the calendar.
    return (day - datetime.timedelta(days=day.weekday())).isoformat()


# The ISO date of a Monday (`ShoppingWeek`): any day, taken back to its week's Monday.
schemathesis.openapi.format("iso-monday", st.dates().map(_monday))


def _p256_public_key(_: int) -> str:
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    raw = key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


# An uncompressed P-256 public key, base64url (a web-push subscription's `keys.p256dh`): a point
# on the curve, which no pattern can say.
schemathesis.openapi.format("p256-public-key", st.integers(0, 1_000_000).map(_p256_public_key))

_PATH = st.from_regex(r"\A[a-z0-9/._-]{0,40}\Z")

# A web-push subscription's endpoint: an https URL of a push service on the internet (the server
# refuses private and local addresses, which a pattern cannot tell from public ones).
schemathesis.openapi.format(
    "push-service-url",
    st.builds(lambda host, path: f"https://{host}/{path}", st.sampled_from(["push.example.com", "fcm.example.net", "updates.push.example.org"]), _PATH),
)

# A notification's link: a URL with a scheme (Foundation's URL parses it and finds the scheme).
schemathesis.openapi.format(
    "url-with-scheme",
    st.builds(lambda scheme, path: f"{scheme}://{path}", st.sampled_from(["liveline", "https", "myapp"]), _PATH),
)


def _rfc3339(moment: datetime.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


# `after` of the departures: RFC 3339 (with or without fractional seconds, any offset) or POSIX
# seconds up to the year 9999.
schemathesis.openapi.format(
    "date-time-or-seconds",
    st.one_of(
        st.integers(0, 253_402_300_799).map(str),
        st.datetimes(
            min_value=datetime.datetime(1970, 1, 2), max_value=datetime.datetime(9999, 12, 30),
            timezones=st.sampled_from([datetime.timezone.utc, datetime.timezone(datetime.timedelta(hours=5, minutes=30))]),
        ).map(_rfc3339),
    ),
)


def _bytes(value) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


# A put's state is pushed whole: the push (content state and alert, with the envelope of about 200
# bytes) must fit APNs's 4096 bytes, else 422 payloadTooLarge, as the document's PutContext says.
# No JSON Schema keyword bounds a document's size, so generated states are kept to what fits.
@schemathesis.hook("filter_body").apply_to(method="PUT", path="/v1/contexts/{key}")
def _fits_a_push(context, body) -> bool:
    if not isinstance(body, dict):
        return True
    return _bytes(body.get("contentState")) + _bytes(body.get("alert")) <= 3600
