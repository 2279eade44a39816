"""htb-eval when things go wrong: a stuck policy server, Ctrl-C, a policy that exits or fails.

Each failure must end in one line on stderr (never a traceback there) and a
run log with the details; the servers here are tiny stdlib ones on 127.0.0.1
with short timeouts.
"""

from __future__ import annotations

import http.server
import signal
import subprocess
import sys
import textwrap
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from humanoidtoolbench.cli import eval as eval_cli

FAST = ["--episodes", "1", "--max-steps", "20", "--no-video"]
INTERRUPTED = "htb-eval: interrupted; run the same command again to continue where it stopped"


def write_policy(path: Path, body: str) -> Path:
    path.write_text(textwrap.dedent(body))
    return path


class _Stalling(http.server.BaseHTTPRequestHandler):
    """Answers nothing until the test ends; `reached` is set when a request arrives."""

    reached: threading.Event
    release: threading.Event

    def _stall(self) -> None:
        self.reached.set()
        self.release.wait(120)

    do_GET = do_POST = _stall

    def log_message(self, *args):
        pass


@contextmanager
def stalling_server():
    """A server that accepts connections and never answers; yields (port, event set on the first request)."""
    reached, release = threading.Event(), threading.Event()
    handler = type("Handler", (_Stalling,), {"reached": reached, "release": release})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd.server_address[1], reached
    finally:
        release.set()
        httpd.shutdown()
        httpd.server_close()


def run_cli(args: list[str]) -> int:
    """`eval_cli.main`, failing the test (not the whole session) if a KeyboardInterrupt escapes."""
    try:
        return eval_cli.main(args)
    except KeyboardInterrupt:
        pytest.fail("KeyboardInterrupt escaped htb-eval")


# -- Ctrl-C -------------------------------------------------------------------


def test_ctrl_c_during_the_preflight_is_one_line_and_exit_130(tmp_path):
    with stalling_server() as (port, reached):
        cmd = [sys.executable, "-m", "humanoidtoolbench.cli.eval", "--host", "127.0.0.1", "--port", str(port),
               *FAST, "--output", str(tmp_path / "out")]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert reached.wait(120), "htb-eval never asked the server for /info"
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=120)
        finally:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.strip() == INTERRUPTED


@pytest.mark.parametrize(
    "body",
    ["raise KeyboardInterrupt\n", "def predict(request):\n    raise KeyboardInterrupt\n"],
    ids=["while-loading-the-policy", "inside-predict"],
)
def test_ctrl_c_is_handled_the_same_way_everywhere(tmp_path, capsys, body):
    policy = write_policy(tmp_path / "slow.py", body)
    assert run_cli(["--policy", f"{policy}:predict", "--checkpoint", "k", *FAST, "--output", str(tmp_path / "out")]) == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == INTERRUPTED and "Traceback" not in err


# -- a policy that exits ----------------------------------------------------------


@pytest.mark.parametrize("raised, shown", [("SystemExit(3)", "SystemExit"), ("GeneratorExit()", "GeneratorExit")])
def test_a_policy_that_raises_system_exit_fails_its_condition_instead_of_ending_htb_eval(tmp_path, capsys, raised, shown):
    policy = write_policy(tmp_path / "exits.py", f"def predict(request):\n    raise {raised}\n")
    out = tmp_path / "out"
    assert run_cli(["--policy", f"{policy}:predict", "--checkpoint", "k", *FAST, "--output", str(out)]) == 1
    assert f"{shown} at exits.py:2 in predict" in capsys.readouterr().err
    log = next(out.glob("*/run-*/eval_latest.log")).read_text()
    assert "Traceback" in log and f"raise {raised}" in log
