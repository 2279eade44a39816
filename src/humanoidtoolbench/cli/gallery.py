"""`htb-gallery`: what a suite's scenes look like, as one contact sheet per suite and its tiles.

For each suite named, every close-up subject of its gallery (`Suite.gallery`:
each object category and variant, drawn in an empty room by a free camera)
and the policy's image at the start of a few episodes (reset, settled,
rendered by the policy camera), in the chosen look (default: the suite's
protocol's). Writes DIR/SUITE/sheet.png and DIR/SUITE/tiles/NN_NAME.png.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

from .. import suites
from ..record.sheet import contact_sheet, write_image

TILE = (320, 240)
COLUMNS = 6


def shoot_subject(subject, look, size: tuple[int, int]) -> np.ndarray:
    """A close-up of one subject in an empty room of the look."""
    import mujoco

    from ..sim import scene
    from ..sim.render import render_view

    spec = scene.new_spec(look=look)
    target = subject.build(spec, look)
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    if subject.prepare is not None:
        subject.prepare(model, data)
    lookat = np.zeros(3) if target is None else np.asarray(target, float)
    return render_view(model, data, lookat, subject.distance, subject.azimuth, subject.elevation, *size)


def shoot_episode(suite, condition, seed: int, look) -> np.ndarray:
    """The policy's first image of an episode: made with the protocol's controller, reset and settled."""
    from ..sim.render import CameraRenderer

    episode = suite.make_episode(condition, seed, suite.make_controller(suite.protocol.controller), "fast", look=look.name)
    episode.reset()
    cams = suite.cameras
    with CameraRenderer(episode.model, (cams.policy_camera,), cams.width, cams.height) as renderer:
        return renderer.render(episode.data, cams.policy_camera).copy()


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")


def build_parser() -> argparse.ArgumentParser:
    names = [s.name for s in suites.suites()]
    p = argparse.ArgumentParser(prog="htb-gallery", description=__doc__.split("\n\n")[0])
    p.add_argument("suite", help=f"the suite to shoot ({', '.join(names)}), or all")
    p.add_argument("--output", required=True, help="directory to write SUITE/sheet.png and SUITE/tiles/ into")
    p.add_argument("--look", help="how the scenes are drawn (default: each suite's protocol look)")
    p.add_argument("--limit", type=int, help="shoot only the first N close-up subjects (a quick look)")
    p.add_argument("--episodes", type=int, help="start images of at most this many of the gallery's episodes")
    p.add_argument("--columns", type=int, default=COLUMNS, help=f"tiles per row of the sheet (default {COLUMNS})")
    p.add_argument("--tile", default="x".join(map(str, TILE)), help="WIDTHxHEIGHT of a close-up and of a tile on the sheet "
                   "(default %(default)s; the policy's views keep their camera's size as tiles)")
    return p


def _tile(text: str) -> tuple[int, int] | None:
    """(width, height) from WIDTHxHEIGHT, each 16 to 640 (the scenes' offscreen buffer); None if not that."""
    m = re.fullmatch(r"(\d+)x(\d+)", text.strip())
    size = (int(m[1]), int(m[2])) if m else None
    return size if size and all(16 <= v <= 640 for v in size) and size[1] <= 360 else None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    chosen = suites.suites() if args.suite == "all" else [s for s in suites.suites() if s.name == args.suite]
    if not chosen:  # checked here, not by argparse, for one line rather than a usage block
        names = ", ".join(s.name for s in suites.suites())
        print(f"htb-gallery: unknown suite {args.suite!r} (suites: {names}, or all)", file=sys.stderr)
        return 2
    for name, value in (("--limit", args.limit), ("--episodes", args.episodes)):
        if value is not None and value < 0:
            print(f"htb-gallery: {name} must be 0 or more, got {value}", file=sys.stderr)
            return 2
    if args.columns < 1:
        print(f"htb-gallery: --columns must be 1 or more, got {args.columns}", file=sys.stderr)
        return 2
    tile = _tile(args.tile)
    if tile is None:
        print(f"htb-gallery: --tile must be WIDTHxHEIGHT within 640x360, got {args.tile!r}", file=sys.stderr)
        return 2
    for suite in chosen:
        if args.look is not None and args.look not in suite.looks:
            print(f"htb-gallery: --look {args.look}: the {suite.name} suite is drawn in {', '.join(suite.looks)}", file=sys.stderr)
            return 2
    output = Path(args.output)
    taken = next((p for p in [output, *output.parents] if p.exists() and not p.is_dir()), None)
    if taken is not None:  # found before a minute of rendering, not at the first write
        print(f"htb-gallery: --output {args.output}: {taken} is a file, not a directory", file=sys.stderr)
        return 2
    try:
        return _shoot(args, chosen, tile)
    except OSError as exc:  # a full disk, a read-only folder: one line
        print(f"htb-gallery: cannot write into --output {args.output}: {exc.strerror or exc}"
              + (f": {exc.filename}" if exc.filename else ""), file=sys.stderr)
        return 1


def _shoot(args, chosen, tile) -> int:
    from ..sim import look as looks

    for suite in chosen:
        look = looks.get(args.look or suite.protocol.look)
        gallery = suite.gallery()
        subjects = gallery.subjects[: args.limit] if args.limit is not None else gallery.subjects
        episodes = gallery.episodes[: args.episodes] if args.episodes is not None else gallery.episodes
        out = Path(args.output) / suite.name
        tiles = []
        for subject in subjects:
            tiles.append((subject.name, shoot_subject(subject, look, tile)))
            print(f"{suite.name}: {subject.name}", file=sys.stderr)
        for condition, seed in episodes:
            tiles.append((f"{condition.name} seed {seed}", shoot_episode(suite, condition, seed, look)))
            print(f"{suite.name}: {condition.name} seed {seed}", file=sys.stderr)
        for k, (label, image) in enumerate(tiles):
            write_image(out / "tiles" / f"{k:02d}_{slug(label)}.png", image)
        title = f"{suite.name}, {look.name} look: {len(subjects)} close-ups, {len(episodes)} policy views at an episode's start"
        write_image(out / "sheet.png", contact_sheet(tiles, tile, args.columns, title))
        print(f"{out / 'sheet.png'}: {len(tiles)} tiles")
    return 0


if __name__ == "__main__":
    sys.exit(main())
