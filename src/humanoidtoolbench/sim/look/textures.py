"""Procedural textures from seeded noise: each a small, tileable RGB image (uint8, height x width x 3).

Every pattern is a pure function of (seed, size) and cached, so a scene
rebuilt for each episode pays for it once per process. Patterns are pale
and close to neutral: a material's rgba tints them (MuJoCo multiplies the
texture by the material colour), so one wood grain serves oak, birch and
walnut. Every pattern wraps at its edges, so a surface repeating it shows
no seams.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

Image = np.ndarray  # (size, size, 3) uint8


# -- noise -------------------------------------------------------------------------------------------
def lattice_noise(rng: np.random.Generator, size: int, cells: tuple[int, int]) -> np.ndarray:
    """Smooth value noise in [0, 1] on a (size, size) grid that wraps at its edges: random values on a
    (cells_y, cells_x) lattice, blended with a smoothstep."""
    cy, cx = cells
    values = rng.random((cy, cx))
    y = np.arange(size) * cy / size
    x = np.arange(size) * cx / size
    y0, x0 = np.floor(y).astype(int), np.floor(x).astype(int)
    ty, tx = y - y0, x - x0
    ty, tx = ty * ty * (3 - 2 * ty), tx * tx * (3 - 2 * tx)
    y1, x1 = (y0 + 1) % cy, (x0 + 1) % cx
    top = values[y0][:, x0] * (1 - tx) + values[y0][:, x1] * tx
    bottom = values[y1][:, x0] * (1 - tx) + values[y1][:, x1] * tx
    return top * (1 - ty)[:, None] + bottom * ty[:, None]


def fractal_noise(rng: np.random.Generator, size: int, base: int = 4, octaves: int = 4, stretch: tuple[int, int] = (1, 1),
                  gain: float = 0.5) -> np.ndarray:
    """Sum of lattice noise octaves (each twice the cells of the last, `gain` the weight), rescaled to
    [0, 1]; `stretch` multiplies the cells along (y, x), so (8, 1) draws streaks along x."""
    total, weight, norm = np.zeros((size, size)), 1.0, 0.0
    for k in range(octaves):
        cells = (min(size, base * stretch[0] * 2**k), min(size, base * stretch[1] * 2**k))
        total += weight * lattice_noise(rng, size, cells)
        norm += weight
        weight *= gain
    total /= norm
    return (total - total.min()) / max(np.ptp(total), 1e-9)


def _rgb(gray: np.ndarray, tint=(1.0, 1.0, 1.0)) -> Image:
    """A [0, 1] field as a tinted uint8 RGB image."""
    rgb = np.clip(gray[..., None] * np.asarray(tint, float), 0.0, 1.0)
    return np.ascontiguousarray(np.round(rgb * 255).astype(np.uint8))


def _rng(name: str, seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, sum(ord(c) << (8 * (i % 4)) for i, c in enumerate(name))])


# -- patterns ----------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def wood(seed: int, size: int) -> Image:
    """Long grain along x: growth rings cut lengthwise (straight bands, gently bent by noise stretched
    along the grain), fine fibres and a soft figure; warm light tones for a wood colour to tint."""
    rng = _rng("wood", seed)
    y = np.arange(size)[:, None] / size
    bend = fractal_noise(rng, size, base=2, octaves=2, stretch=(4, 1))
    rings = 0.5 + 0.5 * np.sin(2 * np.pi * (14 * y + 0.8 * bend))
    rings = rings**4  # narrow dark late-wood bands
    fibres = fractal_noise(rng, size, base=4, octaves=4, stretch=(24, 1))
    figure = fractal_noise(rng, size, base=2, octaves=3, stretch=(3, 1))
    gray = 0.82 - 0.14 * rings - 0.08 * fibres - 0.06 * figure
    return _rgb(gray, (1.0, 0.96, 0.90))


@lru_cache(maxsize=None)
def planks(seed: int, size: int, rows: int = 4) -> Image:
    """Floorboards: `rows` boards along x, each a strip of wood grain shifted and shaded on its own,
    with a thin dark joint between boards and a butt joint somewhere along each."""
    rng = _rng("planks", seed)
    grain = wood(seed, size).astype(float) / 255
    out = np.empty_like(grain)
    board = size // rows
    for r in range(rows):
        rows_ = slice(r * board, (r + 1) * board)
        strip = np.roll(grain, int(rng.integers(size)), axis=1)[rows_] * rng.uniform(0.82, 1.08)
        strip[:, int(rng.integers(size))] *= 0.45  # butt joint
        out[rows_] = strip
        out[r * board] *= 0.45  # long joint
    return np.ascontiguousarray(np.round(np.clip(out, 0, 1) * 255).astype(np.uint8))


@lru_cache(maxsize=None)
def plaster(seed: int, size: int) -> Image:
    """Painted plaster: a faint mottle and a fine stipple, almost white."""
    rng = _rng("plaster", seed)
    mottle = fractal_noise(rng, size, base=3, octaves=3)
    stipple = rng.random((size, size))
    return _rgb(0.90 + 0.05 * mottle + 0.05 * stipple)


@lru_cache(maxsize=None)
def tiles(seed: int, size: int, count: int = 2) -> Image:
    """Square floor tiles, `count` x `count` per image: each a slightly different shade with a faint
    cloud, light grout lines between them."""
    rng = _rng("tiles", seed)
    tile = size // count
    shade = rng.uniform(0.86, 0.97, (count, count))
    idx = np.arange(size) // tile
    gray = shade[idx % count][:, idx % count] + 0.06 * (fractal_noise(rng, size, base=4, octaves=3) - 0.5)
    grout = np.zeros(size, bool)
    width = max(1, size // 64)
    for k in range(count):
        grout[k * tile : k * tile + width] = True
    gray[grout, :] = 0.62
    gray[:, grout] = 0.62
    return _rgb(gray)


@lru_cache(maxsize=None)
def fabric(seed: int, size: int, threads: int = 32) -> Image:
    """A plain weave: warp and weft threads alternating over and under (`threads` per image), and a
    slow mottle of the dye."""
    rng = _rng("fabric", seed)
    u = np.arange(size) * threads / size
    warp = 0.5 + 0.5 * np.cos(2 * np.pi * u)
    over = ((np.floor(u)[:, None] + np.floor(u)[None, :]) % 2).astype(bool)
    weave = np.where(over, warp[None, :], warp[:, None])
    gray = 0.70 + 0.18 * weave + 0.10 * fractal_noise(rng, size, base=3, octaves=3)
    return _rgb(gray)


@lru_cache(maxsize=None)
def brushed_metal(seed: int, size: int) -> Image:
    """Brushed metal: fine streaks along x, long and faint."""
    rng = _rng("brushed_metal", seed)
    streaks = fractal_noise(rng, size, base=8, octaves=4, stretch=(8, 1), gain=0.7)
    return _rgb(0.80 + 0.16 * streaks + 0.04 * fractal_noise(rng, size, base=2, octaves=2))


@lru_cache(maxsize=None)
def ceramic(seed: int, size: int) -> Image:
    """Glazed ceramic: almost uniform, a very faint cloud in the glaze."""
    rng = _rng("ceramic", seed)
    return _rgb(0.94 + 0.06 * fractal_noise(rng, size, base=3, octaves=3))


@lru_cache(maxsize=None)
def glass(seed: int, size: int) -> Image:
    """Glass: near-white with faint vertical drawing lines (the colour and transparency come from rgba)."""
    rng = _rng("glass", seed)
    lines = fractal_noise(rng, size, base=6, octaves=3, stretch=(1, 6))
    return _rgb(0.90 + 0.10 * lines)


@lru_cache(maxsize=None)
def plastic(seed: int, size: int) -> Image:
    """Moulded plastic or paint: a faint fine grain."""
    rng = _rng("plastic", seed)
    return _rgb(0.93 + 0.07 * fractal_noise(rng, size, base=16, octaves=2))


@lru_cache(maxsize=None)
def rubber(seed: int, size: int) -> Image:
    """A rubber grip: a fine knurl (a diamond cross-hatch)."""
    rng = _rng("rubber", seed)
    u = np.arange(size) * 24 / size
    a = np.abs(((u[:, None] + u[None, :]) % 1) - 0.5)
    b = np.abs(((u[:, None] - u[None, :]) % 1) - 0.5)
    gray = 0.70 + 0.30 * np.minimum(a, b) * 2 + 0.05 * rng.random((size, size))
    return _rgb(np.clip(gray, 0, 1))


@lru_cache(maxsize=None)
def peel(seed: int, size: int) -> Image:
    """Fruit skin: fine pores and a soft blush."""
    rng = _rng("peel", seed)
    pores = fractal_noise(rng, size, base=32, octaves=2)
    blush = fractal_noise(rng, size, base=2, octaves=2)
    return _rgb(0.84 + 0.08 * pores + 0.08 * blush)


@lru_cache(maxsize=None)
def cardboard(seed: int, size: int) -> Image:
    """Printed board: a pale band across the middle and a few darker print lines on it (a label)."""
    rng = _rng("cardboard", seed)
    gray = 0.88 + 0.06 * fractal_noise(rng, size, base=4, octaves=3)
    v = np.arange(size) / size
    band = (v > 0.35) & (v < 0.65)
    gray[band, :] = 1.0
    for k in range(3):
        y = int((0.40 + 0.08 * k) * size)
        length = rng.uniform(0.3, 0.7)
        gray[y : y + max(1, size // 64), int(0.15 * size) : int((0.15 + length) * size)] = 0.35
    return _rgb(gray)


@lru_cache(maxsize=None)
def ice(seed: int, size: int) -> Image:
    """Ice: clear with a milky cloud, tiny trapped bubbles and a few white fracture veins."""
    rng = _rng("ice", seed)
    cloud = fractal_noise(rng, size, base=3, octaves=4)
    gray = 0.78 + 0.14 * cloud
    bubbles = rng.random((size, size)) > 0.996
    gray[bubbles] = 1.0
    ridge = np.abs(fractal_noise(rng, size, base=3, octaves=4) - 0.5)  # thin where the field crosses 0.5
    veins = ridge < 0.012
    gray[veins] = 1.0
    return _rgb(np.clip(gray, 0, 1), (0.96, 0.99, 1.0))


PATTERNS = {
    "wood": wood,
    "planks": planks,
    "plaster": plaster,
    "tiles": tiles,
    "fabric": fabric,
    "brushed_metal": brushed_metal,
    "ceramic": ceramic,
    "glass": glass,
    "plastic": plastic,
    "rubber": rubber,
    "peel": peel,
    "cardboard": cardboard,
    "ice": ice,
}
