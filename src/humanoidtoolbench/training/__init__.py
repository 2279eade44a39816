"""Imitation learning of native checkpoints (`htb-train`) from a LeRobot dataset that `htb-dataset` wrote.

`demos` reads a dataset (format v2.1 or v3.0) into arrays and a frame cache
of the policy camera, already resized and cropped as the checkpoint's image
transform says; `imitation` trains ACT on it and writes the checkpoint
layout `htb-eval --model` loads (`run/run_config.json`,
`run/checkpoints/ckpt_STEP/model.safetensors`), resumable from its last
saved step; `curve` draws the learning curve. The image transform and the
bounds normalisation are the inference code's own (`policies.model.transforms`),
so training and evaluation see the same numbers.
"""
