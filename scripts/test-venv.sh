#!/usr/bin/env bash
# Creates the test-only Python virtualenv at .venv (git-ignored) with PyJWT and cryptography, which
# the LivelineCrypto tests use as an independent ES256/JWT peer. Idempotent: does nothing when the
# venv already imports both packages.
set -euo pipefail
cd "$(dirname "$0")/.."

python=.venv/bin/python
if [ -x "$python" ] && "$python" -c 'import jwt, cryptography' >/dev/null 2>&1; then
  exit 0
fi
command -v python3 >/dev/null || { echo "python3 is not on PATH: install python3 and python3-venv" >&2; exit 1; }
if [ ! -x "$python" ]; then
  python3 -m venv .venv || { echo "python3 -m venv failed: install python3-venv" >&2; rm -rf .venv; exit 1; }
fi
echo "installing pyjwt and cryptography into .venv" >&2
.venv/bin/pip install --quiet --disable-pip-version-check pyjwt cryptography
"$python" -c 'import jwt, cryptography' || { echo ".venv is missing pyjwt or cryptography" >&2; exit 1; }
