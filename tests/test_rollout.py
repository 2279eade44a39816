"""The one rollout: every chunk the runner or a Gymnasium environment executes is validated by its
contract first (a malformed one fails with the contract's message, before the episode sees it) and
reaches `on_chunk` once, ahead of its rows."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import example_dial
import humanoidtoolbench  # noqa: F401  (registers the environments)
from humanoidtoolbench import suites
from humanoidtoolbench.cli import eval as eval_cli
from humanoidtoolbench.control.contracts.base import ActionError
from humanoidtoolbench.suites.rollout import Rollout

HERE = Path(__file__).resolve().parent
DIAL = example_dial.DIAL_TURN_V1

# A malformed reply of each kind the contracts refuse, as a dial policy's chunk, and the contract's words.
MALFORMED = {
    "wrong-width": ("np.zeros((3, 2))", "must return an array of shape (T, 1) with T >= 1; got shape (3, 2)"),
    "nan": ("np.full((3, 1), np.nan)", "returned NaN or infinite values in 3 of 3 rows (first row 0)"),
    "out-of-bounds": ("np.full((3, 1), 2.0)", "turning rates must lie in [-1, 1]; got 2"),
}


class RecordingDial(example_dial.DialEpisode):
    """The dial episode, logging each `on_chunk` (a copy of the chunk and its metadata) and each row stepped."""

    def __init__(self, condition, seed) -> None:
        super().__init__(condition, seed)
        self.events: list[tuple] = []

    def on_chunk(self, chunk, metadata=None) -> None:
        self.events.append(("chunk", chunk.copy(), metadata))

    def step(self, row):
        self.events.append(("row", row.copy()))
        return super().step(row)


def chunks_then_their_rows(events: list[tuple]) -> list[tuple]:
    """The (chunk, metadata) pairs `events` hold, after checking that each chunk came once, before its
    rows, which then ran in order (the last chunk possibly cut short by the episode's end)."""
    chunks, pending = [], []
    for event in events:
        if event[0] == "chunk":
            assert not pending, "a chunk arrived before the previous one was used up"
            chunks.append(event[1:])
            pending = list(event[1])
        else:
            assert pending, "a row ran with no chunk handed to on_chunk"
            np.testing.assert_array_equal(event[1], pending.pop(0))
    return chunks


def test_a_rollout_validates_each_chunk_hands_it_to_on_chunk_once_and_steps_its_rows():
    episode = RecordingDial(example_dial.DialCondition(), 0)
    episode.reset()
    rollout = Rollout(episode, DIAL)
    assert rollout.needs_request and rollout.requests == 0
    for n in range(3):
        chunk = rollout.accept([[0.1 * n], [0.2], [0.3]], {"request": n})
        assert chunk.dtype == np.float64 and rollout.requests == n + 1
        for k in range(3):
            assert not rollout.needs_request
            row, result = rollout.step()
            np.testing.assert_array_equal(row, chunk[k])
            assert "off_mark" in result.metrics
        assert rollout.needs_request
    chunks = chunks_then_their_rows(episode.events)
    assert [m for _, m in chunks] == [{"request": n} for n in range(3)]
    assert len(episode.events) == 3 + 9


@pytest.mark.parametrize("reply, message", MALFORMED.values(), ids=MALFORMED)
def test_a_malformed_chunk_raises_the_contracts_error_before_the_episode_sees_it(reply, message):
    episode = RecordingDial(example_dial.DialCondition(), 0)
    episode.reset()
    rollout = Rollout(episode, DIAL)
    rollout.accept([[0.5]])
    with pytest.raises(ActionError) as err:
        rollout.accept(eval(reply))
    assert str(err.value) == message
    rollout.step()
    assert rollout.needs_request and rollout.requests == 1  # the refused chunk queued nothing
    assert [e[0] for e in episode.events] == ["chunk", "row"]


@pytest.fixture
def dial(monkeypatch):
    monkeypatch.setenv(suites.ENV_VAR, "example_dial")
    monkeypatch.setenv("PYTHONPATH", f"{HERE}:{':'.join(p for p in sys.path if p)}")
    return suites.get("example-dial")


def write_policy(path: Path, chunk: str) -> Path:
    """A dial policy that turns towards the mark, then answers its second request with `chunk`."""
    path.write_text(
        "import numpy as np\n"
        "from example_dial import turn\n\n"
        "def predict(request):\n"
        "    n = request['humanoidtoolbench_request_index']\n"
        f"    return {{'action': turn(request) if n == 0 else {chunk}, 'metadata': {{'request': n}}}}\n"
    )
    return path


DIAL_RUN = ["example/DialTurn-v0", "--checkpoint", "k", "--episodes", "1", "--no-video", "--workers", "1"]


@pytest.mark.parametrize("reply, message", MALFORMED.values(), ids=MALFORMED)
def test_the_runner_fails_a_malformed_chunk_with_the_contracts_message(dial, tmp_path, capsys, reply, message):
    policy = write_policy(tmp_path / "bad.py", reply)
    out = tmp_path / "out"
    assert eval_cli.main([*DIAL_RUN, "--policy", f"{policy}:predict", "--output", str(out)]) == 1
    [log] = out.glob("DialTurn-v0/run-*/eval_latest.log")
    # Chunks of 3 rows: request 1 is made before step 4.
    failure = f"policy failed on DialTurn-v0 seed 0 at step 4 (request 1): Policy {message}"
    err = capsys.readouterr().err
    assert f"htb-eval: {failure} (details in {log})" in err.splitlines() and "Traceback" not in err


def test_the_runner_hands_each_validated_chunk_to_on_chunk_once_with_its_metadata(dial, tmp_path, monkeypatch):
    episodes = []

    def make_episode(condition, seed, controller, detail, look=None):
        episodes.append(RecordingDial(condition, seed))
        return episodes[-1]

    monkeypatch.setattr(dial, "make_episode", make_episode)
    policy = tmp_path / "meta.py"
    policy.write_text("from example_dial import turn\n\n"
                      "def predict(request):\n"
                      "    return {'action': turn(request), 'metadata': {'request': request['humanoidtoolbench_request_index']}}\n")
    out = tmp_path / "out"
    assert eval_cli.main([*DIAL_RUN, "--policy", f"{policy}:predict", "--output", str(out)]) == 0
    [episode] = episodes
    chunks = chunks_then_their_rows(episode.events)
    [run] = out.glob("DialTurn-v0/run-*")
    summary = json.loads((run / "summaries" / "episode_0.json").read_text())
    calls = [json.loads(line) for line in (run / "policy" / "episode_0.jsonl").read_text().splitlines()]
    assert summary["outcome"] == "success" and len(chunks) == summary["policy_requests"] == len(calls) > 1
    assert [m for _, m in chunks] == [c["metadata"] for c in calls] == [{"request": n} for n in range(len(calls))]
    executed = np.load(run / "steps" / "episode_0" / "action.npy")
    np.testing.assert_array_equal(executed, np.concatenate([c for c, _ in chunks])[: summary["step"]])


# -- the Gymnasium environments --------------------------------------------------------------------


def test_the_tool_use_environment_refuses_a_malformed_action_with_the_contracts_message():
    env = gymnasium.make("humanoidtoolbench/G1BallMove-L0-S", controller="assisted")
    obs, _ = env.reset(seed=10000)
    hold = np.concatenate([obs["state"][:31], [0.74, 0.0, 0.0, 0.0, 0.0]])
    with pytest.raises(ActionError, match=r"^must return an array of shape \(T, 36\) with T >= 1; got shape \(1, 35\)$"):
        env.step(hold[:35])
    with pytest.raises(ActionError, match=r"^returned NaN or infinite values in 1 of 1 rows \(first row 0\)$"):
        env.step(np.where(np.arange(36) == 3, np.nan, hold))
    seen = []
    episode = env.unwrapped.episode
    on_chunk = episode.on_chunk
    episode.on_chunk = lambda chunk, metadata=None: (seen.append(chunk.copy()), on_chunk(chunk, metadata))
    for k in range(2):
        hold[31] = 0.72 - 0.01 * k
        obs, _, _, _, info = env.step(hold.astype(np.float32))
    assert info["step"] == 2  # the refused actions never ran
    assert [c.shape for c in seen] == [(1, 36)] * 2 and seen[1][0, 31] == np.float32(0.71)
    assert obs["state"][31] == np.float32(0.71)  # on_chunk's slot 31, reported back
    env.close()


def test_the_fiatlux_environment_refuses_an_action_outside_its_box_instead_of_clipping_it():
    env = gymnasium.make("FIATLUX-S07-ApproachNewBulb-v0", vision=False)
    env.reset(seed=0)
    action = np.zeros(43, np.float32)
    action[5] = 1.5
    with pytest.raises(ActionError, match=r"^actions must lie in \[-1, 1\]; got shape \(1, 43\), dtype float64 with max \|a\| 1.5$"):
        env.step(action)
    _, _, _, _, info = env.step(np.clip(action, -1.0, 1.0))
    assert info["step"] == 1
    env.close()
