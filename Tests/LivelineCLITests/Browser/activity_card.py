"""One activity's card on the dashboard of a running `liveline serve`, in a real browser: Debian's
headless chromium driven by PyPI selenium through chromium-driver. An independent peer: it knows
the dashboard only by its pages.

    .venv/bin/python activity_card.py BASE_URL ADMIN_KEY CONTEXT_KEY ARTIFACTS

It signs in with the admin key through the sign-in form, opens the activity's page, waits for its
card and prints one JSON line: the lock screen, the compact and the expanded view as the page
shows them (CustomActivityEndToEndTests judges them), and saves a screenshot (activity-card.png)
in ARTIFACTS. Exits 1, saying why on standard error, when a page does not come.
"""
import argparse
import json
import os
import shutil
import sys
import urllib.parse

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as error:
    sys.exit(f"FAIL: selenium is not in the virtualenv ({error}): run scripts/test-venv.sh")

# How long the sign-in and the page may take.
WAIT = 30


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base_url")
    parser.add_argument("admin_key")
    parser.add_argument("context_key")
    parser.add_argument("artifacts")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    arguments = parser.parse_args()
    for tool, package in [(arguments.chromium, "chromium"), (arguments.chromedriver, "chromium-driver")]:
        if not shutil.which(tool):
            sys.exit(f"FAIL: {tool} is missing: run scripts/install-deps.sh (installs {package})")
    os.makedirs(arguments.artifacts, exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = arguments.chromium
    for argument in ["--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900", "--lang=en-US"]:
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # chromium refuses to run as root with its sandbox
    service = Service(
        executable_path=arguments.chromedriver, service_args=["--log-level=WARNING"],
        log_output=os.path.join(arguments.artifacts, "chromedriver-card.log"))
    driver = None
    try:
        driver = webdriver.Chrome(options=options, service=service)
        wait = WebDriverWait(driver, WAIT, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException])
        driver.get(arguments.base_url + "/dashboard/sign-in")
        field = wait.until(lambda d: d.find_element(By.ID, "key"))
        field.send_keys(arguments.admin_key)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait.until(lambda d: d.current_url.endswith("/dashboard"))
        driver.get(arguments.base_url + "/dashboard/activities/" + urllib.parse.quote(arguments.context_key, safe=""))

        def card(d):
            views = {name: d.find_element(By.CSS_SELECTOR, f"[data-card='{name}']").text for name in ["lock-screen", "compact", "expanded"]}
            return views if views["lock-screen"] else None

        views = wait.until(card)
        driver.save_screenshot(os.path.join(arguments.artifacts, "activity-card.png"))
        print(json.dumps({"url": driver.current_url, **views}), flush=True)
        return 0
    except TimeoutException:
        page = driver.find_element(By.TAG_NAME, "body").text[:3000] if driver else ""
        print(f"FAIL: no card within {WAIT} s; the page ({driver.current_url}) shows:\n{page}", file=sys.stderr, flush=True)
        return 1
    except WebDriverException as error:
        print(f"FAIL: the browser: {error}", file=sys.stderr, flush=True)
        return 1
    finally:
        if driver is not None:
            driver.quit()


if __name__ == "__main__":
    sys.exit(main())
