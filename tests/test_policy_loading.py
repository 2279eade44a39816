"""Loading `--policy` references: files, modules, identity attributes, the adapter hash and one-line errors."""

from __future__ import annotations

import sys
import textwrap

import pytest

from humanoidtoolbench.policies.errors import PolicyLoadError
from humanoidtoolbench.policies.loader import load_policy

pytestmark = pytest.mark.no_robot  # builds no simulation: runs offline, with no robot asset


@pytest.fixture(autouse=True)
def forget_imported_modules():
    """Each test imports its policy afresh, as a new process would."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]


def write(path, text: str):
    path.write_text(textwrap.dedent(text))
    return path


def forget(before: set[str]) -> None:
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_file_reference_imports_sibling_helpers_and_hashes_them(tmp_path):
    write(tmp_path / "htb_test_helper.py", "SCALE = 1\n")
    write(tmp_path / "unrelated.py", "X = 1\n")
    policy_file = write(
        tmp_path / "my_policy.py",
        """
        import htb_test_helper

        def predict(request):
            return htb_test_helper.SCALE
        """,
    )
    ref = f"{policy_file}:predict"
    before = set(sys.modules)
    policy = load_policy(ref)
    assert policy.predict({}) == 1
    assert policy.name == "my_policy:predict" and policy.source == ref
    assert policy.file == policy_file.resolve()
    assert not policy.diagnostic and not policy.privileged
    assert str(tmp_path) not in sys.path

    # Loaded again in the same process, the helper module is already imported: it still counts.
    assert load_policy(ref).adapter_sha256 == policy.adapter_sha256
    forget(before)
    write(tmp_path / "unrelated.py", "X = 2\n")
    assert load_policy(ref).adapter_sha256 == policy.adapter_sha256
    forget(before)
    helper = (tmp_path / "htb_test_helper.py").read_text()
    write(tmp_path / "htb_test_helper.py", "SCALE = 2\n")
    assert load_policy(ref).adapter_sha256 != policy.adapter_sha256
    forget(before)
    write(tmp_path / "htb_test_helper.py", helper)  # the same bytes again: the same identity
    assert load_policy(ref).adapter_sha256 == policy.adapter_sha256


def test_relative_file_reference_resolves_from_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub" / "adapter.py", "def act(r):\n    return 7\n")
    monkeypatch.chdir(tmp_path)
    assert load_policy("sub/adapter.py:act").predict({}) == 7


def test_module_reference_prefers_the_current_directory(tmp_path, monkeypatch):
    elsewhere, here = tmp_path / "elsewhere", tmp_path / "here"
    elsewhere.mkdir()
    here.mkdir()
    write(elsewhere / "htb_test_adapter.py", "def predict(r):\n    return 'elsewhere'\n")
    write(here / "htb_test_adapter.py", "def predict(r):\n    return 'here'\n")
    monkeypatch.syspath_prepend(str(elsewhere))
    monkeypatch.chdir(here)
    policy = load_policy("htb_test_adapter:predict")
    assert policy.predict({}) == "here" and policy.name == "htb_test_adapter:predict"


def test_identity_attributes_and_aliases(tmp_path, monkeypatch):
    write(
        tmp_path / "htb_test_named.py",
        """
        POLICY_NAME = "my-vla"
        PRIVILEGED = True

        def predict(request):
            return None
        predict.diagnostic = True
        """,
    )
    monkeypatch.chdir(tmp_path)
    policy = load_policy("short", aliases={"short": "htb_test_named:predict"})
    assert (policy.name, policy.source) == ("my-vla", "short")
    assert policy.diagnostic and policy.privileged


def test_pose_hold_example_identifies_itself_as_diagnostic():
    policy = load_policy("humanoidtoolbench.policies.pose_hold:predict")
    assert policy.name == "pose-hold" and policy.diagnostic and len(policy.adapter_sha256) == 64


@pytest.mark.parametrize(
    "ref, expected",
    [
        ("no_colon", "invalid policy reference 'no_colon'"),
        ("bad-name:predict", "invalid policy reference"),
        ("htb_test_missing_module:predict", "cannot import policy module 'htb_test_missing_module': ModuleNotFoundError: No module named 'htb_test_missing_module'"),
        ("missing.py:predict", "policy file not found: missing.py"),
        ("htb_test_ok:nope", "module 'htb_test_ok' has no function 'nope'"),
        ("htb_test_ok:VALUE", "'htb_test_ok:VALUE' is not callable"),
        ("broken.py:predict", "cannot import policy file 'broken.py': ZeroDivisionError at broken.py:2 in <module>: division by zero"),
        ("syntax.py:predict", "cannot import policy file 'syntax.py': SyntaxError"),
        ("exits.py:predict", "cannot import policy file 'exits.py': SystemExit at exits.py:1 in <module>: 3"),
    ],
)
def test_unloadable_references_raise_one_line(tmp_path, monkeypatch, ref, expected):
    write(tmp_path / "htb_test_ok.py", "VALUE = 3\n")
    write(tmp_path / "exits.py", "raise SystemExit(3)\n")
    write(tmp_path / "broken.py", "X = 1\nY = 1 / 0\n")
    write(tmp_path / "syntax.py", "def predict(:\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PolicyLoadError) as info:
        load_policy(ref)
    message = str(info.value)
    assert message.startswith(expected) and "\n" not in message
