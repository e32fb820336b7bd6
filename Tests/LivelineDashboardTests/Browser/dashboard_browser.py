"""The dashboard in a real browser: Debian's headless chromium driven by PyPI selenium through
chromium-driver, with axe-core (the copy shipped in PyPI axe-playwright-python) for the
accessibility check. An independent peer: it knows the dashboard only by its pages and the
`/v1` API.

    .venv/bin/python dashboard_browser.py BASE_URL ADMIN_KEY ARTIFACTS --trip KEY [--listed KEY]... [--contract TYPE]...

BASE_URL is the server (http://127.0.0.1:PORT), ADMIN_KEY its admin key, ARTIFACTS the folder the
screenshots go to; --trip names a TripLiveActivityAttributes context the script opens and changes
with `PUT /v1/contexts/{key}`, --listed the other activities the overview must list, --contract the
contract types whose devices the contracts page must count by version. Prints one
line per check passed; on the first failure, says what failed on standard error and exits 1.
Run by DashboardBrowserTests (issue 21).
"""
import argparse
import base64
import importlib.util
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import chromium
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

# What the dashboard's pages say (Sources/LivelineDashboard).
SESSION_COOKIE = "liveline_session"
WRONG_KEY_TEXT = "That is not the admin key."
FORM_REFUSED_TITLE = "Form refused"
# The accessibility rules: every rule axe-core tags WCAG 2.0 level A or AA (labels, names,
# contrast, structure; its experimental ones too, such as td-has-header and p-as-heading), and its
# heading rules, which it files under best practices.
AXE_TAGS = ["wcag2a", "wcag2aa"]
AXE_HEADING_RULES = ["page-has-heading-one", "empty-heading", "heading-order"]
# How long a page, a live update or an axe run may take.
WAIT = 15


class Failure(Exception):
    pass


def ok(text):
    print(f"ok: {text}", flush=True)


def check(condition, text):
    if not condition:
        raise Failure(text)


