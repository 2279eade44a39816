"""The tool-use suite behind the Suite seam records the same bytes as before the move.

The reference holds the SHA-256 of every metrics file and video, and the
outcome and step, of the expert on seeds 10000-10002 of each scenario at L1,
recorded by the evaluator before the suite moved into `suites/toolbench`, on the
`assisted` controller (then the protocol's default, now chosen by name).
Outcomes and steps are compared everywhere. Bytes are compared where the run's
own `execution_environment` names the platform the reference was made on (the
machine and the SIMD extensions numpy dispatches to): another CPU,
with the same pinned packages, gave the same outcomes and steps but other bytes
(numpy and BLAS pick their kernels by CPU).
Video bytes depend on the renderer and encoder build as well, so they are
compared only where the renderer is the Mesa llvmpipe the reference was made on,
and only in the look the reference was drawn in (`fast`, the flat colours of
that time). Each condition also runs in the protocol's look: its outcomes,
steps and metrics files must match the same reference, since a look changes
no physics.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from humanoidtoolbench.cli import eval as eval_cli

REFERENCE = json.loads((Path(__file__).parent / "data" / "toolbench_l1_reference.json").read_text())


REFERENCE_LOOK = "fast"  # the look the reference videos were drawn in


@pytest.mark.slow
@pytest.mark.parametrize("look", [None, REFERENCE_LOOK])
@pytest.mark.parametrize("condition", sorted(REFERENCE["conditions"]))
def test_expert_files_are_byte_identical_to_the_reference(condition, look, tmp_path):
    expected = REFERENCE["conditions"][condition]
    out = tmp_path / "out"
    args = [condition, "--policy", "expert", "--episodes", "3", "--controller", "assisted", "--output", str(out), "--workers", "2"]
    assert eval_cli.main(args + (["--look", look] if look else [])) == 0
    [result_path] = out.glob(f"{condition}/run-*/benchmark_result.json")
    run = result_path.parent
    result = json.loads(result_path.read_text())
    assert result["look"] == (look or "standard")
    outcomes = {str(o["seed"]): o for o in result["outcomes"]}
    env = result["execution_environment"]  # the run says where it ran
    same_platform = {k: env[k] for k in REFERENCE["platform"]} == REFERENCE["platform"]
    same_renderer = same_platform and "llvmpipe" in (env["render"].get("renderer") or "") and result["look"] == REFERENCE_LOOK
    for seed, ref in expected.items():
        assert (outcomes[seed]["outcome"], outcomes[seed]["step"]) == (ref["outcome"], ref["step"])
        for rel, digest in ref["sha256"].items():
            if not (same_renderer if rel.startswith("videos/") else same_platform):
                continue
            assert hashlib.sha256((run / rel).read_bytes()).hexdigest() == digest, rel
