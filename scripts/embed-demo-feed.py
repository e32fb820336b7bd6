#!/usr/bin/env python3
"""Writes Sources/LivelineTransit/Demo/DemoFeed+Data.swift from the demo feed's files
(Demo/feed/*.txt) and its GTFS-Realtime snapshots (Demo/rt/*.pb, in name order), so the server
carries them inside its binary. Run it after changing either (scripts/make-demo-rt.py makes the
.pb files from Demo/rt/sequence.json)."""
import base64
import pathlib

demo = pathlib.Path(__file__).resolve().parent.parent / "Sources/LivelineTransit/Demo"
lines = [
    "// swift-format-ignore-file",
    "// Made by scripts/embed-demo-feed.py from Demo/feed and Demo/rt: do not edit by hand.",
    "",
    "extension DemoFeed {",
    "    /// The feed's files by name, as in Demo/feed.",
    "    static let files: [String: String] = [",
]
for path in sorted((demo / "feed").glob("*.txt")):
    text = path.read_text(encoding="utf-8")
    assert '"""#' not in text
    lines.append(f'        "{path.name}": #"""')
    lines.extend(text.rstrip("\n").split("\n"))
    lines.append('"""#,')
lines.append("    ]")
lines.append("")
lines.append("    /// The GTFS-Realtime snapshots of Demo/rt, base64, in order.")
lines.append("    static let snapshotsBase64: [String] = [")
for path in sorted((demo / "rt").glob("*.pb")):
    lines.append(f'        "{base64.b64encode(path.read_bytes()).decode()}",')
lines.append("    ]")
lines.append("}")
(demo / "DemoFeed+Data.swift").write_text("\n".join(lines) + "\n", encoding="utf-8")
print(f"wrote {demo / 'DemoFeed+Data.swift'}")
