"""Headless chromium for the dashboard's browser scripts beside this file: Debian's chromium driven
by PyPI selenium through chromium-driver, the same way for each (`import chromium`)."""
import os
import shutil
import sys

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError as error:
    sys.exit(f"FAIL: selenium is not in the virtualenv ({error}): run scripts/test-venv.sh")


def add_arguments(parser):
    """The options every script takes: where chromium and its driver are."""
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--chromedriver", default="/usr/bin/chromedriver")


def start(arguments, artifacts, log_name, extra=()):
    """A headless chromium (1200×900, English) with its driver's log in ARTIFACTS/LOG_NAME; exits
    saying which package to install when a tool is missing."""
    for tool, package in [(arguments.chromium, "chromium"), (arguments.chromedriver, "chromium-driver")]:
        if not shutil.which(tool):
            sys.exit(f"FAIL: {tool} is missing: run scripts/install-deps.sh (installs {package})")
    os.makedirs(artifacts, exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = arguments.chromium
    for argument in ["--headless=new", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900", "--lang=en-US", *extra]:
        options.add_argument(argument)
    if os.geteuid() == 0:
        options.add_argument("--no-sandbox")  # chromium refuses to run as root with its sandbox
    service = Service(
        executable_path=arguments.chromedriver, service_args=["--log-level=WARNING"], log_output=os.path.join(artifacts, log_name))
    return webdriver.Chrome(options=options, service=service)