class Dashboard:
    def __init__(self, base, key, artifacts, arguments):
        self.base = base.rstrip("/")
        self.key = key
        self.artifacts = artifacts
        self.rules = set()
        self.driver = chromium.start(arguments, artifacts, "chromedriver.log", extra=["--hide-scrollbars"])
        self.driver.set_script_timeout(WAIT * 2)
        self.axe_source = open(axe_path(), encoding="utf-8").read()

    def quit(self):
        self.driver.quit()

    # The /v1 API, with the admin key (urllib: no browser, no cookie).

    def api(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.key}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=WAIT) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def context(self, key):
        status, body = self.api("GET", "/v1/contexts/" + urllib.parse.quote(key, safe=":"))
        check(status == 200, f"GET /v1/contexts/{key} answered {status}: {body}")
        return body

    # The browser.

    def open(self, path):
        self.driver.get(self.base + path)

    def wait(self, condition, what, timeout=WAIT):
        """Waits until `condition(driver)` is truthy (a live update replaces the main part: an
        element found a moment ago may be gone)."""
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException]).until(
                condition
            )
        except TimeoutException:
            raise Failure(f"{what}: not within {timeout} s; the page ({self.driver.current_url}) shows:\n{self.text()[:3000]}")

    def click(self, xpath, what):
        """Finds the element and clicks it, again if a live update replaced it in between."""

        def found_and_clicked(driver):
            driver.find_element(By.XPATH, xpath).click()
            return True

        self.wait(found_and_clicked, what)

    def text(self, selector="body"):
        """The element's text; "" when there is none. A live update that replaces the element
        between finding and reading it (stale) is read again in the new one."""
        for _ in range(50):
            try:
                return self.driver.find_element(By.CSS_SELECTOR, selector).text
            except StaleElementReferenceException:
                time.sleep(0.05)
            except WebDriverException:
                return ""
        return ""

    def heading(self):
        return self.text("h1")

    def status(self):
        """The HTTP status of the page's own load (Navigation Timing's responseStatus)."""
        return self.driver.execute_script("return performance.getEntriesByType('navigation')[0].responseStatus")

    def cookie(self, name):
        return self.driver.get_cookie(name)

    def wait_live(self, what):
        """The page's stream delivered its first event (dashboard.js marks #live data-updated)."""
        self.wait(lambda d: d.find_element(By.ID, "live").get_attribute("data-updated"), f"{what}: no live update arrived")

    def screenshot(self, name):
        """The whole page at the window's width (1200 px), not just what the window shows."""
        metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
        size = metrics["cssContentSize"]
        width, height = int(metrics["cssLayoutViewport"]["clientWidth"]), min(int(size["height"]), 6000)
        shot = self.driver.execute_cdp_cmd(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True, "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}},
        )
        path = os.path.join(self.artifacts, f"{name}.png")
        with open(path, "wb") as file:
            file.write(base64.b64decode(shot["data"]))
        ok(f"screenshot {path} ({width}×{height})")

    def axe(self, name, reload_without_stream=False, prepare=None):
        """Runs axe-core on the page; any violation fails with its rule, targets and help. A page
        that follows a stream is loaded again with the stream blocked (axe must not read a main
        part that a live update replaces under it); `prepare`, a script, runs on it before axe
        (to open what is closed)."""
        if reload_without_stream:
            self.driver.execute_cdp_cmd("Network.enable", {})
            self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/dashboard/events*"]})
            try:
                self.driver.refresh()
                self.wait(lambda d: d.execute_script("return document.readyState") == "complete", f"{name}: reload")
                if prepare:
                    self.driver.execute_script(prepare)
                result = self.run_axe()
                check(not self.driver.find_element(By.ID, "live").get_attribute("data-updated"),
                      f"{name}: a live update arrived although its stream was blocked")
            finally:
                self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        else:
            if prepare:
                self.driver.execute_script(prepare)
            result = self.run_axe()
        check("error" not in result, f"axe-core failed on {name}: {result.get('error')}")
        self.rules.update(result["ran"])
        problems = []
        for violation in result["violations"]:
            targets = "; ".join(" ".join(node["target"]) for node in violation["nodes"][:5])
            problems.append(f"  {violation['id']} ({violation['impact']}): {violation['help']} — {targets}\n"
                            f"    {violation['helpUrl']}")
        check(not problems, f"axe-core found accessibility violations on {name}:\n" + "\n".join(problems))
        review = f" ({len(result['incomplete'])} for a person to review: {', '.join(result['incomplete'])})" if result["incomplete"] else ""
        ok(f"axe-core {result['version']}: {name} passes {len(result['passes'])} rules, no violations{review}")

    def run_axe(self):
        self.driver.execute_script(self.axe_source)
        return self.driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            const rules = axe.getRules(arguments[0]).map(r => r.ruleId).concat(arguments[1]);
            axe.run(document, {runOnly: {type: 'rule', values: rules}, resultTypes: ['violations']})
              .then(r => done({
                version: axe.version,
                violations: r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl,
                                                    nodes: v.nodes.map(n => ({target: n.target.map(String)}))})),
                passes: r.passes.map(p => p.id), incomplete: r.incomplete.map(i => i.id),
                ran: [].concat(r.passes, r.violations, r.incomplete).map(x => x.id)}))
              .catch(e => done({error: String(e)}));
            """,
            AXE_TAGS,
            AXE_HEADING_RULES,
        )


def axe_path():
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or not spec.submodule_search_locations:
        raise Failure("axe-playwright-python is not in the virtualenv: run scripts/test-venv.sh")
    path = os.path.join(list(spec.submodule_search_locations)[0], "axe.min.js")
    if not os.path.isfile(path):
        raise Failure(f"{path} is missing: run scripts/test-venv.sh")
    return path


def sign_in_checks(page):
    # The sign-in page, before anyone signed in, from the address `liveline serve` prints.
    page.open("/dashboard/")
    page.wait(lambda d: d.current_url.endswith("/dashboard/sign-in"), "without a session, /dashboard/ leads to the sign-in page")
    check(page.cookie(SESSION_COOKIE) is None, "a session cookie before signing in")
    ok("without a session, /dashboard/ leads to the sign-in page")
    page.screenshot("sign-in")
    page.axe("the sign-in page")

    # A form without its CSRF token: refused, and nobody signed in.
    page.driver.find_element(By.ID, "key").send_keys(page.key)
    page.driver.execute_script("document.querySelector('input[name=csrf]').remove(); document.querySelector('form').submit();")
    page.wait(lambda d: "did not come from this page" in page.text(".message"), "the sign-in form without its CSRF token is refused")
    check(page.status() == 403, f"the sign-in form without its CSRF token answered {page.status()}, not 403")
    check(page.cookie(SESSION_COOKIE) is None, "the sign-in form without its CSRF token set a session cookie")
    ok("the sign-in form without its CSRF token is refused (403, no session), even with the right key")

    # A wrong key: refused, and no session cookie.
    page.open("/dashboard/sign-in")
    field = page.driver.find_element(By.ID, "key")
    field.send_keys("not-the-admin-key")
    field.submit()
    page.wait(lambda d: WRONG_KEY_TEXT in page.text(".message"), "a wrong key is refused")
    check(page.status() == 401, f"a wrong key answered {page.status()}, not 401")
    check(page.cookie(SESSION_COOKIE) is None, "a wrong key set a session cookie")
    ok(f"a wrong key is refused (401, \"{WRONG_KEY_TEXT}\", no session cookie)")
    page.axe("the sign-in page with its error")

    # The admin key, through the form.
    field = page.driver.find_element(By.ID, "key")
    field.send_keys(page.key)
    page.driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    page.wait(lambda d: d.current_url.endswith("/dashboard") and page.heading() == "Overview",
              "signing in with the admin key leads to the overview")
    session = page.cookie(SESSION_COOKIE)
    check(session is not None and session.get("httpOnly"), f"no HttpOnly session cookie after signing in: {session}")
    ok("signed in with the admin key through the form (an HttpOnly session cookie)")


def overview_checks(page, keys):
    page.wait_live("the overview")
    for key in keys:
        page.wait(
            lambda d: d.find_elements(By.XPATH, f"//section[@aria-labelledby='h-list']//a[normalize-space()='{key}']"),
            f"the overview lists {key}")
    ok(f"the overview lists the activities {', '.join(keys)}")
    page.screenshot("overview")
    page.axe("the overview", reload_without_stream=True)


def card(page, name):
    return page.text(f"[data-card='{name}']")


def timeline_rows(page, what, rev, accepted=False):
    """The timeline's rows of `what` (revision, delivery) for `rev`; with `accepted`, only those
    with APNs' 200."""
    condition = f"td[normalize-space()='{what}'] and td[normalize-space()='rev {rev}']"
    if accepted:
        condition += " and .//span[@class='status-ok' and text()='200']"
    return page.driver.find_elements(By.XPATH, f"//section[@aria-labelledby='h-timeline']//tr[{condition}]")


