"""The example web client (issue #46) in Debian's headless Chromium against a real `frostbox
serve` with a Web Push app: the page installs its service worker and gets the server's public
key; a push message delivered to the worker through the DevTools protocol
(`ServiceWorker.deliverPushMessage`, as a push service would, decrypted) is shown as a
notification with the alert's title and body.

    python3 -m pytest -q Tests/Browser -k web_push
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "Support"))
from frostbox_server import running_server  # noqa: E402
from status_browser import executable  # noqa: E402

TOKEN = "browser-test-admin-token-web-push"
BINARY = Path(os.environ.get("FROSTBOX_BIN", ROOT / ".build" / "debug" / "frostbox"))
# What the server's Web Push payload is for an alert (WebPushPayload), as the worker receives it.
ALERT = {
    "alert_id": "00000000-0000-4000-8000-000000000001", "body": "Home: down to -3 °C after midnight. Cover the dahlias.",
    "data": {"box": "60.15,24.95", "level": "freeze", "minimum_c": "-3", "night": "2026-11-30"}, "kind": "alert",
    "tag": "frost-60.15,24.95-2026-11-30", "title": "Frost tonight at Home",
}


def test_worker_shows_a_pushed_alert():
    with tempfile.TemporaryDirectory() as keys:
        key = Path(keys) / "vapid.pem"
        made = subprocess.run([str(BINARY), "webpush", "keys", "--out", str(key)], capture_output=True, text=True, check=True)
        public = made.stdout.split("applicationServerKey; also served at GET /v1/web-push/public-key): ")[1].split()[0]
        settings = {"FROSTBOX_WEBPUSH_APPS_EXAMPLE_VAPID_KEY_PATH": str(key), "FROSTBOX_WEBPUSH_APPS_EXAMPLE_SUBJECT": "mailto:frost@example.org"}
        with running_server(TOKEN, settings=settings) as live:
            options = webdriver.ChromeOptions()
            options.binary_location = executable("chromium")
            for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"]:
                options.add_argument(argument)
            driver = webdriver.Chrome(service=Service(executable("chromedriver")), options=options)
            try:
                origin = live["url"]
                driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["notifications"]})
                driver.get(origin + "/web-push")
                WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.body.dataset.worker === 'ready'"))
                served = driver.execute_async_script(
                    "fetch('/v1/web-push/public-key').then(r => r.json()).then(arguments[0])")
                assert served == {"app": "example", "public_key": public}
                shown = lambda d: d.execute_async_script(
                    "navigator.serviceWorker.ready.then(r => r.getNotifications())"
                    ".then(list => arguments[0](list.map(n => [n.title, n.body, n.tag])))")
                # To the page's first (and, in a fresh profile, only) worker registration. A push
                # delivered just as the worker starts is now and then not dispatched (1 run in 5
                # here), so it is delivered again until shown: the same tag, so one notification.
                driver.execute_cdp_cmd("ServiceWorker.enable", {})
                for _ in range(6):
                    driver.execute_cdp_cmd(
                        "ServiceWorker.deliverPushMessage", {"origin": origin, "registrationId": "0", "data": json.dumps(ALERT)})
                    try:
                        WebDriverWait(driver, 5).until(lambda d: shown(d))
                        break
                    except TimeoutException:
                        continue
                assert shown(driver) == [[ALERT["title"], ALERT["body"], ALERT["tag"]]]
            finally:
                driver.quit()
