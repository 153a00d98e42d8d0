"""The status page in a real browser: Debian's headless Chromium, driven by Selenium through
Debian's chromedriver, against a real `frostbox serve` on a free loopback port with a seeded
database (tools/status-page/seed.py). Run by .ci/run after `swift test`:

    python3 -m pytest -q Tests/Browser

FROSTBOX_BIN names the binary (default .build/debug/frostbox); STATUS_SCREENSHOT, when set,
is where a screenshot of the page is written.
"""
import os
import re
import sys
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "status-page"))
sys.path.insert(0, str(ROOT / "Tests" / "Support"))
import seed  # noqa: E402
from frostbox_server import running_server  # noqa: E402
from status_browser import status_page  # noqa: E402

TOKEN = "browser-test-admin-token-0123456789"
SUBSCRIPTIONS = int(os.environ.get("STATUS_SUBSCRIPTIONS", "12000"))
LABELS = {"none": "No frost", "frost-risk": "Frost risk", "freeze": "Freeze", "hard-freeze": "Hard freeze",
          "no-forecast": "No forecast yet", "fetch-failing": "Fetch failing"}


@pytest.fixture(scope="module")
def server():
    seeded = {}

    def prepare(database):
        seeded["classes"], seeded["runs"] = seed.seed(database, SUBSCRIPTIONS)

    with running_server(TOKEN, prepare) as live:
        yield {"url": live["url"], "classes": seeded["classes"], "runs": seeded["runs"], "log": live["log"]}


@pytest.fixture(scope="module")
def browser(server):
    with status_page(server["url"], TOKEN) as driver:
        yield driver


def wait_for_boxes(driver, previous, zoom=None):
    WebDriverWait(driver, 60).until(lambda d: d.execute_script(
        "const s = window.frostboxStatus; return s.loads.boxes > arguments[0] && (arguments[1] === null || s.boxes.zoom === arguments[1]);", previous, zoom))


def loaded_box(driver, previous, key):
    """The box `key` once the map's boxes hold it. A load asked for the view before this one
    (an earlier test's, at the same zoom) may still land after `previous` was read, so a load
    at zoom 11 alone does not mean this view's boxes: wait until they hold the key."""
    wait_for_boxes(driver, previous, 11)
    try:
        WebDriverWait(driver, 30).until(lambda d: d.execute_script(
            "return (window.frostboxStatus.boxes.boxes || []).some(b => b.key === arguments[0]);", key))
    except TimeoutException:
        keys = driver.execute_script("return (window.frostboxStatus.boxes.boxes || []).map(b => b.key)")
        raise AssertionError(f"box {key} never among the loaded boxes: {keys[:20]}") from None
    data = driver.execute_script("return window.frostboxStatus.boxes")
    return data, next(b for b in data["boxes"] if b["key"] == key)


def pixel(driver, x, y):
    return driver.execute_script(
        "const c = document.getElementById('map'); const r = window.devicePixelRatio || 1;"
        "return Array.from(c.getContext('2d').getImageData(Math.round(arguments[0] * r), Math.round(arguments[1] * r), 1, 1).data).slice(0, 3);", x, y)


def rgb(hex_colour):
    hex_colour = hex_colour.lstrip("#")
    return [int(hex_colour[i:i + 2], 16) for i in (0, 2, 4)]


def test_page_loads_without_console_errors(browser, server):
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], errors
    assert browser.title == "Frostbox status"
    assert browser.find_element(By.ID, "problem").get_attribute("hidden") is not None
    # The land outline arrived and was drawn.
    assert browser.execute_script("return window.frostboxStatus.loads.land") > 200


def test_world_view_counts_every_seeded_box(browser, server):
    data = browser.execute_script("return window.frostboxStatus.boxes")
    assert data["mode"] == "cells"
    assert data["total_boxes"] == len(server["classes"])
    expected = {kind: 0 for kind in LABELS}
    for kind in server["classes"].values():
        expected[kind] += 1
    assert data["classes"] == expected
    # One read in the page (a refresh may redraw the legend between two driver calls).
    legend = browser.execute_script(
        "const r = {}; document.querySelectorAll('#legend li').forEach(li => { r[li.dataset.class] = li.innerText.split(/\\s+/).join(' ').trim(); }); return r;")
    for kind, count in expected.items():
        assert legend[kind] == f"{LABELS[kind]} {count:,}"
    # Every cell whose centre is on the canvas is drawn (and can be hovered), read in one go.
    inside, drawn = browser.execute_script(
        "const s = window.frostboxStatus, c = document.getElementById('map'), w = c.clientWidth, h = c.clientHeight;"
        "const inside = s.boxes.cells.filter(cell => { const p = s.project(cell.lon, cell.lat);"
        " return p.x >= 0 && p.x <= w && p.y >= 0 && p.y <= h; }).length;"
        "return [inside, s.items.length];")
    assert inside > 0 and drawn >= inside, (inside, drawn)


