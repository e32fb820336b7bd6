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
import sys
import urllib.parse

import chromium
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# How long the sign-in and the page may take.
WAIT = 30


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base_url")
    parser.add_argument("admin_key")
    parser.add_argument("context_key")
    parser.add_argument("artifacts")
    chromium.add_arguments(parser)
    arguments = parser.parse_args()
    driver = None
    try:
        driver = chromium.start(arguments, arguments.artifacts, "chromedriver-card.log")
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
