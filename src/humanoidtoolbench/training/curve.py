"""The learning curve as a PNG: the training loss (log scale) and samples/s against steps."""

from __future__ import annotations

from pathlib import Path


def draw(curve, path: Path, title: str) -> Path | None:
    """Draw `curve` (steps, loss, samples_per_s) into `path`; None where matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    if not curve.steps:
        return None
    fig, (ax, bx) = plt.subplots(2, 1, figsize=(7, 5), sharex=True, height_ratios=(3, 1))
    ax.plot(curve.steps, curve.loss, color="tab:blue")
    ax.set_yscale("log")
    ax.set_ylabel("L1 loss (normalised actions)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    bx.plot(curve.steps, curve.samples_per_s, color="tab:gray")
    bx.set_ylabel("samples/s")
    bx.set_xlabel("step")
    bx.grid(alpha=0.3)
    fig.tight_layout()
    tmp = path.with_name(f".{path.name}.partial.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)
    return path