@pytest.mark.parametrize("name, lat, lon, kind", seed.KNOWN)
def test_zoomed_box_has_its_colour_and_details(browser, server, name, lat, lon, kind):
    loads = browser.execute_script("return window.frostboxStatus.loads.boxes")
    browser.execute_script("window.frostboxStatus.setView(arguments[0], arguments[1], 11)", lon, lat)
    key = seed.box_key(lat, lon)
    data, box = loaded_box(browser, loads, key)
    assert data["mode"] == "boxes"
    assert box["class"] == kind
    point = browser.execute_script("return window.frostboxStatus.project(arguments[0], arguments[1])", box["lon"], box["lat"])
    colours = browser.execute_script("return window.frostboxStatus.colours")
    drawn = pixel(browser, point["x"], point["y"])
    assert all(abs(a - b) <= 2 for a, b in zip(drawn, rgb(colours[kind]))), (drawn, colours[kind])
    # Hovering the box shows its details.
    canvas = browser.find_element(By.ID, "map")
    size = canvas.size
    ActionChains(browser).move_to_element_with_offset(canvas, int(point["x"] - size["width"] / 2), int(point["y"] - size["height"] / 2)).perform()
    tooltip = browser.find_element(By.ID, "tooltip")
    WebDriverWait(browser, 10).until(lambda d: tooltip.is_displayed() and f"Box {box['box']}" in tooltip.text)
    text = tooltip.text
    assert f"Box {box['box']}" in text and f"key {key}" in text
    assert name in text
    assert "Subscribers: 1" in text
    assert LABELS[kind] in text
    if kind in ("none", "frost-risk", "freeze", "hard-freeze"):
        assert f"Tonight ({box['tonight']['night']}): {LABELS[box['tonight']['level']]}" in text
        assert "Tomorrow night" in text and re.search(r"Forecast age: 1\d min", text), text
    if kind == "no-forecast":
        assert "Forecast age: none yet" in text
    if kind == "fetch-failing":
        assert "timeout after 30 s" in text
    ActionChains(browser).move_by_offset(5, size["height"] // 3).perform()


def click_box(driver, point):
    canvas = driver.find_element(By.ID, "map")
    size = canvas.size
    ActionChains(driver).move_to_element_with_offset(canvas, int(point["x"] - size["width"] / 2), int(point["y"] - size["height"] / 2)).click().perform()


@pytest.mark.parametrize("name, lat, lon, kind, ensemble, chances", seed.CHANCES)
def test_box_coloured_by_its_chance_with_the_distribution_on_a_tap(browser, server, name, lat, lon, kind, ensemble, chances):
    browser.execute_script("window.frostboxStatus.setColourBy('auto')")
    loads = browser.execute_script("return window.frostboxStatus.loads.boxes")
    browser.execute_script("window.frostboxStatus.setView(arguments[0], arguments[1], 11)", lon, lat)
    key = seed.box_key(lat, lon)
    data, box = loaded_box(browser, loads, key)
    assert box["class"] == kind
    assert box["tonight"]["chance"]["by_level"] == chances
    # Automatic colouring: by the chance of freeze, as its bin's colour.
    assert browser.execute_script("return window.frostboxStatus.chanceLevel") == "freeze"
    freeze = chances["freeze"]
    bin_id = next(f"p{i}" for i, edge in enumerate([0.1, 0.3, 0.6, 0.9, 2]) if freeze < edge)
    point = browser.execute_script("return window.frostboxStatus.project(arguments[0], arguments[1])", box["lon"], box["lat"])
    chance_colours = browser.execute_script("return window.frostboxStatus.chanceColours")
    drawn = pixel(browser, point["x"], point["y"])
    assert all(abs(a - b) <= 2 for a, b in zip(drawn, rgb(chance_colours[bin_id]))), (drawn, bin_id)
    legend = browser.execute_script("return document.querySelector(`#legend li[data-chance='${arguments[0]}']`).innerText", bin_id)
    assert legend.split()[-1] == "1", legend
    # A tap pins the box and fetches its distribution.
    details = browser.execute_script("return window.frostboxStatus.loads.detail")
    click_box(browser, point)
    WebDriverWait(browser, 20).until(lambda d: d.execute_script("return window.frostboxStatus.loads.detail") > details)
    tooltip = browser.find_element(By.ID, "tooltip")
    WebDriverWait(browser, 10).until(lambda d: "Night of" in tooltip.text)
    text = tooltip.text
    assert f"Chance of 0 °C or lower (freeze): {round(freeze * 100)} %" in text, text
    assert f"≤ 0 °C {round(freeze * 100)} %" in text and f"≤ 3 °C {round(chances['frost-risk'] * 100)} %" in text, text
    charts = browser.execute_script(
        "return Array.from(document.querySelectorAll('#tooltip svg.distribution')).map(svg => ({kind: svg.dataset.kind,"
        " counts: Array.from(svg.querySelectorAll('rect.bin')).map(r => Number(r.dataset.count)),"
        " areas: svg.querySelectorAll('polygon.area').length, thresholds: svg.querySelectorAll('line.threshold').length}))")
    assert len(charts) == 2, charts
    for chart in charts:
        assert chart["thresholds"] == 3
        if "members" in ensemble:
            # Every member's minimum in one bar of the histogram.
            assert chart["kind"] == "members" and sum(chart["counts"]) == len(ensemble["members"]), chart
        else:
            # The curve's area split at the three thresholds.
            assert chart["kind"] == "normal" and chart["areas"] == 4, chart
    # By verdict, the box takes its class colour again.
    browser.execute_script("window.frostboxStatus.setColourBy('verdict')")
    colours = browser.execute_script("return window.frostboxStatus.colours")
    drawn = pixel(browser, point["x"], point["y"])
    assert all(abs(a - b) <= 2 for a, b in zip(drawn, rgb(colours[kind]))), (drawn, kind)
    browser.execute_script("window.frostboxStatus.setColourBy('auto')")
    # A tap on open sea unpins it.
    click_box(browser, {"x": 5, "y": 5})


def chart_bars(driver, kind):
    """The runs chart's bars of one kind as {run id: value}, read in one go in the page."""
    return {int(k): int(v) for k, v in driver.execute_script(
        "const r = {}; document.querySelectorAll('#runs-chart rect.' + arguments[0]).forEach(b => { r[b.dataset.run] = b.dataset.value; }); return r;",
        kind).items()}


def retrying(action, attempts=5):
    """Runs `action` again when the page redrew what it was looking at (a 10 s refresh)."""
    for attempt in range(attempts):
        try:
            return action()
        except StaleElementReferenceException:
            if attempt == attempts - 1:
                raise
            time.sleep(0.2)


def test_runs_chart_and_panels_show_the_seeded_runs(browser, server):
    runs = server["runs"]
    for kind in ("planned", "delivered", "failed"):
        assert chart_bars(browser, kind) == {r["id"]: r[kind] for r in runs}
    assert browser.execute_script("return document.querySelectorAll('#runs-chart circle.duration-dot').length") == len(runs)
    latest = runs[-1]

    def hover_latest():
        hit = browser.find_element(By.CSS_SELECTOR, f"#runs-chart rect.hit[data-run='{latest['id']}']")
        ActionChains(browser).move_to_element(hit).perform()
        tip = browser.find_element(By.ID, "runs-tooltip")
        WebDriverWait(browser, 10).until(lambda d: tip.is_displayed() and f"Run #{latest['id']}" in tip.text)
        return tip.text

    text = retrying(hover_latest)
    assert f"Run #{latest['id']}" in text
    assert f"Planned {latest['planned']:,} · delivered {latest['delivered']:,} · failed {latest['failed']}" in text
    first_row, failed_row = browser.execute_script(
        "return [document.querySelector('#runs-table tbody tr').dataset.run,"
        " document.querySelector(`#runs-table tr[data-run='${arguments[0]}']`).innerText];", runs[8]["id"])
    assert first_row == str(latest["id"])
    assert "failed" in failed_row
    quota = browser.execute_script(
        "const r = {}; document.querySelectorAll('#quota .bar').forEach(b => { r[b.dataset.window] = b.innerText; }); return r;")
    assert "/ 600" in quota["minute"] and "1,020 / 5,000" in quota["hour"] and "4,020 / 10,000" in quota["day"]
    places = browser.execute_script("return document.getElementById('places').innerText")
    assert re.search(r"Places stored\s+[1-9]", places), places
    counts = browser.execute_script("return document.getElementById('counts').innerText")
    assert f"{SUBSCRIPTIONS:,} subscriptions" in counts
    outbox = " ".join(browser.execute_script("return document.getElementById('outbox').innerText").split())
    pending = len(seed.PENDING_CLASSES)
    assert f"Pending {pending}" in outbox, outbox
    assert "Pending (not sent yet) 7" in outbox and "Pending (temporary) 5" in outbox and "Pending (auth) 3" in outbox, outbox
    statuses = browser.execute_script(
        "return Array.from(document.querySelectorAll('#runs-table tbody td[class^=status-]')).map(td => td.className);")
    assert "status-degraded" in statuses and "status-failed" in statuses, statuses


def test_push_panel_shows_both_platforms_and_each_paced_app(browser, server):
    # The server's own summary (log-only sink: nothing paced), with FCM connected and one app
    # paced and paused, drawn as the page draws every summary.
    text = browser.execute_script("""
        const summary = JSON.parse(JSON.stringify(window.frostboxStatus.summary));
        summary.push.connections = 3;
        summary.push.connections_by_platform = {ios: 2, android: 1};
        summary.push.pacing = [{budget: "fcm.fi.example.frost", messages_per_minute: 600000, sent: 1234,
                                waited_seconds: 12.34, pauses: 2, paused_for_seconds: 7}];
        window.frostboxStatus.renderSummary(summary);
        return document.getElementById('push').innerText;""")
    text = " ".join(text.split())
    assert "Connections 3" in text and "Connections iOS 2" in text and "Connections Android 1" in text, text
    assert "Pacing fcm.fi.example.frost 600,000/min · 1,234 sent · waited 12.3 s · 2 pauses · paused 7 s more" in text, text


def box_centre(degrees):
    return seed.box_index(degrees) * seed.BOX


# The freeze row of the seeded checked nights, counted by hand in seed.VERIFIED: hits 4, misses
# 2, false alarms 1, correct negatives 5 nights standing for 9; CSI 4/7, POD 4/6, FAR 1/5, bias 5/6.
FREEZE_ROW = {"hits": "4", "misses": "2", "false-alarms": "1", "correct-negatives": "9", "pod": "0.67", "far": "0.20", "csi": "0.57", "bias": "0.83"}
# Each region's freeze CSI bin: 0.75, 1/3, none.
REGION_BINS = {"FI.15": "c3", "SE.25": "c1", "NO.18": "none"}


def test_verification_panel_scores_the_checked_nights(browser, server):
    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return window.frostboxStatus.verificationLoads") > 0)
    browser.execute_script("window.frostboxStatus.setVerificationLevel('freeze')")
    assert browser.find_element(By.ID, "verification-body").is_displayed()
    assert browser.find_element(By.ID, "verification-level").get_attribute("value") == "freeze"
    row = browser.execute_script(
        "const r = {}; document.querySelectorAll(\"#verification-levels tr[data-level='freeze'] td\").forEach(td => { r[td.dataset.score] = td.innerText.trim(); }); return r;")
    for score, shown in FREEZE_ROW.items():
        assert row[score] == shown, (score, row)
    # The level's threshold, from the answer's thresholds_c (keyed by level, as the status map's).
    headers = browser.execute_script(
        "const r = {}; document.querySelectorAll('#verification-levels tr[data-level] th').forEach(th => { r[th.parentElement.dataset.level] = th.innerText; }); return r;")
    assert "≤ 0 °C" in headers["freeze"] and "≤ 3 °C" in headers["frost-risk"] and "≤ -2 °C" in headers["hard-freeze"].replace("−", "-"), headers
    # Five nights of the freeze diagram had a chance: the number with one, and its Brier score.
    assert row["probability-nights"] == "10" and re.fullmatch(r"0\.\d{3}", row["brier"]), row
    facts = browser.execute_script(
        "const r = {}; document.querySelectorAll('#verification-facts dd').forEach(dd => { r[dd.dataset.fact] = dd.innerText.trim(); }); return r;")
    assert facts["nights"] == f"{len(seed.VERIFIED)}, standing for 16 box-nights", facts
    assert facts["observed"] == str(len(seed.VERIFIED)) and facts["chosen"] == "0" and facts["pending"] == "0", facts
    # Forecast minus observed low, weighted: (sum of the differences, the sampled ones counting three times) / 16.
    error = sum(w * (f - o) for _, _, _, _, f, _, o, w, _ in seed.VERIFIED) / 16
    served = browser.execute_script("return window.frostboxStatus.verification.overall.mean_error_c")
    assert abs(served - error) < 0.006, (served, error)
    assert facts["error"] == f"+{served:.1f} °C (forecasts too warm), over {len(seed.VERIFIED)} nights", (facts, error)
    # One point per tenth of chance the freeze chances fell in (0.0, 0.2, 0.4, 0.8, 0.9), sized by its nights.
    points = browser.execute_script(
        "return Array.from(document.querySelectorAll('#reliability circle.reliability-point')).map(c => [Number(c.dataset.lower), Number(c.dataset.nights)]);")
    assert sorted(map(tuple, points)) == [(0.0, 2), (0.2, 2), (0.4, 1), (0.8, 3), (0.9, 2)], points
    assert browser.execute_script("return document.querySelectorAll('#reliability line.diagonal').length") == 1
    # The regions listed with their CSI's colour.
    listed = browser.execute_script(
        "const r = {}; document.querySelectorAll('#verification-regions li').forEach(li => { r[li.dataset.region] = [li.dataset.csiBin, li.innerText]; }); return r;")
    assert {key: value[0] for key, value in listed.items()} == REGION_BINS, listed
    assert "CSI 0.75" in listed["FI.15"][1] and "CSI 0.33" in listed["SE.25"][1] and "CSI –" in listed["NO.18"][1], listed


def test_checked_regions_on_the_map_take_their_csi_colour(browser, server):
    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return window.frostboxStatus.verificationLoads") > 0)
    browser.execute_script("window.frostboxStatus.setVerificationLevel('freeze')")
    loads = browser.execute_script("return window.frostboxStatus.loads.boxes")
    browser.execute_script("window.frostboxStatus.setView(22, 65, 5)")
    wait_for_boxes(browser, loads, 5)
    csi_colours = browser.execute_script("return window.frostboxStatus.csiColours")
    regions = {r["key"]: r for r in browser.execute_script("return window.frostboxStatus.verification.regions")}
    items = {i["key"]: i for i in browser.execute_script("return window.frostboxStatus.items") if i["kind"] == "region"}
    assert set(items) == set(REGION_BINS), items
    for key, bin_id in REGION_BINS.items():
        # Placed at the mean centre of the region's checked boxes.
        boxes = [(box_centre(lat), box_centre(lon)) for region, lat, lon, *_ in seed.VERIFIED if region == key]
        assert abs(regions[key]["latitude"] - sum(b[0] for b in boxes) / len(boxes)) < 1e-3, regions[key]
        assert abs(regions[key]["longitude"] - sum(b[1] for b in boxes) / len(boxes)) < 1e-3, regions[key]
        point = browser.execute_script("return window.frostboxStatus.project(arguments[0], arguments[1])", regions[key]["longitude"], regions[key]["latitude"])
        assert abs(point["x"] - items[key]["x"]) < 1 and abs(point["y"] - items[key]["y"]) < 1, (point, items[key])
        drawn = pixel(browser, point["x"], point["y"])
        assert all(abs(a - b) <= 2 for a, b in zip(drawn, rgb(csi_colours[bin_id]))), (key, drawn, bin_id)
    legend = browser.execute_script("return Array.from(document.querySelectorAll('#region-legend li[data-csi]')).map(li => li.dataset.csi)")
    assert legend == ["c0", "c1", "c2", "c3", "none"], legend
    # Hovering a marker names the region and its CSI.
    point = items["SE.25"]
    canvas = browser.find_element(By.ID, "map")
    size = canvas.size
    ActionChains(browser).move_to_element_with_offset(canvas, int(point["x"] - size["width"] / 2), int(point["y"] - size["height"] / 2)).perform()
    tooltip = browser.find_element(By.ID, "tooltip")
    WebDriverWait(browser, 10).until(lambda d: tooltip.is_displayed() and "Region SE.25" in tooltip.text)
    assert "CSI of freeze: 0.33" in tooltip.text and "false alarms 1" in tooltip.text, tooltip.text
    ActionChains(browser).move_by_offset(5, size["height"] // 3).perform()


def test_refreshes_without_reloading(browser, server):
    marker = browser.execute_script("window.__notReloaded = true; return window.frostboxStatus.loads.summary")
    WebDriverWait(browser, 30).until(lambda d: d.execute_script("return window.frostboxStatus.loads.summary") > marker)
    assert browser.execute_script("return window.__notReloaded === true")
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == [], errors


def test_screenshot(browser, server):
    target = os.environ.get("STATUS_SCREENSHOT")
    if not target:
        pytest.skip("STATUS_SCREENSHOT not set")
    loads = browser.execute_script("return window.frostboxStatus.loads.boxes")
    browser.execute_script("window.frostboxStatus.setView(15, 30, 0)")
    wait_for_boxes(browser, loads)
    browser.execute_script("window.scrollTo(0, 0)")
    time.sleep(0.5)
    browser.save_screenshot(target)
