"""What training ACT and running it cost on this machine: training samples/s, inference time per control step.

    python benchmarks/train_speed.py [--dataset DIR] [--steps 30] [--threads N] [--device cpu|cuda]
                                      [--backbone resnet|efficientnet_lite0] [--image-size 108,192]

Trains `htb-train`'s default ACT (or the named backbone and resolution) for
`--steps` steps of batch `--batch-size` on `--dataset` (default: a
generated 4-episode dataset, since samples/s does not depend on the
pictures) and prints the median samples/s after the first few steps (warm
caches). Then it loads the checkpoint through `--model`'s own loader and
times `predict` on a rendered-size request: a request returns one chunk of
`chunk_size` rows, so the cost per control step is the request's time
divided by the chunk. The frame cache is built before timing. The last line
is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from humanoidtoolbench.policies.model import keep_triton_out

keep_triton_out()
import torch  # noqa: E402

from humanoidtoolbench.policies.model.device import Device  # noqa: E402
from humanoidtoolbench.policies.model.load import load  # noqa: E402
from humanoidtoolbench.policies.model.resolve import resolve  # noqa: E402
from humanoidtoolbench.control.contracts.decoupled_v1 import ACTION_SLOTS, STATE_SLOTS  # noqa: E402
from humanoidtoolbench.record.lerobot_dataset import DatasetSpec, DemoEpisode, write_dataset  # noqa: E402
from humanoidtoolbench.record.video import VideoWriter  # noqa: E402
from humanoidtoolbench.training.demos import read_demos  # noqa: E402
from humanoidtoolbench.training.imitation import TrainConfig, train  # noqa: E402

H, W = 360, 640
INSTRUCTION = "Pick the tool for moving the ball to the target."


def generated(root: Path, episodes: int = 4, length: int = 60) -> Path:
    rng = np.random.default_rng(0)
    eps = []
    for e in range(episodes):
        video = root.parent / f"gen-{e}.mp4"
        writer = VideoWriter(video, W, H)
        for _ in range(length + 1):
            writer.write(rng.integers(0, 256, (H, W, 3), dtype=np.uint8))
        writer.close()
        eps.append(DemoEpisode(INSTRUCTION, rng.normal(0, 0.3, (length, 32)).astype(np.float32),
                               rng.normal(0, 0.3, (length, 36)).astype(np.float32), {"head_stereo_left": video}))
    write_dataset(root, DatasetSpec(50, "unitree_g1_dex3", ("head_stereo_left",), STATE_SLOTS, ACTION_SLOTS), eps, {})
    return root


class Timer:
    """Collects the trainer's per-log samples/s."""

    def __init__(self) -> None:
        self.rates: list[float] = []

    def stage(self, *a, **k) -> None:
        pass

    def advance(self, *a) -> None:
        pass

    def update(self, step, loss, samples_per_s) -> None:
        self.rates.append(samples_per_s)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset")
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=TrainConfig.batch_size)
    p.add_argument("--threads", type=int)
    p.add_argument("--device", default="cpu")
    p.add_argument("--backbone", default=TrainConfig.backbone)
    p.add_argument("--image-size", default=",".join(map(str, TrainConfig.image_size)))
    p.add_argument("--requests", type=int, default=20)
    args = p.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    size = tuple(int(v) for v in args.image_size.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        dataset = Path(args.dataset) if args.dataset else generated(tmp / "demos")
        demos = read_demos(dataset, TrainConfig.camera)
        cfg = TrainConfig(steps=args.steps, batch_size=args.batch_size, log_every=1, save_every=args.steps, device=args.device,
                          backbone=args.backbone, image_size=size, warmup_steps=1)
        timer = Timer()
        train(demos, cfg, tmp / "run", timer)
        warm = timer.rates[min(5, len(timer.rates) - 1):]
        rate = statistics.median(warm)
        policy, info = load(resolve(str(tmp / "run")), Device(args.device))
        rng = np.random.default_rng(1)
        request = {"image": {"rgb_head_stereo_left": rng.integers(0, 256, (H, W, 3), dtype=np.uint8)},
                   "state": {"states": np.zeros((1, 32), np.float32)}, "instruction": demos.tasks[0], "history": {"reset": True}}
        policy.predict(request)
        times = []
        for _ in range(args.requests):
            t = time.perf_counter()
            policy.predict(request)
            times.append(time.perf_counter() - t)
    per_request = statistics.median(times) * 1e3
    chunk = info["chunk_size"]
    print(f"device {args.device}, torch threads {torch.get_num_threads()}, backbone {args.backbone}, image {size[0]}x{size[1]}, "
          f"batch {args.batch_size}")
    print(f"training: {rate:.1f} samples/s (median of steps {min(5, len(timer.rates) - 1) + 1}..{args.steps})")
    print(f"inference: {per_request:.1f} ms per request of {chunk} rows = {per_request / chunk:.2f} ms per control step")
    print(json.dumps({"device": args.device, "threads": torch.get_num_threads(), "backbone": args.backbone, "image_size": list(size),
                      "batch_size": args.batch_size, "train_samples_per_s": round(rate, 2), "infer_ms_per_request": round(per_request, 3),
                      "chunk_size": chunk, "infer_ms_per_step": round(per_request / chunk, 4)}))


if __name__ == "__main__":
    sys.exit(main())
