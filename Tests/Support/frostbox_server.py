"""A real `frostbox serve` on a free loopback port, for the Python suites .ci/run runs after
`swift test` (Tests/Browser, Tests/Schema): the binary CI built (FROSTBOX_BIN, default
.build/debug/frostbox), a fresh database in a temporary directory, no way out to a real
forecast source, no scheduled notify run, no rate limit.
"""
import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def running_server(token, prepare=None, settings=None):
    """Starts the server with admin token `token` and any more `settings` ({FROSTBOX_… variable:
    value}); `prepare(database_path)` runs once it listens (seeding). Yields {"url", "database",
    "log"}; stops the server on exit."""
    # Absolute: the server runs in its temporary directory (FROSTBOX_BIN=.build/debug/frostbox
    # would not be found from there).
    binary = Path(os.environ.get("FROSTBOX_BIN", ROOT / ".build" / "debug" / "frostbox")).absolute()
    assert binary.is_file(), f"{binary} is missing: build it first (swift build --product frostbox)"
    directory = Path(tempfile.mkdtemp(prefix="frostbox-live-"))
    database = directory / "frostbox.sqlite"
    # The server sees only the settings below: any other FROSTBOX_ variable (FROSTBOX_BIN
    # included) would be refused as unknown configuration.
    environment = {key: value for key, value in os.environ.items() if not key.startswith("FROSTBOX_")}
    environment.update({
        "FROSTBOX_DB": str(database),
        "FROSTBOX_ADMIN_TOKEN": token,
        "FROSTBOX_NOTIFIER_FIRST_RUN_DELAY": "24h",
        "FROSTBOX_NOTIFIER_INTERVAL": "24h",
        "FROSTBOX_FORECAST_URL": "http://127.0.0.1:9",
        "FROSTBOX_LIMITS_RATE_LIMIT_BURST": "0",
        "FROSTBOX_PLACES_SEED_PATH": str(ROOT / "data" / "geonames" / "nordic-cities1000.txt"),
    })
    environment.update(settings or {})
    log_path = directory / "server.log"
    log = open(log_path, "w")
    try:
        process = subprocess.Popen(
            [str(binary), "serve", "--host", "127.0.0.1", "--port", "0"], stdout=log, stderr=subprocess.STDOUT, env=environment, cwd=directory)
    except OSError:
        log.close()
        shutil.rmtree(directory, ignore_errors=True)
        raise
    try:
        port = None
        # The first start seeds the bundled places before it listens: seconds here, a minute on
        # a loaded machine.
        deadline = time.time() + 240
        while time.time() < deadline and port is None:
            match = re.search(r"listening on [^\s:]+:(\d+)", log_path.read_text())
            if match:
                port = int(match.group(1))
            elif process.poll() is not None:
                break
            else:
                time.sleep(0.1)
        assert port, "frostbox serve did not start:\n" + log_path.read_text()[-3000:]
        if prepare:
            prepare(str(database))
        yield {"url": f"http://127.0.0.1:{port}", "database": database, "log": log_path}
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        shutil.rmtree(directory, ignore_errors=True)
