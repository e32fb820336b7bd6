"""The dashboard behind nginx with TLS, in a real browser: Debian's headless chromium driven by
PyPI selenium through chromium-driver. An independent peer: it knows the dashboard only by its
pages and the `/v1` API, and reaches both only through the proxy.

    .venv/bin/python reverse_proxy.py SIGN_IN_LINK CERTIFICATE SPKI ADMIN_KEY ARTIFACTS --trip KEY [--http1]

SIGN_IN_LINK is the one-time link the server made (its origin is the proxy's https address),
CERTIFICATE the proxy's self-signed certificate (PEM; the script's own requests trust it and
nothing else), SPKI the base64 SHA-256 of its public key (chromium trusts that key and no other
certificate error), ADMIN_KEY the server's admin key, ARTIFACTS the folder for the driver's log and
a screenshot on failure. --trip names a TripLiveActivityAttributes context whose page the script
opens before it changes the context with `PUT /v1/contexts/{key}`. The browser speaks HTTP/2 to
the proxy, as browsers do where it is offered, or with --http1 HTTP/1.1 (chromium's
--disable-http2: a browser whose way to the proxy has no HTTP/2). Prints one line per check
passed; on the first failure, says what failed on standard error and exits 1. Run by
ReverseProxyBrowserTests (issue 42).
"""
import argparse
import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import chromium
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# What the dashboard's pages say (Sources/LivelineDashboard).
SESSION_COOKIE = "liveline_session"
# How long a page may take to come.
WAIT = 15
# How long a change may take to reach the open page: the activity's stream renders it again each
# second (Sources/LivelineDashboard/Pages/Dashboard+Overview.swift); an event that nginx buffers
# waits until more events fill its buffer, and this page sends one only when it changes.
LIVE_WAIT = 15
MARKER = "set before the PUT"


class Failure(Exception):
    pass


def ok(text):
    print(f"ok: {text}", flush=True)


def check(condition, text):
    if not condition:
        raise Failure(text)