MARKER = "set before the PUT"


def not_reloaded(page):
    return page.driver.execute_script("return window.livelineMarker") == MARKER


def activity_checks(page, key):
    page.open("/dashboard")
    page.click(f"//section[@aria-labelledby='h-list']//a[normalize-space()='{key}']", f"the overview's link to {key}")
    page.wait(lambda d: page.heading() == key, f"the overview's link opens the page of {key}")
    before = page.context(key)
    state, attributes, rev = before["contentState"], before["attributes"], before["rev"]
    lock, compact, expanded = card(page, "lock-screen"), card(page, "compact"), card(page, "expanded")
    check(attributes["destination"] in lock and attributes["line"] in lock,
          f"the lock screen shows no {attributes['line']} → {attributes['destination']}: {lock!r}")
    check(attributes["line"] in compact, f"the compact Island shows no {attributes['line']}: {compact!r}")
    check(state["currentStop"] in expanded, f"the expanded Island shows no {state['currentStop']}: {expanded!r}")
    ok(f"the page of {key} shows its card: lock screen {lock.splitlines()[0]!r}, compact {compact!r}, "
       f"expanded {expanded.splitlines()[0]!r}")
    check(timeline_rows(page, "revision", rev), f"the timeline has no rev {rev}")
    page.wait_live(f"the page of {key}")

    # A change through /v1, sent from here: the open page follows it, without a reload (a marker
    # set on the window now would be gone after one).
    page.driver.execute_script(f"window.livelineMarker = '{MARKER}';")
    new_stop, new_delay = "Paradeplatz", int(state.get("delay", 0)) + 4
    changed = dict(state, currentStop=new_stop, delay=new_delay)
    status, body = page.api("PUT", "/v1/contexts/" + urllib.parse.quote(key, safe=":"),
                            {"type": before["type"], "attributes": attributes, "contentState": changed})
    check(status == 200 and body.get("rev") == rev + 1, f"PUT /v1/contexts/{key} answered {status}: {body}")
    started = time.monotonic()
    page.wait(lambda d: new_stop in card(page, "expanded") and f"+{new_delay} min" in card(page, "lock-screen"),
              f"the open page's card shows {new_stop}, +{new_delay} min")
    page.wait(lambda d: timeline_rows(page, "revision", rev + 1), f"the open page's timeline shows rev {rev + 1}")
    seconds = time.monotonic() - started
    check(not_reloaded(page), "the page was reloaded (the marker set before the PUT is gone)")
    ok(f"PUT /v1/contexts/{key} (rev {rev + 1}): the open page's card ({new_stop}, +{new_delay} min) and timeline "
       f"changed in {seconds:.1f} s without a reload")
    # The phone's push of it, accepted by the in-process APNs sandbox, shows in the timeline too.
    page.wait(lambda d: timeline_rows(page, "delivery", rev + 1, accepted=True),
              f"the timeline shows the delivery of rev {rev + 1} with 200")
    check(not_reloaded(page), "the page was reloaded (the marker set before the PUT is gone)")
    ok(f"the timeline shows the push of rev {rev + 1} accepted (200), without a reload")
    page.screenshot("activity")
    page.axe(f"the page of {key}", reload_without_stream=True)

    # A form posted without its CSRF token: refused, nothing changed.
    page.driver.execute_script(
        "const form = document.querySelector('form[action$=\"/resend\"]');"
        "form.querySelector('input[name=csrf]').remove(); form.submit();")
    page.wait(lambda d: page.heading() == FORM_REFUSED_TITLE, "the resend form without its CSRF token is refused")
    check(page.status() == 403, f"the resend form without its CSRF token answered {page.status()}, not 403")
    after = page.context(key)["rev"]
    check(after == rev + 1, f"the refused form changed the context: rev {after}, not {rev + 1}")
    ok(f"the resend form without its CSRF token is refused (403, \"{FORM_REFUSED_TITLE}\"), rev still {after}")
    page.axe("the page of a refused form")


