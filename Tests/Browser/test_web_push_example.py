"""The example web client (issue #46) in Debian's headless Chromium against a real `frostbox
serve` with a Web Push app: the page installs its service worker and gets the server's public
key; a push message delivered to the worker through the DevTools protocol
(`ServiceWorker.deliverPushMessage`, as a push service would, decrypted) is shown as a
notification with the alert's title and body. And the page's own flow: "Turn on frost alerts"
asks for permission, subscribes with the server's key, registers the browser and adds the place
(headless Chromium has no push service offline, so `pushManager.subscribe` is answered by a
stand-in subscription at a private push service the server is configured to allow).

    python3 -m pytest -q Tests/Browser -k web_push
"""
import json
import os
import subprocess
import sys
import tempfile
from contextlib import contextmanager
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


# The RFC 8291 test vector's browser keys: a valid P-256 point and a 16-byte secret.
P256DH = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
AUTH = "BTBZMqHH6r4Tts7J_aSIgg"
# A self-hosted push service the server allows (webpush.private_push_services); nothing listens there.
PUSH_SERVICE = "https://127.0.0.1:9"


@contextmanager
def example_page(extra_settings=None):
    """A server with one Web Push app ("example"), and Chromium with notifications granted.
    Yields (driver, origin, public key)."""
    with tempfile.TemporaryDirectory() as keys:
        key = Path(keys) / "vapid.pem"
        made = subprocess.run([str(BINARY), "webpush", "keys", "--out", str(key)], capture_output=True, text=True, check=True)
        public = made.stdout.split("applicationServerKey; also served at GET /v1/web-push/public-key): ")[1].split()[0]
        settings = {"FROSTBOX_WEBPUSH_APPS_EXAMPLE_VAPID_KEY_PATH": str(key), "FROSTBOX_WEBPUSH_APPS_EXAMPLE_SUBJECT": "mailto:frost@example.org"}
        settings.update(extra_settings or {})
        with running_server(TOKEN, settings=settings) as live:
            options = webdriver.ChromeOptions()
            options.binary_location = executable("chromium")
            for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"]:
                options.add_argument(argument)
            driver = webdriver.Chrome(service=Service(executable("chromedriver")), options=options)
            try:
                origin = live["url"]
                driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": origin, "permissions": ["notifications"]})
                yield driver, origin, public
            finally:
                driver.quit()


def test_worker_shows_a_pushed_alert():
    with example_page() as (driver, origin, public):
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


# Stands in for the browser's push service: records the key the page subscribes with and answers
# a subscription whose toJSON() is what a browser's is.
SUBSCRIBE_STAND_IN = """
PushManager.prototype.subscribe = function (options) {
  const bytes = new Uint8Array(options.applicationServerKey);
  window.subscribedWith = btoa(String.fromCharCode(...bytes)).replace(/[+]/g, "-").replace(/[/]/g, "_").replace(/=+$/, "");
  window.userVisibleOnly = options.userVisibleOnly;
  const json = { endpoint: "%s/push/example-browser", expirationTime: null, keys: { p256dh: "%s", auth: "%s" } };
  return Promise.resolve({ endpoint: json.endpoint, toJSON: () => json });
};
""" % (PUSH_SERVICE, P256DH, AUTH)


def test_page_turns_alerts_on():
    with example_page({"FROSTBOX_WEBPUSH_PRIVATE_PUSH_SERVICES": PUSH_SERVICE}) as (driver, origin, public):
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SUBSCRIBE_STAND_IN})
        driver.get(origin + "/web-push")
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.body.dataset.worker === 'ready'"))
        driver.execute_script(
            "const f = document.getElementById('place'); f.name.value = 'Allotment'; f.latitude.value = '60.2'; f.longitude.value = '24.9';")
        driver.find_element("id", "turn-on").click()
        status = lambda d: d.find_element("id", "status").text
        WebDriverWait(driver, 30).until(lambda d: status(d).startswith(("Frost alerts are on for", "Could not")))
        assert status(driver).startswith("Frost alerts are on for Allotment"), status(driver)
        assert driver.execute_script("return [window.subscribedWith, window.userVisibleOnly]") == [public, True]
        device_id = driver.execute_script("return localStorage.getItem('frostbox.device')")
        assert device_id and device_id.startswith("web:")
        device, places = driver.execute_async_script(
            "const id = encodeURIComponent(arguments[0]), done = arguments[1];"
            "Promise.all([fetch('/v1/devices/' + id).then(r => r.json()), fetch('/v1/devices/' + id + '/subscriptions').then(r => r.json())])"
            ".then(done)", device_id)
        assert device["platform"] == "web" and device["app"] == "example" and device["endpoint_origin"] == PUSH_SERVICE, device
        assert P256DH not in json.dumps(device) and "example-browser" not in json.dumps(device), "the keys and endpoint path never come back"
        assert [(p["name"], p["latitude"], p["longitude"]) for p in places["subscriptions"]] == [("Allotment", 60.2, 24.9)], places
