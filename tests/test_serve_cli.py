"""`htb-serve` reports bad input in one line and exits 2."""

from __future__ import annotations

import socket

import pytest

from humanoidtoolbench.cli.serve import main


def test_unloadable_policy_exits_2_with_one_line(capsys):
    assert main(["--policy", "htb_no_such_module:predict"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("htb-serve: cannot import policy module 'htb_no_such_module'")


def test_port_in_use_exits_2_with_one_line(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["--port", str(port), "--checkpoint", "ckpt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"htb-serve: cannot listen on 127.0.0.1:{port}")


@pytest.mark.parametrize("port", ["65536", "-5"])
def test_port_out_of_range_exits_2_with_one_line(port, capsys):
    assert main(["--port", port, "--checkpoint", "ckpt"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--port must be between 0 (any free port) and 65535" in err
