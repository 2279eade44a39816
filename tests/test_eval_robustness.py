"""htb-eval when things go wrong: a stuck policy server, Ctrl-C, a policy that exits or fails.

Each failure must end in one line on stderr (never a traceback there) and a
run log with the details; the servers here are tiny stdlib ones on 127.0.0.1
with short timeouts.
"""

from __future__ import annotations

import functools
import http.server
import re
import signal
import subprocess
import sys
import textwrap
import threading
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.policies import policy_source
from humanoidtoolbench.policies.errors import PolicyConnectionError, PolicyError
from humanoidtoolbench.policies.http_client import HttpPolicyClient
from humanoidtoolbench.suites.toolbench.registry import parse
from humanoidtoolbench.suites.toolbench.suite import request

from conftest import tool_use_server

FAST = ["--episodes", "1", "--max-steps", "20", "--no-video"]
INTERRUPTED = "htb-eval: interrupted; run the same command again to continue where it stopped"


def write_policy(path: Path, body: str) -> Path:
    path.write_text(textwrap.dedent(body))
    return path


class _Stalling(http.server.BaseHTTPRequestHandler):
    """Reads each request, then never answers the `stalled` routes (`reached` is set when one is hit);
    anything else gets 404 at once, as from a server without /info."""

    stalled: tuple[str, ...]
    reached: threading.Event
    release: threading.Event

    def _answer(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path not in self.stalled:
            self.send_error(404)
            return
        self.reached.set()
        self.release.wait(120)

    do_GET = do_POST = _answer

    def log_message(self, *args):
        pass


@contextmanager
def stalling_server(stalled=("/info", "/act")):
    """A server that never answers the `stalled` routes; yields (port, event set when one is first asked)."""
    reached, release = threading.Event(), threading.Event()
    handler = type("Handler", (_Stalling,), {"stalled": stalled, "reached": reached, "release": release})
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


def interruptible(cmd: list[str]) -> subprocess.Popen:
    """Start `cmd` with Ctrl-C enabled: a child inherits an ignored SIGINT (some library a test loaded
    earlier in this process may have ignored it) and, as a background job, keeps ignoring it."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_during_the_preflight_is_one_line_and_exit_130(tmp_path):
    with stalling_server() as (port, reached):
        cmd = [sys.executable, "-m", "humanoidtoolbench.cli.eval", "--host", "127.0.0.1", "--port", str(port),
               *FAST, "--output", str(tmp_path / "out")]
        proc = interruptible(cmd)
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


@pytest.mark.parametrize(
    "raised, shown",
    [("SystemExit(3)", "SystemExit at exits.py:2 in predict: 3"), ("GeneratorExit()", "GeneratorExit at exits.py:2 in predict")],
    ids=["SystemExit", "GeneratorExit"],
)
def test_a_policy_that_raises_system_exit_fails_its_condition_instead_of_ending_htb_eval(tmp_path, capsys, raised, shown):
    policy = write_policy(tmp_path / "exits.py", f"def predict(request):\n    raise {raised}\n")
    out = tmp_path / "out"
    assert run_cli(["--policy", f"{policy}:predict", "--checkpoint", "k", *FAST, "--output", str(out)]) == 1
    log = assert_one_failure_line(capsys.readouterr().err, out, f"policy failed on G1BallMove-L0-S seed 10000 at step 1 (request 0): {shown}")
    assert f"raise {raised}" in log


# -- policy failures, reported for people ------------------------------------------

HOLD = """
    import numpy as np

    def hold(request):
        row = np.zeros(36)
        row[:32] = np.asarray(request["state"]["states"], dtype=np.float64)[0]
        return np.tile(row, (5, 1))
"""


def run_log(out: Path) -> Path:
    [log] = out.glob("G1BallMove-L0-S/run-*/eval_latest.log")
    return log


def assert_one_failure_line(err: str, out: Path, failure: str) -> str:
    """The terminal shows `htb-eval: <failure> (details in LOG)` once, and no traceback; returns the log text."""
    log = run_log(out)
    assert f"htb-eval: {failure} (details in {log})" in err.splitlines()
    assert "Traceback" not in err
    text = log.read_text()
    assert failure in text
    return text


def test_a_policy_error_is_one_line_with_where_it_happened_and_the_traceback_goes_to_the_run_log(tmp_path, capsys):
    policy = write_policy(tmp_path / "bad.py", HOLD + """
    def predict(request):
        if request["humanoidtoolbench_request_index"] == 2:
            raise ValueError("bad shape")
        return hold(request)
    """)
    out = tmp_path / "out"
    assert run_cli(["--policy", f"{policy}:predict", "--checkpoint", "k", *FAST, "--output", str(out)]) == 1
    # Chunks of 5 rows: request 2 is made before step 11.
    failure = "policy failed on G1BallMove-L0-S seed 10000 at step 11 (request 2): ValueError at bad.py:11 in predict: bad shape"
    log = assert_one_failure_line(capsys.readouterr().err, out, failure)
    assert 'raise ValueError("bad shape")' in log and "policy_source.py" in log  # the user's and the internal traceback


@pytest.mark.parametrize(
    "chunk, message",
    [
        ("np.zeros((5, 35))", "Policy must return an array of shape (T, 36) with T >= 1; got shape (5, 35)"),
        ("np.full((5, 36), np.nan)", "Policy returned NaN or infinite values in 5 of 5 rows (first row 0)"),
    ],
    ids=["wrong-shape", "nan"],
)
def test_a_chunk_check_failure_is_one_line_with_where_it_happened_and_is_logged(tmp_path, capsys, chunk, message):
    policy = write_policy(tmp_path / "bad.py", f"import numpy as np\n\ndef predict(request):\n    return {chunk}\n")
    out = tmp_path / "out"
    assert run_cli(["--policy", f"{policy}:predict", "--checkpoint", "k", *FAST, "--output", str(out)]) == 1
    assert_one_failure_line(capsys.readouterr().err, out, f"policy failed on G1BallMove-L0-S seed 10000 at step 1 (request 0): {message}")


def test_an_http_failure_is_one_line_with_where_it_happened_and_is_logged(tmp_path, capsys):
    from humanoidtoolbench.policies.loader import load_policy
    
    policy = write_policy(tmp_path / "remote.py", "def predict(request):\n    raise RuntimeError('out of GPU memory')\n")
    srv = tool_use_server(load_policy(f"{policy}:predict"), log=lambda message: None)
    port = srv.start()
    out = tmp_path / "out"
    try:
        assert run_cli(["--host", "127.0.0.1", "--port", str(port), *FAST, "--output", str(out)]) == 1
    finally:
        srv.shutdown()
    failure = (f"policy failed on G1BallMove-L0-S seed 10000 at step 1 (request 0): Policy server request failed at "
               f"http://127.0.0.1:{port}/act: HTTP 500 Internal Server Error: RuntimeError at remote.py:2 in predict: out of GPU memory")
    assert_one_failure_line(capsys.readouterr().err, out, failure)


def test_a_policy_failure_in_a_worker_process_arrives_as_the_same_line(tmp_path, capsys):
    policy = write_policy(tmp_path / "bad.py", HOLD + """
    def predict(request):
        if request["humanoidtoolbench_episode_seed"] == 10001:
            raise ValueError("not this seed")
        return hold(request)
    """)
    out = tmp_path / "out"
    args = ["--policy", f"{policy}:predict", "--checkpoint", "k", *FAST, "--episodes", "2", "--workers", "2"]
    assert run_cli([*args, "--output", str(out)]) == 1
    err = capsys.readouterr().err
    failure = "policy failed on G1BallMove-L0-S seed 10001 at step 1 (request 0): ValueError at bad.py:11 in predict: not this seed"
    # Workers name the run directory by its resolved path.
    assert f"htb-eval: {failure} (details in {run_log(out).resolve()})" in err.splitlines()
    assert "Traceback" not in err and failure in run_log(out).read_text()


# -- a policy server that stops answering -------------------------------------------

WAITING = re.compile(r"waiting for the policy server at http://127\.0\.0\.1:\d+ \(\d+ s\)")


def small_request() -> dict:
    return request(parse("G1BallMove-L0-S"), np.zeros((360, 640, 3), np.uint8), np.zeros(32, np.float32), True)


def test_a_stuck_policy_call_times_out_with_one_line_naming_the_url_and_the_timeout():
    lines: list[str] = []
    with stalling_server() as (port, _):
        client = HttpPolicyClient("127.0.0.1", port, read_timeout=0.5, on_wait=lines.append, wait_interval=0.05)
        with pytest.raises(PolicyError) as info:
            client.act(small_request())
    assert str(info.value) == (
        f"Policy server request failed at http://127.0.0.1:{port}/act: no answer within 0.5 s "
        "(raise --policy-timeout if the model is this slow)"
    )
    # While it waited, it said so.
    assert lines and all(WAITING.fullmatch(line) for line in lines)


def test_the_preflight_has_a_short_timeout_of_its_own():
    with stalling_server() as (port, _):
        client = HttpPolicyClient("127.0.0.1", port, preflight_timeout=0.3)
        assert client.read_timeout == 600
        with pytest.raises(PolicyConnectionError) as info:
            client.preflight()
    assert str(info.value) == f"policy server at http://127.0.0.1:{port} did not answer GET /info within 0.3 s (is it stuck?)"


def test_a_fast_request_reports_no_waiting():
    from humanoidtoolbench.policies.loader import load_policy
    
    srv = tool_use_server(load_policy("humanoidtoolbench.policies.pose_hold:predict"), log=lambda message: None)
    port = srv.start()
    lines: list[str] = []
    try:
        client = HttpPolicyClient("127.0.0.1", port, on_wait=lines.append, wait_interval=5)
        assert client.preflight()["policy"] == "pose-hold"
        assert client.act(small_request()).action.shape[1] == 36
        client.release()
    finally:
        srv.shutdown()
    assert lines == []


def test_htb_eval_policy_timeout_fails_a_stuck_call_with_one_line_and_says_it_is_waiting(tmp_path, capsys, monkeypatch):
    # Report waiting every 0.05 s instead of every 10 s, so that a short test sees the lines.
    monkeypatch.setattr(policy_source, "HttpPolicyClient", functools.partial(HttpPolicyClient, wait_interval=0.05))
    out = tmp_path / "out"
    with stalling_server(stalled=("/act",)) as (port, _):
        args = ["--host", "127.0.0.1", "--port", str(port), "--policy-timeout", "0.5", *FAST, "--output", str(out)]
        assert run_cli(args) == 1
    err = capsys.readouterr().err
    failure = (f"policy failed on G1BallMove-L0-S seed 10000 at step 1 (request 0): Policy server request failed at "
               f"http://127.0.0.1:{port}/act: no answer within 0.5 s (raise --policy-timeout if the model is this slow)")
    assert_one_failure_line(err, out, failure)
    waiting = [line for line in err.splitlines() if "waiting for the policy server" in line]
    assert waiting and all(WAITING.fullmatch(line.removeprefix("htb-eval: ")) for line in waiting)


@pytest.mark.parametrize("flag, shown", [([], "600 s"), (["--policy-timeout", "45"], "45 s")])
def test_a_dry_run_shows_the_policy_timeout(capsys, flag, shown):
    assert run_cli(["--host", "10.0.0.1", "--dry-run", *flag]) == 0
    assert f"policy timeout: {shown} per request (pre-flight 30 s)" in capsys.readouterr().out.splitlines()


def test_an_in_process_policy_that_does_not_return_prints_the_waiting_line(capsys):
    import time

    from humanoidtoolbench.policies.loader import LoadedPolicy
    from humanoidtoolbench.policies.policy_source import InProcessPolicy

    def predict(request):
        time.sleep(0.35)
        return np.zeros((5, 36))

    policy = InProcessPolicy(LoadedPolicy(predict=predict, name="slow", source="test", file=None,
                                          adapter_sha256="0" * 64), "k")
    policy.wait_interval = 0.1
    capsys.readouterr()
    policy.act({})
    waits = capsys.readouterr().err.splitlines()
    assert len(waits) >= 2 and all(re.fullmatch(r"htb-eval: waiting for the policy slow to return \(\d+ s\)", w)
                                   for w in waits), waits
