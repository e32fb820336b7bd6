"""Schemathesis hooks for Liveline's /openapi.json: the one bound the document cannot state.

Every field the server checks beyond its type is printed as a `pattern` (or an `enum`) that is
exactly the server's check (Sources/LivelineAPI/Documentation/TextFormat.swift), so schemathesis
needs no custom format: it makes valid and invalid values from the document alone, and the
contract test runs it without this file too (OpenAPIContractTests). What is left is a put's size.
"""

import json

import schemathesis


def _bytes(value) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


# A put's state is pushed whole: the push (content state and alert, with the envelope of about 200
# bytes) must fit APNs's 4096 bytes, else 422 (`contractViolation`, field `body`), as the document's
# PutContext says.
# No JSON Schema keyword bounds a document's size, so generated states are kept to what fits.
@schemathesis.hook("filter_body").apply_to(method="PUT", path="/v1/contexts/{key}")
def _fits_a_push(context, body) -> bool:
    if not isinstance(body, dict):
        return True
    return _bytes(body.get("contentState")) + _bytes(body.get("alert")) <= 3600
