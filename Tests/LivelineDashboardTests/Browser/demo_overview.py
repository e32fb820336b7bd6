"""The overview of a running `liveline demo` in a real browser: Debian's headless chromium driven
by PyPI selenium through chromium-driver. An independent peer: it knows the dashboard only by its
pages.

    .venv/bin/python demo_overview.py SIGN_IN_LINK ARTIFACTS

SIGN_IN_LINK is the one-time link the demo printed, ARTIFACTS the folder the screenshot goes to
(demo-overview.png). The script opens the link, signs in with its button, waits for the
overview's "Pushes of the last hour" and prints one JSON line: that panel's summary and its line
on broadcast channels (channel management, not pushes; "" when it has none). The test that runs
it (DemoOverviewBrowserTests) judges them. Exits 1, saying why on standard error, when a page
does not come.
"""
import argparse
import json
import os
import sys

import chromium
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# How long the sign-in and the overview may take.
WAIT = 30


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("link")
    parser.add_argument("artifacts")
    chromium.add_arguments(parser)
    arguments = parser.parse_args()
    driver = None
    try:
        driver = chromium.start(arguments, arguments.artifacts, "chromedriver-demo.log")
        wait = WebDriverWait(driver, WAIT, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException])
        driver.get(arguments.link)
        wait.until(lambda d: d.find_element(By.XPATH, "//button[@type='submit']")).click()

        def panel(d):
            # The overview is live: a read that meets its main part being replaced is tried again.
            summary = d.find_element(By.ID, "push-summary").text
            channels = [element.text for element in d.find_elements(By.ID, "channel-management")]
            return (summary, channels[0] if channels else "") if summary else None

        summary, channels = wait.until(panel)
        driver.execute_script("document.getElementById('h-pushes').scrollIntoView()")
        driver.save_screenshot(os.path.join(arguments.artifacts, "demo-overview.png"))
        print(json.dumps({"url": driver.current_url, "summary": summary, "channels": channels}), flush=True)
        return 0
    except TimeoutException:
        page = driver.find_element(By.TAG_NAME, "body").text[:3000] if driver else ""
        print(f"FAIL: no overview with its pushes within {WAIT} s; the page ({driver.current_url}) shows:\n{page}", file=sys.stderr, flush=True)
        return 1
    except WebDriverException as error:
        print(f"FAIL: the browser: {error}", file=sys.stderr, flush=True)
        return 1
    finally:
        if driver is not None:
            driver.quit()


if __name__ == "__main__":
    sys.exit(main())