class Proxied:
    def __init__(self, arguments):
        link = urllib.parse.urlsplit(arguments.link)
        check(link.scheme == "https", f"the sign-in link is not https: {arguments.link}")
        self.base = f"{link.scheme}://{link.netloc}"
        self.link = arguments.link
        self.key = arguments.key
        self.tls = ssl.create_default_context(cafile=arguments.certificate)
        # What Navigation Timing's nextHopProtocol names the protocol.
        self.expected_protocol = "http/1.1" if arguments.http1 else "h2"
        extra = [f"--ignore-certificate-errors-spki-list={arguments.spki}"] + (["--disable-http2"] if arguments.http1 else [])
        log = "chromedriver-proxy-http1.log" if arguments.http1 else "chromedriver-proxy-h2.log"
        self.driver = chromium.start(arguments, arguments.artifacts, log, extra=extra)

    def api(self, method, path, body=None):
        """A `/v1` request with the admin key through the proxy, trusting its certificate only."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.key}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=WAIT, context=self.tls) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def wait(self, condition, what, timeout=WAIT):
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05, ignored_exceptions=[StaleElementReferenceException]).until(
                condition)
        except TimeoutException:
            raise Failure(f"{what}: not within {timeout} s; the page ({self.driver.current_url}) shows:\n{self.text()[:3000]}")

    def text(self, selector="body"):
        try:
            return self.driver.find_element(By.CSS_SELECTOR, selector).text
        except (StaleElementReferenceException, WebDriverException):
            return ""

    def protocol(self):
        """The protocol the page's own load went over (Navigation Timing's nextHopProtocol)."""
        return self.driver.execute_script("return performance.getEntriesByType('navigation')[0].nextHopProtocol")


def sign_in(page):
    """The one-time link the server printed, opened and its button pressed: a Secure session."""
    page.driver.get(page.link)
    page.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "form input[name=once]"), "the one-time link's sign-in page")
    check(page.driver.get_cookie(SESSION_COOKIE) is None, "a session cookie before signing in")
    check(page.driver.execute_script("return window.isSecureContext"), "the sign-in page is not a secure context")
    check(page.protocol() == page.expected_protocol, f"the sign-in page came over {page.protocol()!r}, not {page.expected_protocol}")
    ok(f"the one-time link opens the sign-in page over HTTPS ({page.protocol()}) at {page.base}")
    page.driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    page.wait(lambda d: urllib.parse.urlsplit(d.current_url).path == "/dashboard" and page.text("h1") == "Overview",
              "the one-time link's button leads to the overview")
    check(page.driver.current_url.startswith(page.base + "/"), f"the overview left the proxy: {page.driver.current_url}")
    session = page.driver.get_cookie(SESSION_COOKIE)
    check(session is not None, "no session cookie after signing in")
    check(session.get("secure") is True, f"the session cookie is not Secure: {session}")
    check(session.get("httpOnly") is True, f"the session cookie is not HttpOnly: {session}")
    ok(f"signed in through the one-time link: the session cookie is Secure and HttpOnly (path {session.get('path')})")


def card(page, name):
    return page.text(f"[data-card='{name}']")


def follows_a_change(page, key):
    """The activity's open page shows a change made through `/v1` within LIVE_WAIT seconds,
    without a reload: its event stream came through the proxy as it was sent."""
    status, before = page.api("GET", "/v1/contexts/" + urllib.parse.quote(key, safe=":"))
    check(status == 200, f"GET /v1/contexts/{key} through the proxy answered {status}: {before}")
    state, rev = before["contentState"], before["rev"]
    page.driver.get(page.base + "/dashboard/activities/" + urllib.parse.quote(key, safe=""))
    page.wait(lambda d: page.text("h1") == key and state["currentStop"] in card(page, "expanded"),
              f"the page of {key} shows {state['currentStop']}")
    page.wait(lambda d: d.find_element(By.ID, "live").get_attribute("data-updated"),
              f"the page of {key}: its stream's first event (dashboard.js marks #live data-updated)", timeout=LIVE_WAIT)
    ok(f"the page of {key} shows {state['currentStop']!r}, and its stream's first event arrived through the proxy")

    page.driver.execute_script(f"window.livelineMarker = '{MARKER}';")
    new_stop = "Paradeplatz"
    changed = dict(state, currentStop=new_stop)
    status, body = page.api("PUT", "/v1/contexts/" + urllib.parse.quote(key, safe=":"),
                            {"type": before["type"], "attributes": before["attributes"], "contentState": changed})
    check(status == 200 and body.get("rev") == rev + 1, f"PUT /v1/contexts/{key} through the proxy answered {status}: {body}")
    started = time.monotonic()
    page.wait(lambda d: new_stop in card(page, "expanded"), f"the open page's card shows {new_stop} (rev {rev + 1})", timeout=LIVE_WAIT)
    seconds = time.monotonic() - started
    check(page.driver.execute_script("return window.livelineMarker") == MARKER, "the page was reloaded (the marker set before the PUT is gone)")
    ok(f"PUT /v1/contexts/{key} (rev {rev + 1}) through the proxy: the open page's card shows {new_stop!r} "
       f"{seconds:.1f} s later, without a reload")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("link")
    parser.add_argument("certificate")
    parser.add_argument("spki")
    parser.add_argument("key")
    parser.add_argument("artifacts")
    parser.add_argument("--trip", required=True)
    parser.add_argument("--http1", action="store_true")
    chromium.add_arguments(parser)
    arguments = parser.parse_args()
    os.makedirs(arguments.artifacts, exist_ok=True)
    failure_shot = os.path.join(arguments.artifacts, f"proxy-failure-{'http1' if arguments.http1 else 'h2'}.png")
    if os.path.exists(failure_shot):
        os.remove(failure_shot)
    started = time.monotonic()
    page = None
    try:
        page = Proxied(arguments)
        sign_in(page)
        follows_a_change(page, arguments.trip)
    except Failure as failure:
        if page is not None:
            try:
                page.driver.save_screenshot(failure_shot)
            except WebDriverException:
                pass
        print(f"FAIL: {failure}", file=sys.stderr, flush=True)
        return 1
    except WebDriverException as error:
        print(f"FAIL: the browser: {error}", file=sys.stderr, flush=True)
        return 1
    finally:
        if page is not None:
            page.driver.quit()
    ok(f"every check passed in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
