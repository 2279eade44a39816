"""The learning curve of a PPO run: what RSL-RL's logger reports per iteration, kept as rows and plotted.

`CurveWriter` is an RSL-RL `LogWriter`: each iteration's scalars (the mean
return, length and per-term reward sums of the episodes that ended in it,
the losses, the action noise) become one row of `curve.json`, with the
environment steps done by the end of that iteration. `plot` draws the mean
return and every reward term against steps as an SVG with matplotlib (no
browser or image server needed): each iteration's value faint, its mean
over the last `SMOOTH` iterations solid; terms that were zero throughout are
named in the caption instead of drawn. `python -m
humanoidtoolbench.suites.fiatlux.learning.curves CURVE.json OUT.svg TITLE` draws it again.
"""

from __future__ import annotations

from pathlib import Path

from rsl_rl.utils.log_writer import LogWriter

from ....record.files import write_bytes_atomic, write_json_atomic

RETURN, LENGTH, TERM = "/return", "/length", "/reward/"
SMOOTH = 25  # iterations in the running mean drawn over the raw values


class CurveWriter(LogWriter):
    def __init__(self, log_dir: str, path: str, steps_per_iteration: int) -> None:
        self.path = Path(path)
        self.steps_per_iteration = steps_per_iteration
        self.rows: dict[int, dict[str, float]] = {}

    def add_scalar(self, tag: str, scalar_value: float, global_step: int) -> None:
        if tag.endswith("/time"):  # RSL-RL logs these against elapsed seconds, not iterations
            return
        row = self.rows.setdefault(global_step, {"iteration": global_step,
                                                 "steps": (global_step + 1) * self.steps_per_iteration})
        row[tag] = float(scalar_value)

    def save_model(self, model_path: str, it: int) -> None:
        self.write()

    def stop(self) -> None:
        self.write()

    def write(self) -> None:
        write_json_atomic(self.path, [self.rows[k] for k in sorted(self.rows)])


def plot(rows: list[dict], path: Path, title: str) -> Path:
    """Mean episode return (top) and each reward term's mean episode sum (bottom) against steps, as SVG."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "humanoidtoolbench"  # the same curve gives the same file
    import numpy as np

    ended = [r for r in rows if RETURN in r]
    steps = [r["steps"] for r in ended]
    terms = sorted({k for r in ended for k in r if k.startswith(TERM)})
    drawn = [t for t in terms if any(r.get(t, 0.0) != 0.0 for r in ended)]

    def running(values: list[float]) -> np.ndarray:
        cum = np.cumsum(np.insert(np.asarray(values, dtype=float), 0, 0.0))
        n = np.minimum(np.arange(1, len(values) + 1), SMOOTH)
        return (cum[1:] - cum[np.arange(1, len(values) + 1) - n]) / n

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 8), sharex=True)
    returns = [r[RETURN] for r in ended]
    top.plot(steps, returns, color="black", alpha=0.2, linewidth=0.5)
    top.plot(steps, running(returns), color="black")
    top.set_ylabel(f"mean episode return (solid: over {SMOOTH} iterations)")
    top.set_title(title)
    top.grid(alpha=0.3)
    for t in drawn:
        bottom.plot(steps, running([r.get(t, 0.0) for r in ended]), label=t.removeprefix(TERM))
    bottom.set_ylabel(f"mean episode sum per term (over {SMOOTH} iterations)")
    bottom.set_xlabel("environment steps")
    bottom.set_yscale("symlog", linthresh=0.01)
    bottom.grid(alpha=0.3)
    bottom.legend(fontsize=7, ncol=3, loc="best")
    zero = [t.removeprefix(TERM) for t in terms if t not in drawn]
    if zero:
        fig.text(0.01, 0.005, "zero throughout: " + ", ".join(zero), fontsize=7)
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    return write_bytes_atomic(path, buffer.getvalue())


if __name__ == "__main__":
    import json
    import sys

    curve, out, title = sys.argv[1:4]
    plot(json.loads(Path(curve).read_text()), Path(out), title)
