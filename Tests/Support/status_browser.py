"""Debian's headless Chromium, driven by Selenium through Debian's chromedriver, logged in to
a running server's status page (the admin token as Basic password on every request), for the
suites in Tests/Browser.
"""
import base64
import contextlib
import shutil

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait


def executable(name):
    path = shutil.which(name)
    if not path:
        pytest.fail(f"{name} is not installed (apt-get install chromium chromium-driver)")
    return path


@contextlib.contextmanager
def status_page(url, token):
    """Opens `url`/status once the page says it is ready (its first loads done); yields the driver."""
    options = webdriver.ChromeOptions()
    options.binary_location = executable("chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1300", "--force-device-scale-factor=1", "--disable-gpu"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable("chromedriver")), options=options)
    try:
        # The browser logs in with HTTP Basic, the token as password, on every request it makes.
        credentials = base64.b64encode(f"operator:{token}".encode()).decode()
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Authorization": f"Basic {credentials}"}})
        driver.get(url + "/status")
        WebDriverWait(driver, 60).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))
        yield driver
    finally:
        driver.quit()
