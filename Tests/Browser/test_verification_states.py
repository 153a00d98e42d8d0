"""The status page's "How right were we" panel when there is nothing to score (issue #48): a
server that keeps no nights (`verification.enabled` false: `/admin/verification` answers 409
`verification_off`), and one that keeps them but has checked none yet. Each against a real
`frostbox serve` on a fresh, unseeded database, in Debian's headless Chromium:

    python3 -m pytest -q Tests/Browser -k verification
"""
import sys
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests" / "Support"))
from frostbox_server import running_server  # noqa: E402
from status_browser import status_page  # noqa: E402

TOKEN = "browser-test-admin-token-verification"


@pytest.mark.parametrize("settings, sentence", [
    ({"FROSTBOX_VERIFICATION_ENABLED": "false"}, "The alerts are not being checked: this server keeps no nights (verification.enabled is false)"),
    ({}, "No nights have been checked yet: 0 waiting for the archive, 0 not yet due."),
])
def test_panel_says_why_there_are_no_scores(settings, sentence):
    with running_server(TOKEN, settings=settings) as live, status_page(live["url"], TOKEN) as driver:
        WebDriverWait(driver, 30).until(lambda d: d.execute_script("return window.frostboxStatus.verificationLoads") > 0)
        message = driver.find_element(By.ID, "verification-message")
        assert message.text.startswith(sentence), message.text
        # No table, diagram or region to show, on the panel or the map; and no error banner.
        assert not driver.find_element(By.ID, "verification-body").is_displayed()
        assert not driver.find_element(By.ID, "region-legend").is_displayed()
        assert driver.execute_script("return window.frostboxStatus.items.filter(i => i.kind === 'region').length") == 0
        assert driver.find_element(By.ID, "problem").get_attribute("hidden") is not None