def contracts_checks(page, types):
    """The contracts page lists every contract `GET /v1/contracts` names, with its fingerprint;
    for each of `types`, each version installed on devices (`GET /v1/contracts/{type}`) shows
    their count, and devices whose app did not say count as "version not told"."""
    page.open("/dashboard/contracts")
    page.wait(lambda d: page.heading() == "Contracts", "the contracts page")
    status, listed = page.api("GET", "/v1/contracts")
    check(status == 200, f"GET /v1/contracts answered {status}: {listed}")
    for entry in listed["contracts"]:
        section = f"//section[h2[normalize-space()='{entry['type']}']]"
        page.wait(lambda d: d.find_elements(By.XPATH, f"{section}//dd/code[text()='{entry['fingerprint']}']"),
                  f"the contracts page shows {entry['type']} with its fingerprint {entry['fingerprint']}")
    ok(f"the contracts page lists the {len(listed['contracts'])} contracts of GET /v1/contracts with their fingerprints")
    for name in types:
        status, described = page.api("GET", "/v1/contracts/" + name)
        check(status == 200, f"GET /v1/contracts/{name} answered {status}: {described}")
        check(described["installed"], f"no device has {name}: the test registers some")
        for installed in described["installed"]:
            label = "version not told" if installed["version"] is None else str(installed["version"])
            cell = f"//section[h2[normalize-space()='{name}']]//tbody/tr[th[normalize-space()='{label}']]/td[last()]"
            page.wait(lambda d: [c for c in d.find_elements(By.XPATH, cell) if c.text == str(installed["devices"])],
                      f"the contracts page shows {installed['devices']} device(s) for {name} {label}")
        counts = ", ".join(f"{i['devices']} × {'not told' if i['version'] is None else 'version ' + str(i['version'])}"
                           for i in described["installed"])
        ok(f"the contracts page shows the devices of {name} by version: {counts}")
    page.wait_live("the contracts page")
    page.click(f"//summary[normalize-space()='Keys of {types[0]}']" if types else "//summary", "the keys of a contract")
    page.wait(lambda d: d.find_elements(By.XPATH, "//details[@open]//caption[normalize-space()='Content state (sent with every event)']"),
              "the keys open")
    ok("the contracts page opens a contract's keys")
    page.screenshot("contracts")
    page.axe("the contracts page with every contract's keys open", reload_without_stream=True,
             prepare="document.querySelectorAll('details').forEach(d => d.open = true);")


