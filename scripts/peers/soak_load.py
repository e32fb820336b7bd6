#!/usr/bin/env python3
"""The soak's load and its samples (scripts/soak.sh; docs/performance.md, "Soak").

Drives one `liveline serve` at a steady rate for MINUTES with a mix of what an app does — PUTs
of /v1 contexts, pulls, shopping changes, starts, notify (alert and web push), token churn whose
old tokens APNs answers 410, open dashboard pages on Server-Sent Events — and every 10 s samples
the server process (RSS and its file pages, descriptors, threads from /proc), the database and WAL size, the outbox
depth (/metrics) and the requests' p50/p99 latency in that window. Prints the table as it goes,
writes soak.csv and soak.svg to OUT, then the verdict; exits 1 when a check fails.

Only the standard library: an independent client, not the product's code.
"""
import argparse
import http.client
import json
import os
import random
import statistics
import sys
import threading
import time
import urllib.parse

STOP = threading.Event()


class Window:
    """Latencies and outcomes of the requests answered since the last sample."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latencies, self.errors, self.requests, self.error_samples = [], 0, 0, []

    def record(self, seconds, ok, what):
        with self.lock:
            self.requests += 1
            self.latencies.append(seconds)
            if not ok:
                self.errors += 1
                if len(self.error_samples) < 5:
                    self.error_samples.append(what)

    def take(self):
        with self.lock:
            taken = (self.latencies, self.errors, self.requests, self.error_samples)
            self.latencies, self.errors, self.requests, self.error_samples = [], 0, 0, []
            return taken


WINDOW = Window()


class Client:
    """One kept-alive HTTP/1.1 connection to `port`, reopened when it breaks."""

    def __init__(self, port, headers):
        self.port, self.headers, self.connection = port, headers, None

    def request(self, method, path, body=None, expect=(200, 201), record=True, extra=None):
        headers = dict(self.headers, **(extra or {}))
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        started = time.monotonic()
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
            payload = response.read()
            status = response.status
        except (OSError, http.client.HTTPException) as error:
            self.connection = None
            status, payload = 0, str(error).encode()
        if record:
            WINDOW.record(time.monotonic() - started, status in expect, f"{method} {path} -> {status} {payload[:160]!r}")
        try:
            return status, json.loads(payload) if payload else None
        except ValueError:
            return status, None


def steady(rate, action):
    """Runs `action` `rate` times a second, on schedule (late calls are not made up in a burst)."""
    interval, next_at = 1.0 / rate, time.monotonic()
    while not STOP.is_set():
        action()
        next_at = max(next_at + interval, time.monotonic() - interval)
        STOP.wait(max(0.0, next_at - time.monotonic()))


def trip(delay):
    return {
        "type": "TripLiveActivityAttributes",
        "attributes": {"tripId": "soak", "line": "S5", "destination": "Flughafen"},
        "contentState": {"currentStop": "Hbf", "nextStop": "Messe", "nextStopTime": 803461320, "remainingTime": 240,
                         "delay": delay, "occupancy": "low", "phase": "inProgress", "progress": 0.4},
    }


def token_hex():
    return os.urandom(32).hex()


class Load:
    def __init__(self, args):
        self.args = args
        self.admin = {"Authorization": f"Bearer {args.admin_key}"}
        self.user = {"Authorization": f"Bearer {args.bearer}"}
        self.contexts = [f"trip:soak-{n}" for n in range(args.contexts)]
        self.revs = {key: 0 for key in self.contexts}
        self.churned = {}  # context → the churn device's token, marked unregistered at the next churn
        self.counter = 0
        self.lock = threading.Lock()
        self.sse_events = 0

    def next(self):
        with self.lock:
            self.counter += 1
            return self.counter

    def setup(self):
        client = Client(self.args.port, self.user)
        for index, key in enumerate(self.contexts):
            status, _ = Client(self.args.port, self.admin).request("PUT", f"/v1/contexts/{key}", trip(0), record=False)
            assert status in (200, 201), f"PUT {key}: {status}"
            self.register(client, f"phone-{index}", key, token_hex())
        for device in ("phone-0", "phone-1"):
            status, _ = client.request("POST", "/api/apns/register", {"kind": "la-pushToStart", "token": token_hex(), "device_id": device,
                                                                     "attributes_type": "TripLiveActivityAttributes"}, record=False)
            assert status == 200, f"la-pushToStart: {status}"
            status, _ = client.request("POST", "/api/apns/register", {"kind": "alert", "token": token_hex(), "device_id": device}, record=False)
            assert status == 200, f"alert: {status}"
        web = http.client.HTTPConnection("127.0.0.1", self.args.web_push_port, timeout=10)
        web.request("POST", "/subscriptions")
        subscription = json.loads(web.getresponse().read())
        status, _ = client.request("POST", "/api/apns/register", {"kind": "web-push", "device_id": "laptop", "token": json.dumps(
            {"endpoint": subscription["endpoint"], "keys": subscription["keys"]})}, record=False)
        assert status == 200, f"web-push: {status}"
        status, me = client.request("GET", "/api/me", record=False)
        self.user_id = me["user"]["userId"]

    def register(self, client, device, key, token):
        status, body = client.request("POST", "/api/apns/register", {"kind": "la-update", "token": token, "device_id": device,
                                                                    "context_key": key, "attributes_type": "TripLiveActivityAttributes"})
        return status

    # --- the mix ---
    def put(self, client):
        key = random.choice(self.contexts)
        status, body = client.request("PUT", f"/v1/contexts/{key}", trip(self.next() % 60))
        if body and "rev" in body:
            self.revs[key] = body["rev"]

    def pull(self, client):
        key = random.choice(self.contexts)
        client.request("GET", f"/api/contexts/{urllib.parse.quote(key)}?since_rev={max(0, self.revs[key] - random.randint(0, 1))}")

    def shopping(self, client):
        week = "2026-12-07"
        n = self.next()
        if n % 3 == 0:
            client.request("GET", f"/api/shopping/{week}?since_rev=0")
        else:
            status, item = client.request("POST", f"/api/shopping/{week}/items", {"label": f"Soak {n % 50}"})
            if item and "id" in item:
                client.request("PATCH", f"/api/shopping/items/{item['id']}", {"done": True})
                client.request("DELETE", f"/api/shopping/items/{item['id']}")

    def start(self, client):
        key = random.choice(self.contexts)
        client.request("POST", f"/v1/contexts/{key}/start", {"userIds": [self.user_id], "alert": {"title": "Soak"}})

    def notify(self, client):
        client.request("POST", "/v1/notify", {"userId": self.user_id, "title": "Soak", "body": "steady", "dedupeKey": f"soak-{self.next()}"})

    def churn(self, client, control):
        """A new device follows a context; the one before it is unregistered at APNs (its next push: 410)."""
        key = random.choice(self.contexts)
        old = self.churned.get(key)
        if old:
            control.request("POST", f"/devices/{old}/unregistered", {}, record=False)
        token = token_hex()
        self.register(client, f"churn-{self.next()}", key, token)
        self.churned[key] = token

    def dashboard(self, stop):
        """One open dashboard page: signs in, holds its event stream, reconnects when it ends."""
        while not stop.is_set():
            try:
                connection = http.client.HTTPConnection("127.0.0.1", self.args.port, timeout=60)
                connection.request("GET", "/dashboard/sign-in")
                response = connection.getresponse()
                page = response.read().decode()
                cookie = response.getheader("Set-Cookie", "").split(";")[0]
                csrf = page.split('name="csrf" value="')[1].split('"')[0]
                form = urllib.parse.urlencode({"csrf": csrf, "key": self.args.admin_key})
                connection.request("POST", "/dashboard/sign-in", body=form, headers={
                    "Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"})
                response = connection.getresponse()
                response.read()
                session = [c for c in response.headers.get_all("Set-Cookie") or [] if c.startswith("liveline_session=")][0].split(";")[0]
                stream = http.client.HTTPConnection("127.0.0.1", self.args.port, timeout=60)
                stream.request("GET", "/dashboard/events?page=overview", headers={"Cookie": session, "Accept": "text/event-stream"})
                response = stream.getresponse()
                while not stop.is_set():
                    line = response.fp.readline()
                    if not line:
                        break
                    if line.startswith(b"event:"):
                        with self.lock:
                            self.sse_events += 1
                stream.close()
            except (OSError, http.client.HTTPException, IndexError) as error:
                WINDOW.record(0, False, f"dashboard stream: {error}")
                stop.wait(1)


def process_sample(pid):
    status = open(f"/proc/{pid}/status").read()
    field = lambda name: int(next(line.split()[1] for line in status.splitlines() if line.startswith(name + ":")))
    # RssFile: the part of RSS that is file pages (the database read through its memory map).
    return field("VmRSS") / 1024, field("RssFile") / 1024, len(os.listdir(f"/proc/{pid}/fd")), field("Threads")


def outbox_depth(port, admin_key):
    status, _ = 0, None
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", "/metrics", headers={"Authorization": f"Bearer {admin_key}"})
    text = connection.getresponse().read().decode()
    rows = [line for line in text.splitlines() if line.startswith("liveline_outbox_rows{")]
    return sum(float(line.split()[-1]) for line in rows if 'state="due"' in line or 'state="leased"' in line)


def size_mb(path):
    return os.path.getsize(path) / 1048576 if os.path.exists(path) else 0.0


def percentile(values, share):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


COLUMNS = ["minute", "rss_mb", "file_mb", "fds", "threads", "db_mb", "wal_mb", "outbox", "req_per_s", "errors", "p50_ms", "p99_ms"]


def sample_forever(args, load, samples, interval):
    started = time.monotonic()
    print(" ".join(f"{c:>9}" for c in COLUMNS), flush=True)
    while not STOP.wait(interval - ((time.monotonic() - started) % interval)):
        latencies, errors, requests, error_samples = WINDOW.take()
        rss, file_pages, fds, threads = process_sample(args.pid)
        row = {
            "minute": (time.monotonic() - started) / 60, "rss_mb": rss, "file_mb": file_pages, "fds": fds, "threads": threads,
            "db_mb": size_mb(args.database), "wal_mb": size_mb(args.database + "-wal"),
            "outbox": outbox_depth(args.port, args.admin_key), "req_per_s": requests / interval, "errors": errors,
            "p50_ms": percentile(latencies, 0.50) * 1000, "p99_ms": percentile(latencies, 0.99) * 1000,
        }
        samples.append(row)
        print(" ".join(f"{row[c]:>9.1f}" if isinstance(row[c], float) else f"{row[c]:>9}" for c in COLUMNS), flush=True)
        for sample in error_samples:
            print(f"  error: {sample}", flush=True)


def svg(samples, path):
    """Four small panels over time: RSS, descriptors and threads, p50/p99, WAL and outbox."""
    panels = [("RSS (blue), of it file pages (red), MB", ["rss_mb", "file_mb"]), ("descriptors (blue), threads (red)", ["fds", "threads"]),
              ("latency p50 (blue), p99 (red), ms", ["p50_ms", "p99_ms"]), ("WAL in MB (blue), outbox rows (red)", ["wal_mb", "outbox"])]
    colors = ["#1f77b4", "#d62728"]
    width, height, margin = 720, 150, 46
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height * len(panels)}" font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height * len(panels)}" fill="white"/>']
    end = max(s["minute"] for s in samples) or 1
    for index, (title, keys) in enumerate(panels):
        top = index * height
        peak = max(max(s[k] for s in samples) for k in keys) or 1
        out.append(f'<text x="{margin}" y="{top + 14}">{title} — top {peak:.1f}</text>')
        out.append(f'<line x1="{margin}" y1="{top + height - 20}" x2="{width - 10}" y2="{top + height - 20}" stroke="#999"/>')
        for n, key in enumerate(keys):
            points = " ".join(
                f'{margin + (s["minute"] / end) * (width - margin - 10):.1f},{top + height - 20 - (s[key] / peak) * (height - 44):.1f}'
                for s in samples)
            out.append(f'<polyline fill="none" stroke="{colors[n]}" stroke-width="1.5" points="{points}"/>')
        out.append(f'<text x="{width - 10}" y="{top + height - 6}" text-anchor="end">{end:.1f} min</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out) + "\n")


def verdict(samples, warmup_minutes, sse_events):
    """The checks of docs/performance.md, "Soak"; (lines, passed)."""
    after = [s for s in samples if s["minute"] >= warmup_minutes]
    if len(after) < 6:
        return ([f"too short: {len(after)} samples after the {warmup_minutes:.1f}-minute warm-up (need 6)"], False)
    base = statistics.median(s["rss_mb"] for s in after[:6])
    third = max(1, len(after) // 3)
    first_p99, last_p99 = statistics.median(s["p99_ms"] for s in after[:third]), statistics.median(s["p99_ms"] for s in after[-third:])
    checks = [
        (max(s["rss_mb"] for s in after) <= base * 1.10,
         f"RSS after warm-up: {base:.1f} MB, highest {max(s['rss_mb'] for s in after):.1f} MB (limit +10 %: {base * 1.10:.1f})"),
        (max(s["fds"] for s in after) - min(s["fds"] for s in after) <= 16,
         f"descriptors {min(s['fds'] for s in after)}–{max(s['fds'] for s in after)} (flat: within 16)"),
        (max(s["threads"] for s in after) - min(s["threads"] for s in after) <= 8,
         f"threads {min(s['threads'] for s in after)}–{max(s['threads'] for s in after)} (flat: within 8)"),
        (last_p99 <= max(first_p99 * 1.5, first_p99 + 5),
         f"p99 median of the first third {first_p99:.1f} ms, of the last third {last_p99:.1f} ms (flat: within 1.5× or +5 ms)"),
        (max(s["wal_mb"] for s in after) <= 64, f"WAL at most {max(s['wal_mb'] for s in after):.1f} MB (bounded: 64 MB)"),
        (sum(s["errors"] for s in samples) == 0, f"errors {sum(s['errors'] for s in samples)} of {sum(s['req_per_s'] for s in samples) * 10:.0f} requests"),
        (sse_events > 0, f"dashboard events received: {sse_events}"),
    ]
    return ([("ok   " if ok else "FAIL ") + line for ok, line in checks], all(ok for ok, _ in checks))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("port", "pid", "web-push-port", "control-port", "contexts"):
        parser.add_argument("--" + name, type=int, required=name != "contexts", default=200)
    for name in ("admin-key", "bearer", "database", "out"):
        parser.add_argument("--" + name, required=True)
    parser.add_argument("--minutes", type=float, required=True)
    parser.add_argument("--interval", type=float, default=10)
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every rate")
    args = parser.parse_args()

    load = Load(args)
    load.setup()
    rates = {"put": 20, "pull": 20, "shopping": 2, "start": 0.2, "notify": 0.5, "churn": 0.5}
    control = Client(args.control_port, {})
    actions = {
        "put": load.put, "pull": load.pull, "shopping": load.shopping, "start": load.start, "notify": load.notify,
        "churn": lambda client: load.churn(client, control),
    }
    threads = []
    for name, rate in rates.items():
        headers = load.user if name in ("pull", "shopping", "churn") else load.admin
        client = Client(args.port, headers)
        threads.append(threading.Thread(target=steady, args=(rate * args.scale, lambda a=actions[name], c=client: a(c)), daemon=True))
    threads += [threading.Thread(target=load.dashboard, args=(STOP,), daemon=True) for _ in range(3)]
    samples = []
    sampler = threading.Thread(target=sample_forever, args=(args, load, samples, args.interval), daemon=True)
    for thread in threads + [sampler]:
        thread.start()
    STOP.wait(args.minutes * 60)
    STOP.set()
    sampler.join(timeout=args.interval + 5)

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "soak.csv"), "w") as csv:
        csv.write(",".join(COLUMNS) + "\n")
        for s in samples:
            csv.write(",".join(f"{s[c]:.2f}" if isinstance(s[c], float) else str(s[c]) for c in COLUMNS) + "\n")
    if samples:
        svg(samples, os.path.join(args.out, "soak.svg"))
    lines, passed = verdict(samples, max(2.0, args.minutes * 0.1), load.sse_events)
    print("\n".join(lines))
    print(f"table: {args.out}/soak.csv, plot: {args.out}/soak.svg")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
