"""`htb-setup`: verified, atomic, idempotent installation of the robot asset."""

from __future__ import annotations

import os
import shutil

import pytest

from humanoidtoolbench.cli import setup as setup_cli
from humanoidtoolbench.robot import assets, derive


@pytest.fixture
def mirror(tmp_path, robot_asset):
    """A local mirror laid out like the shared asset folder, made from the installed sources."""
    root = tmp_path / "mirror"
    shutil.copytree(robot_asset.root / "source", root / "unitree_g1")
    return root


@pytest.fixture
def home(tmp_path, monkeypatch):
    path = tmp_path / "home"
    monkeypatch.setenv(assets.HOME_ENV, str(path))
    monkeypatch.delenv(assets.MIRROR_ENV, raising=False)
    assets._cached_install.cache_clear()
    yield path
    assets._cached_install.cache_clear()


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_mirror_install_check_and_noop_rerun(home, mirror, capsys):
    assert setup_cli.main(["--from", str(mirror)]) == 0
    root = assets.install_dir()
    assert (root / "derived" / "g1_htb.xml").is_file()
    assert setup_cli.main(["--check"]) == 0
    stamp = (root / assets.INSTALL_RECORD).stat().st_mtime_ns
    capsys.readouterr()
    assert setup_cli.main(["--from", str(mirror)]) == 0
    assert "already installed" in capsys.readouterr().out
    assert (root / assets.INSTALL_RECORD).stat().st_mtime_ns == stamp


def test_mirror_from_environment(home, mirror, monkeypatch):
    monkeypatch.setenv(assets.MIRROR_ENV, str(mirror))
    assert setup_cli.main([]) == 0
    assert not assets.check()


def test_derived_files_are_deterministic(home, mirror, tmp_path, monkeypatch):
    first = assets.install(mirror).record["files"]
    monkeypatch.setenv(assets.HOME_ENV, str(tmp_path / "other"))
    second = assets.install(mirror).record["files"]
    assert first == second
    assert any(k.startswith("derived/meshes/") for k in first)


def test_check_detects_corrupted_file(home, mirror, capsys):
    robot = assets.install(mirror)
    target = robot.root / "source" / "meshes" / "pelvis.STL"
    data = bytearray(target.read_bytes())
    data[1000] ^= 0xFF
    target.write_bytes(bytes(data))
    assert setup_cli.main(["--check"]) == 1
    assert "hash mismatch for source/meshes/pelvis.STL" in capsys.readouterr().err


def test_check_on_missing_install(home, capsys):
    assert setup_cli.main(["--check"]) == 1
    assert "run htb-setup" in capsys.readouterr().err


def test_hash_mismatch_in_mirror_names_file_and_hashes(home, mirror, capsys):
    bad = mirror / "unitree_g1" / "LICENSE"
    bad.write_text("tampered")
    assert setup_cli.main(["--from", str(mirror)]) == 2
    err = one_line_error(capsys)
    expected = next(e["sha256"] for e in assets.manifest()["files"] if e["path"] == "LICENSE")
    assert "hash mismatch for LICENSE" in err and expected in err and assets.sha256_bytes(b"tampered") in err
    assert not assets.install_dir().exists()


@pytest.mark.parametrize("kind", ["a file", "under a file", "read-only"])
def test_an_unwritable_data_directory_is_one_line_naming_it(home, mirror, monkeypatch, capsys, kind):
    if kind == "read-only" and os.geteuid() == 0:
        pytest.skip("root writes into a read-only directory")
    home.mkdir()
    named = home if kind == "read-only" else home / "file"
    if kind == "read-only":
        home.chmod(0o555)
    else:
        named.write_text("")
        monkeypatch.setenv(assets.HOME_ENV, str(named if kind == "a file" else named / "home"))
    try:
        assert setup_cli.main(["--from", str(mirror)]) == 2
    finally:
        home.chmod(0o755)
    err = one_line_error(capsys)
    assert err.startswith(f"htb-setup: cannot write the robot asset under {assets.data_home()} (")
    assert str(named) in err and err.endswith("; set HTB_HOME to a writable directory")
    assert not (home / "robot").exists()


def test_missing_mirror_directory(home, tmp_path, capsys):
    assert setup_cli.main(["--from", str(tmp_path / "nowhere")]) == 2
    assert "mirror directory not found" in one_line_error(capsys)


def test_file_missing_from_mirror(home, mirror, capsys):
    (mirror / "unitree_g1" / "meshes" / "torso_link.STL").unlink()
    assert setup_cli.main(["--from", str(mirror)]) == 2
    assert "file missing from mirror" in one_line_error(capsys)


def test_download_failure_is_one_line(home, monkeypatch, capsys):
    broken = dict(assets.manifest(), raw_url_template="http://127.0.0.1:9/{path}")
    monkeypatch.setattr(assets, "manifest", lambda: broken)
    assert setup_cli.main([]) == 2
    assert "download failed for" in one_line_error(capsys)


def test_interrupted_install_leaves_nothing_usable(home, mirror, monkeypatch):
    def interrupted(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(derive, "build", interrupted)
    with pytest.raises(KeyboardInterrupt):
        assets.install(mirror)
    root = assets.install_dir()
    assert not root.exists()
    assert not list(root.parent.glob(".install-*"))
    with pytest.raises(assets.AssetError, match="run htb-setup"):
        assets.installed()


def test_outdated_derived_files_ask_for_setup(home, mirror, monkeypatch):
    assets.install(mirror)
    monkeypatch.setattr(derive, "recipe_sha256", lambda variant="assisted": "0" * 64)
    assert any("another version" in p for p in assets.check())