def other_pages(page, contracts):
    page.open("/dashboard/devices")
    page.wait(lambda d: page.heading() == "Devices and tokens", "the devices page")
    page.wait(lambda d: d.find_elements(By.XPATH, "//td/code[contains(text(), '…')]"), "the devices page lists the tokens by prefix")
    page.wait_live("the devices page")
    ok("the devices page lists the registered tokens by prefix")
    page.screenshot("devices")
    page.axe("the devices page", reload_without_stream=True)

    contracts_checks(page, contracts)

    page.open("/dashboard/check")
    page.wait(lambda d: page.heading() == "Payload check", "the payload check page")
    payload = {"aps": {"timestamp": int(time.time()), "event": "update", "content-state": {"currentStop": "Hauptbahnhof", "delay": 2}}}
    page.driver.find_element(By.ID, "payload").send_keys(json.dumps(payload, indent=2))
    Select(page.driver.find_element(By.ID, "contract")).select_by_value("TripLiveActivityAttributes")
    page.driver.find_element(By.XPATH, "//button[normalize-space()='Check']").click()
    page.wait(lambda d: "rejected" in page.text("[data-report]"), "the payload check reports a payload lacking required fields")
    ok("the payload check reports a payload that lacks required fields: " + page.text("[data-report]").splitlines()[0])
    page.screenshot("check")
    page.axe("the payload check with a report")

    page.open("/dashboard/feeds")
    page.wait(lambda d: page.heading() == "Feeds" and "Static feed (GTFS)" in page.text("main"), "the feeds page shows the static feed")
    page.wait_live("the feeds page")
    ok("the feeds page shows the loaded feed")
    page.screenshot("feeds")
    page.axe("the feeds page", reload_without_stream=True)

    page.click("//button[normalize-space()='Sign out']", "the sign-out button")
    page.wait(lambda d: d.current_url.endswith("/dashboard/sign-in"), "signing out leads to the sign-in page")
    check(page.cookie(SESSION_COOKIE) is None, "the session cookie is still there after signing out")
    ok("signed out: the session cookie is gone")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("key")
    parser.add_argument("artifacts")
    parser.add_argument("--trip", required=True)
    parser.add_argument("--listed", action="append", default=[])
    parser.add_argument("--contract", action="append", default=[])
    chromium.add_arguments(parser)
    arguments = parser.parse_args()
    os.makedirs(arguments.artifacts, exist_ok=True)
    failure_shot = os.path.join(arguments.artifacts, "failure.png")
    if os.path.exists(failure_shot):
        os.remove(failure_shot)
    started = time.monotonic()
    page = None
    try:
        page = Dashboard(arguments.base, arguments.key, arguments.artifacts, arguments)
        sign_in_checks(page)
        overview_checks(page, [arguments.trip] + arguments.listed)
        activity_checks(page, arguments.trip)
        other_pages(page, arguments.contract)
        ok(f"axe-core applied {len(page.rules)} rules ({'+'.join(AXE_TAGS)}, {', '.join(AXE_HEADING_RULES)}) to the pages: "
           + ", ".join(sorted(page.rules)))
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
            page.quit()
    ok(f"every check passed in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
