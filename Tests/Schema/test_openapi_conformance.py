"""Every operation of docs/openapi.yaml, as the server serves it, against a live `frostbox
serve` (Tests/Support/frostbox_server.py) with schemathesis: answers with an undocumented
status, content type, header or body, documented values refused or undocumented ones accepted,
and 5xx all fail. Run by .ci/run after `swift test`:

    python3 -m pytest -q Tests/Schema

The database is seeded (tools/status-page/seed.py) so that the admin and status operations
answer with real runs, a degraded one among them. Runs with and without the admin token.
The seed and the example counts are fixed, so a run repeats; SCHEMA_MAX_EXAMPLES raises them.
"""
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "tools" / "status-page"))
sys.path.insert(0, str(ROOT / "Tests" / "Support"))
import seed  # noqa: E402
from frostbox_server import running_server  # noqa: E402

TOKEN = "schema-test-admin-token-0123456789"
MAX_EXAMPLES = os.environ.get("SCHEMA_MAX_EXAMPLES", "30")


@pytest.fixture(scope="module")
def server():
    def prepare(database):
        seed.seed(database, 300)
        with sqlite3.connect(database) as connection:
            degraded = connection.execute("SELECT count(*) FROM notify_run WHERE status = 'degraded'").fetchone()[0]
        assert degraded, "the seed wrote no degraded notify run"

    # Browsers register at a push service on loopback, allowed as private: no DNS is asked.
    with running_server(TOKEN, prepare, {"FROSTBOX_WEBPUSH_PRIVATE_PUSH_SERVICES": "https://127.0.0.1:9"}) as live:
        yield live


def schemathesis(server, *options):
    environment = dict(os.environ)
    environment["SCHEMATHESIS_HOOKS"] = "schemathesis_hooks"
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), environment.get("PYTHONPATH")]))
    # One worker: CPython 3.11 once failed a run parsing source in two threads at once
    # ("AST constructor recursion depth mismatch" in schemathesis' coverage phase).
    command = [
        sys.executable, "-m", "schemathesis.cli", "--no-color", "run", f"{server['url']}/openapi.yaml", "--url", server["url"],
        "--checks", "all", "--seed", "28", "--max-examples", MAX_EXAMPLES, "--phases", "examples,coverage,fuzzing", "--workers", "1",
        # No examples kept from an earlier run: each run is the seed's alone.
        "--generation-database", "none", *options,
    ]
    # Run in the server's temporary directory: nothing of the run is left in the work tree.
    result = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=600, cwd=server["database"].parent)
    assert result.returncode == 0, result.stdout[-12000:] + result.stderr[-3000:] + "\nserver log:\n" + server["log"].read_text()[-2000:]
    return result.stdout


def test_every_operation_without_the_admin_token(server):
    schemathesis(server)


def test_every_operation_with_the_admin_token(server):
    schemathesis(server, "--header", f"Authorization: Bearer {TOKEN}")
