"""Parses a Prometheus text exposition with prometheus_client (the reference implementation's
Python parser, an independent peer) and prints its families as JSON.

    .venv/bin/python prometheus_peer.py metrics.txt
"""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

with open(sys.argv[1], encoding="utf-8") as handle:
    text = handle.read()
families = {}
for family in text_string_to_metric_families(text):
    families[family.name] = {
        "type": family.type,
        "help": family.documentation,
        "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples],
    }
print(json.dumps(families))
