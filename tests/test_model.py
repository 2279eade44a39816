"""`--model`: checkpoint resolution, family detection and contract checks, transforms, the DDPM sampler,
seeded DP noise, and tiny ACT / DP / LeRobot checkpoints evaluated end to end in process, through
`htb-serve --model`, and from an offline hub cache."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="--model needs the model extra (torch)")
pytest.importorskip("safetensors", reason="--model needs the model extra (safetensors)")
pytest.importorskip("transformers", reason="--model needs the model extra (transformers)")

from humanoidtoolbench.cli import eval as eval_cli  # noqa: E402
from humanoidtoolbench.policies.model import ModelError, load, require, resolve  # noqa: E402
from humanoidtoolbench.policies.model.device import Device, egl_device_for, match_renderer, normalise_pci  # noqa: E402
from humanoidtoolbench.policies.model.native import EpisodeCounter  # noqa: E402
from humanoidtoolbench.policies.model.runconfig import ImageTransform  # noqa: E402
from humanoidtoolbench.policies.model.scheduler import DDPM  # noqa: E402
from humanoidtoolbench.policies.model.text import CachedEncoder  # noqa: E402
from humanoidtoolbench.policies.model.transforms import Bounds, nearest_indices, preprocess  # noqa: E402
from humanoidtoolbench.policies.reply import EPISODE_SEED_KEY, REQUEST_INDEX_KEY  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
import tiny_models  # noqa: E402

FAST = ["--episodes", "1", "--max-steps", "12", "--no-video"]


@pytest.fixture(scope="module")
def hub_cache(tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("hub")
    tiny_models.tiny_clip(cache)
    return cache


@pytest.fixture
def offline(hub_cache, monkeypatch) -> Path:
    """The test's hub cache, offline, for this process and the servers it starts."""
    import huggingface_hub.constants as constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(hub_cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setenv("HF_HUB_CACHE", str(hub_cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return hub_cache


@pytest.fixture(scope="module")
def repos(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    return {family: tiny_models.native_repo(root / family, family, ema=family == "dp") for family in ("act", "dp")}


def request(image_seed: int = 0, reset: bool = True, **keys) -> dict:
    image = np.random.default_rng(image_seed).integers(0, 256, (360, 640, 3), dtype=np.uint8)
    return {"image": {"rgb_head_stereo_left": image}, "state": {"states": np.zeros((1, 32), np.float32)},
            "instruction": "push the ball into the ring", "history": {"reset": reset}, **keys}


def result_of(out: Path) -> dict:
    [path] = sorted(out.glob("G1BallMove-L0-S/run-*/benchmark_result.json"))
    return json.loads(path.read_text())


def one_line_exit_2(args, capsys) -> str:
    assert eval_cli.main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("htb-eval: "), err
    return err


# --- which files a --model argument means -----------------------------------------------------------


def fake_repo(root: Path, steps=(900, 10000), files=("model.safetensors",), config=None) -> Path:
    run = root / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "run_config.json").write_text(json.dumps(config or tiny_models.run_config("act")))
    for step in steps:
        ckpt = run / "checkpoints" / f"ckpt_{step}"
        ckpt.mkdir()
        for name in files:
            (ckpt / name).write_bytes(f"{step}/{name}".encode())
    return root


def test_a_repository_or_run_directory_selects_the_highest_numeric_step(tmp_path):
    repo = fake_repo(tmp_path / "repo")
    for path in (repo, repo / "run"):
        model = resolve.resolve(str(path))
        assert model.step == 10000 and model.weights_path == repo / "run/checkpoints/ckpt_10000/model.safetensors"
        assert model.config_path == repo / "run/run_config.json" and model.layout == "native"


def test_a_directory_prefers_ema_weights_and_an_explicit_file_loads_exactly_that_file(tmp_path):
    repo = fake_repo(tmp_path / "repo", files=("model.safetensors", "ema_net.pth"))
    ckpt = repo / "run/checkpoints/ckpt_900"
    assert resolve.resolve(str(repo)).weights_path.name == "ema_net.pth"
    assert resolve.resolve(str(ckpt)).weights_path == ckpt / "ema_net.pth"
    explicit = resolve.resolve(str(ckpt / "model.safetensors"))
    assert explicit.weights_path == ckpt / "model.safetensors" and explicit.step == 900


def test_weights_without_their_configuration_are_refused(tmp_path):
    lone = tmp_path / "model.safetensors"
    lone.write_bytes(b"w")
    with pytest.raises(ModelError, match="a weight file without its configuration"):
        resolve.resolve(str(lone))
    repo = fake_repo(tmp_path / "repo")
    (repo / "run/run_config.json").unlink()
    with pytest.raises(ModelError, match="no run_config.json"):
        resolve.resolve(str(repo))
    with pytest.raises(ModelError, match="no such file or directory"):
        resolve.resolve(str(tmp_path / "nowhere"))


def test_revision_is_for_hub_ids_only(tmp_path):
    repo = fake_repo(tmp_path / "org")
    with pytest.raises(ModelError, match="--revision selects a hub revision"):
        resolve.resolve(str(repo), revision="main")
    assert resolve.looks_like_hub_id("snupilab/humanoidtoolbench-act-sim-3003")
    assert not resolve.looks_like_hub_id(str(repo))


@pytest.mark.parametrize(
    "edit, fragment",
    [
        (lambda c: c["model"].update(num_diffusion_iters=100, action_chunk_size=16), "contradictory model section: it has the keys of ACT and DP"),
        (lambda c: c.update(model={"hidden": 3}), "names no known family (expected ACT: chunk_size + dim_model; DP: num_diffusion_iters + action_chunk_size; PPO: actor_hidden_dims + observation_keys)"),
        (lambda c: c["model"].update(action_dim=35), "action_dim 35 != 36"),
        (lambda c: c["model"].update(n_action_steps=5), "chunk_size 10 != n_action_steps 5"),
        (lambda c: c["data"]["transform"]["field"].update(state_min=[0.0] * 32), "state_min/max need 36 values, got 32/36"),
        (lambda c: c["data"].pop("transform"), "Object missing required field `transform`"),
    ],
)
def test_a_missing_or_contradictory_run_config_is_one_line_and_exit_2(tmp_path, capsys, edit, fragment):
    config = tiny_models.run_config("act")
    edit(config)
    repo = fake_repo(tmp_path / "repo", config=config)
    err = one_line_exit_2(["--model", str(repo), *FAST, "--output", str(tmp_path / "out")], capsys)
    assert fragment in err


def test_dp_contract_is_16_actions_and_100_denoising_steps(tmp_path, capsys):
    for key, value, fragment in (("action_chunk_size", 8, "action_chunk_size 8 != 16"), ("num_diffusion_iters", 50, "num_diffusion_iters 50 != 100")):
        config = tiny_models.run_config("dp")
        config["model"][key] = value
        repo = fake_repo(tmp_path / key, config=config)
        with pytest.raises(ModelError, match=fragment):
            load.load(resolve.resolve(str(repo)), Device("cpu"))


def test_unreadable_run_config_is_one_line(tmp_path, capsys):
    repo = fake_repo(tmp_path / "repo")
    (repo / "run/run_config.json").write_text("{not json")
    assert "not readable JSON" in one_line_exit_2(["--model", str(repo), "--dry-run"], capsys)


def test_model_flags_are_checked(tmp_path, capsys):
    repo = fake_repo(tmp_path / "repo")
    assert "--policy and --model are alternative" in one_line_exit_2(["--model", str(repo), "--policy", "zero"], capsys)
    assert "--revision goes with --model" in one_line_exit_2(["--policy", "zero", "--revision", "main"], capsys)
    assert "--device must be auto, cpu or cuda:N" in one_line_exit_2(["--model", str(repo), "--device", "gpu"], capsys)
    assert ("the fiatlux suite on servo takes joint_position_v1 and sends fiatlux_request_v1 requests, without "
            "image.rgb_head_stereo_left") in one_line_exit_2(["S01", "--model", str(repo)], capsys)
    # On balanced Fiatlux takes decoupled_v1 commands, but sends another camera's image than the model reads.
    assert "the fiatlux suite on balanced sends fiatlux_request_v1 requests, without image.rgb_head_stereo_left" in one_line_exit_2(
        ["S07", "--model", str(repo), "--controller", "balanced"], capsys
    )


def test_dry_run_resolves_a_local_path_and_never_downloads(tmp_path, capsys, monkeypatch):
    from humanoidtoolbench.policies.model import hub

    monkeypatch.setattr(hub, "snapshot", lambda *a: pytest.fail("a dry run downloaded"))
    assert eval_cli.main(["--model", str(fake_repo(tmp_path / "repo")), "--dry-run"]) == 0
    assert "ACT step 10000" in capsys.readouterr().out
    assert eval_cli.main(["--model", "org/some-model", "--revision", "v1", "--dry-run"]) == 0
    assert "hub revision v1 (not downloaded or loaded in a dry run)" in capsys.readouterr().out


def test_without_the_model_extra_the_error_names_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "lerobot", None)
    with pytest.raises(ModelError, match=r'pip install "humanoidtoolbench\[model\]"'):
        require("lerobot")


# --- transforms, sampler, determinism ---------------------------------------------------------------


def test_bounds_round_trip_and_zero_width_dimensions():
    b = Bounds(np.array([-1.0, 0.0, 0.74]), np.array([3.0, 2.0, 0.74]))
    x = np.array([[1.0, 0.5, 0.74], [3.0, 0.0, 0.74]])
    assert np.allclose(b.normalise(x), [[0.0, -0.5, 0.0], [1.0, -1.0, 0.0]])
    assert np.allclose(b.unnormalise(b.normalise(x)), x)


def test_image_transform_samples_nearest_pixels_then_crops_the_centre():
    assert nearest_indices(360, 72).tolist() == [2 + 5 * i for i in range(72)]  # floor((i + 0.5) * 5)
    rows, cols = np.meshgrid(np.arange(360), np.arange(640), indexing="ij")
    image = np.stack([rows % 256, cols % 256, (cols // 256) * 100], -1).astype(np.uint8)
    t = ImageTransform(resize=(72, 128), center_crop=(64, 112), mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0))
    out = preprocess(image, t)
    assert out.shape == (3, 64, 112) and out.dtype == np.float32
    # Crop offsets (72-64)/2 = 4 rows and (128-112)/2 = 8 columns into the 5x-subsampled grid.
    assert round(out[0, 0, 0] * 255) == 2 + 5 * 4 and round(out[1, 0, 0] * 255) == 2 + 5 * 8
    assert round(out[0, 63, 0] * 255) == (2 + 5 * 67) % 256


def test_ddpm_with_the_true_noise_recovers_the_sample():
    sched = DDPM(100, "squaredcos_cap_v2", 100, clip=1.0, prediction="epsilon")
    x0 = torch.linspace(-0.9, 0.9, 16 * 36).reshape(1, 16, 36)
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(x0.shape, generator=gen)
    for t in sched.timesteps:
        ab = sched.alphas_cumprod[t].item()
        eps = (x - ab**0.5 * x0) / (1 - ab) ** 0.5  # what a perfect network predicts
        x = sched.step(eps, t, x, torch.randn(x0.shape, generator=gen))
    assert torch.allclose(x, x0, atol=1e-4)


class Counting:
    dim = tiny_models.TEXT_DIM

    def __init__(self):
        self.calls = []

    def encode(self, text):
        self.calls.append(text)
        return np.full(self.dim, len(text), np.float32)


def test_text_embeddings_are_computed_once_per_instruction():
    inner = Counting()
    enc = CachedEncoder(inner)
    for text in ("a", "b", "a", "a"):
        enc.encode(text)
    assert inner.calls == ["a", "b"]


def test_dp_noise_is_seeded_by_episode_and_request(repos, offline):
    model = resolve.resolve(str(repos["dp"]))
    policy, info = load.load(model, Device("cpu"))
    assert info["model"]["weights_file"] == "ema_net.pth" and policy.predict.chunk_size == 16

    def chunk(**keys):
        return policy.predict(request(**keys))

    a = chunk(**{EPISODE_SEED_KEY: 10000, REQUEST_INDEX_KEY: 3})
    b = chunk(**{EPISODE_SEED_KEY: 10000, REQUEST_INDEX_KEY: 3})
    c = chunk(**{EPISODE_SEED_KEY: 10000, REQUEST_INDEX_KEY: 4})
    assert np.array_equal(a["action"], b["action"]) and a["metadata"] == b["metadata"]
    assert not np.array_equal(a["action"], c["action"])
    assert a["action"].shape == (16, 36) and np.all(a["action"][:, 31] == 0.74)
    # Over HTTP no seed is sent: the episode is its first observation, the index counts requests since reset.
    first = [chunk(reset=True)["action"], chunk(reset=False)["action"]]
    again = [chunk(reset=True)["action"], chunk(reset=False)["action"]]
    assert all(np.array_equal(x, y) for x, y in zip(first, again)) and not np.array_equal(*first)


def test_the_counter_numbers_requests_from_each_reset():
    counter = EpisodeCounter("rgb_head_stereo_left")
    keys = [counter(request(reset=r)) for r in (True, False, False, True)]
    assert [k[1] for k in keys] == [0, 1, 2, 0] and keys[0][0] == keys[3][0]
    assert counter(request(**{EPISODE_SEED_KEY: 7, REQUEST_INDEX_KEY: 2})) == ("seed:7", 2)


# --- end to end ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("family", ["act", "dp"])
def test_tiny_model_end_to_end_in_process(family, repos, offline, tmp_path, capsys):
    out = tmp_path / "out"
    args = ["--model", str(repos[family]), "--device", "cpu", *FAST, "--output", str(out)]
    assert eval_cli.main(args) == 0
    result = result_of(out)
    info = result["policy_info"]
    weights = repos[family] / "run/checkpoints/ckpt_2000" / ("ema_net.pth" if family == "dp" else "model.safetensors")
    assert result["status"] == "validated" and info["policy"] == f"model:{family}"
    assert info["model"]["family"] == family and info["model"]["step"] == 2000
    assert info["weights_sha256"] == resolve.file_sha256(weights) == info["checkpoint"].removeprefix("sha256:")
    assert info["config_sha256"] == resolve.file_sha256(repos[family] / "run/run_config.json")
    assert info["chunk_size"] == (10 if family == "act" else 16)
    steps = np.load(next(out.glob("G1BallMove-L0-S/run-*/steps/episode_10000/action.npy")))
    # Un-normalised through the bounds: slot 31's zero-width bound is the standing height; DP's clipped
    # samples stay inside the joint bounds (ACT's linear head may leave them).
    assert steps.shape == (12, 36) and np.allclose(steps[:, 31], 0.74)
    assert family == "act" or np.all(np.abs(steps[:, :31]) <= 0.2 + 1e-6)
    # The same command reuses the result; another checkpoint of the same run does not resume it.
    assert eval_cli.main(args) == 0
    assert "reusing validated result" in capsys.readouterr().err
    other = ["--model", str(repos[family] / "run/checkpoints/ckpt_100"), *args[2:]]
    assert eval_cli.main(other) == 0
    assert "policy weights_sha256 changed" in capsys.readouterr().err
    assert len(list(out.glob("G1BallMove-L0-S/run-*"))) == 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("family", ["act", "dp"])
def test_tiny_model_end_to_end_through_htb_serve(family, repos, offline, tmp_path):
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(eval_cli.__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "humanoidtoolbench.cli.serve", "--model", str(repos[family]), "--device", "cpu", "--port", str(port)]
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("serving policy 'model:"), line + server.stdout.read() if server.poll() is not None else line
        out = tmp_path / "out"
        assert eval_cli.main(["--host", "127.0.0.1", "--port", str(port), *FAST, "--output", str(out)]) == 0
    finally:
        server.terminate()
        server.wait(timeout=30)
    info = result_of(out)["policy_info"]
    assert info["transport"] == "http" and info["policy"] == f"model:{family}"
    assert info["weights_sha256"] == info["model"]["weights_sha256"] and info["checkpoint"].startswith("sha256:")


def test_a_ppo_checkpoint_is_served_for_fiatlux_and_refused_by_the_tool_use_suite(tmp_path, capsys):
    """The fit of a model to a suite is the model's contract and request fields against the suite's: a PPO actor
    of Fiatlux's state vector serves Fiatlux (servo, joint_position_v1) and is refused by tool use in one line."""
    import gymnasium as gym

    from humanoidtoolbench.cli import serve as serve_cli
    from humanoidtoolbench.suites.fiatlux.suite import SUITE as FIATLUX
    from humanoidtoolbench.suites.fiatlux.subtasks import BY_KEY

    with gym.make(BY_KEY["S01"].env_id) as env:
        width = env.observation_space["state"].shape[0]
    repo = tiny_models.ppo_repo(tmp_path / "ppo", width, FIATLUX.action_contract("servo").action_dim)
    assert serve_cli.main(["--model", str(repo)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("htb-serve: --model: this PPO model answers joint_position_v1 and reads state.states; "
                                     "the toolbench suite on balanced takes decoupled_v1") in err
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(eval_cli.__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "humanoidtoolbench.cli.serve", "--suite", "fiatlux", "--model", str(repo), "--device", "cpu",
           "--port", str(port)]
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("serving policy 'model:ppo'"), line + server.stdout.read() if server.poll() is not None else line
        out = tmp_path / "out"
        assert eval_cli.main(["S01", "--host", "127.0.0.1", "--port", str(port), *FAST, "--output", str(out)]) == 0
    finally:
        server.terminate()
        server.wait(timeout=30)
    [path] = out.glob("*/run-*/benchmark_result.json")
    info = json.loads(path.read_text())["policy_info"]
    assert info["policy"] == "model:ppo" and info["transport"] == "http" and info["checkpoint"].startswith("sha256:")


def test_an_uncached_text_encoder_offline_is_one_line(tmp_path, offline, capsys):
    config = tiny_models.run_config("act")
    config["language"]["encoder"] = "htb-test/not-cached"
    repo = tiny_models.native_repo(tmp_path / "repo", "act", steps=(1,), config=config)
    err = one_line_exit_2(["--model", str(repo), "--device", "cpu", *FAST, "--output", str(tmp_path / "out")], capsys)
    assert "cannot load the text encoder htb-test/not-cached@" in err


def test_hub_model_resolves_offline_with_its_revision_and_hashes(repos, offline, tmp_path, capsys):
    commit = "a" * 40
    snapshot = tiny_models.hub_repo(offline, "htb-test/tiny-act", commit, repos["act"])
    out = tmp_path / "out"
    args = ["--model", "htb-test/tiny-act", "--device", "cpu", *FAST, "--output", str(out)]
    assert eval_cli.main([*args, "--revision", commit]) == 0
    info = result_of(out)["policy_info"]
    assert info["checkpoint"] == f"htb-test/tiny-act@{commit}"
    assert info["model"]["repo_id"] == "htb-test/tiny-act" and info["model"]["commit"] == commit and info["model"]["revision"] == commit
    assert info["weights_sha256"] == resolve.file_sha256(snapshot / "run/checkpoints/ckpt_2000/model.safetensors")
    # A revision the cache does not hold, offline: one line.
    capsys.readouterr()
    err = one_line_exit_2([*args, "--revision", "v9"], capsys)
    assert "cannot download model htb-test/tiny-act@v9: no network connection" in err


# --- LeRobot ------------------------------------------------------------------------------------------


def lerobot_act(root: Path) -> Path:
    """A tiny LeRobot ACT policy saved as LeRobot's training does: `root/outputs/checkpoints/004000/pretrained_model`."""
    pytest.importorskip("lerobot", reason="LeRobot checkpoints need lerobot (the model extra)")
    from lerobot.configs.types import FeatureType, NormalizationMode, PolicyFeature
    from lerobot.policies.act.configuration_act import ACTConfig
    from lerobot.policies.act.modeling_act import ACTPolicy

    config = ACTConfig(
        input_features={
            "observation.images.head": PolicyFeature(FeatureType.VISUAL, (3, 48, 80)),
            "observation.state": PolicyFeature(FeatureType.STATE, (36,)),
        },
        output_features={"action": PolicyFeature(FeatureType.ACTION, (36,))},
        chunk_size=8, n_action_steps=8, dim_model=32, n_heads=2, dim_feedforward=64, n_encoder_layers=1,
        n_decoder_layers=1, use_vae=False, pretrained_backbone_weights=None, device="cpu",
        normalization_mapping={"VISUAL": NormalizationMode.IDENTITY, "STATE": NormalizationMode.IDENTITY, "ACTION": NormalizationMode.IDENTITY},
    )
    torch.manual_seed(0)
    pretrained = root / "outputs/checkpoints/004000/pretrained_model"
    ACTPolicy(config).save_pretrained(pretrained)
    return pretrained


def test_lerobot_act_checkpoint_end_to_end(tmp_path, offline):
    pretrained = lerobot_act(tmp_path)
    model = resolve.resolve(str(tmp_path / "outputs"))
    assert model.layout == "lerobot" and model.step == 4000
    out = tmp_path / "out"
    assert eval_cli.main(["--model", str(pretrained), "--device", "cpu", *FAST, "--output", str(out)]) == 0
    info = result_of(out)["policy_info"]
    assert info["policy"] == "model:lerobot" and info["chunk_size"] == 8
    assert info["weights_sha256"] == resolve.file_sha256(pretrained / "model.safetensors")


def test_what_lerobot_and_its_libraries_log_or_warn_goes_to_the_run_log_not_the_terminal(tmp_path, offline, capfd, monkeypatch):
    import logging
    import warnings

    pretrained = lerobot_act(tmp_path)
    from lerobot.policies.act.modeling_act import ACTPolicy

    config = pretrained / "config.json"  # a device this machine lacks: LeRobot logs that it switches while loading
    config.write_text(json.dumps({**json.loads(config.read_text()), "device": "mps"}))
    said = ["htb-test: a warning while acting", "htb-test: torch logs while acting", "htb-test: the hub logs while acting"]
    select_action = ACTPolicy.select_action

    def noisy(self, batch):
        warnings.warn(said[0])
        logging.getLogger("torch").warning(said[1])
        logging.getLogger("huggingface_hub").warning(said[2])
        return select_action(self, batch)

    monkeypatch.setattr(ACTPolicy, "select_action", noisy)
    out = tmp_path / "out"
    capfd.readouterr()
    assert eval_cli.main(["--model", str(pretrained), "--device", "cpu", *FAST, "--output", str(out)]) == 0
    err = capfd.readouterr().err
    assert "htb-test" not in err and "mps" not in err, err
    [log] = out.glob("G1BallMove-L0-S/run-*/eval_latest.log")
    text = log.read_text()
    assert "Device 'mps' is not available" in text and all(line in text for line in said), text


# --- devices ------------------------------------------------------------------------------------------


def test_pci_addresses_of_nvidia_smi_and_sysfs_agree():
    assert normalise_pci("00000000:3B:00.0") == normalise_pci("0000:3b:00.0") == "0000:3b:00.0"


def test_the_renderer_follows_the_policy_gpu_by_uuid(monkeypatch):
    import humanoidtoolbench.policies.model.device as device

    # CUDA_VISIBLE_DEVICES=1,0 makes cuda:0 the second physical GPU; EGL lists a software device first.
    gpus = {"GPU-aaa": "0000:17:00.0", "GPU-bbb": "0000:65:00.0"}
    egl = [None, "0000:17:00.0", "0000:65:00.0"]
    monkeypatch.setattr(device, "cuda_uuid", lambda index: ["GPU-bbb", "GPU-aaa"][index])
    environ = {"MUJOCO_GL": "egl"}
    assert match_renderer(Device("cuda:0"), environ, gpus, egl) == 2 and environ["MUJOCO_EGL_DEVICE_ID"] == "2"
    assert match_renderer(Device("cpu"), environ, gpus, egl) is None
    with pytest.raises(ModelError, match="MUJOCO_EGL_DEVICE_ID=1 is not the policy's GPU GPU-bbb"):
        match_renderer(Device("cuda:0"), {"MUJOCO_GL": "egl", "MUJOCO_EGL_DEVICE_ID": "1"}, gpus, egl)
    with pytest.raises(ModelError, match="no EGL device at PCI 0000:65:00.0"):
        egl_device_for("GPU-bbb", gpus, [None, "0000:17:00.0"])


def test_a_cuda_device_torch_cannot_see_is_one_line():
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    with pytest.raises(ModelError, match="--device cuda:0: torch sees 0 CUDA device"):
        Device.parse("cuda:0").torch()


def test_model_libraries_load_after_the_renderer_has_drawn():
    """Mesa's EGL and Triton each bring an LLVM: a model loaded after a render must not crash the process."""
    script = (
        "import humanoidtoolbench, mujoco\n"
        "m = mujoco.MjModel.from_xml_string(\"<mujoco><worldbody><light pos='0 0 2'/><geom size='.1'/></worldbody></mujoco>\")\n"
        "d = mujoco.MjData(m); r = mujoco.Renderer(m, 32, 32); mujoco.mj_forward(m, d); r.update_scene(d)\n"
        "assert r.render().any(); r.close()\n"
        "from humanoidtoolbench.policies.model import require\n"
        "tv = require('torchvision')\n"
        "print(tv.models.resnet18(weights=None).eval()(require('torch').zeros(1, 3, 32, 32)).shape)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-500:]
    assert "torch.Size([1, 1000])" in done.stdout


def test_a_tiny_model_served_over_openpi_is_scored_over_openpi(repos, offline, tmp_path):
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(eval_cli.__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "humanoidtoolbench.cli.serve", "--protocol", "openpi", "--model", str(repos["act"]),
           "--device", "cpu", "--port", str(port)]
    server = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = server.stdout.readline()
        assert line.startswith("serving policy 'model:act'") and f"ws://127.0.0.1:{port}" in line, line
        out = tmp_path / "out"
        assert eval_cli.main(["--host", "127.0.0.1", "--port", str(port), "--protocol", "openpi", *FAST, "--output", str(out)]) == 0
    finally:
        server.terminate()
        server.wait(timeout=30)
    info = result_of(out)["policy_info"]
    assert info["transport"] == "openpi" and info["policy"] == "model:act"
    assert info["weights_sha256"] == info["model"]["weights_sha256"] and info["checkpoint"].startswith("sha256:")
