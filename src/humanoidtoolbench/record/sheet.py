"""Contact sheets: labelled tiles of images in a grid, written as one PNG (Pillow)."""

from __future__ import annotations

import io
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .files import write_bytes_atomic

BACKGROUND = (32, 32, 36)
LABEL_RGB = (230, 230, 230)
LABEL_HEIGHT = 18  # px under each tile
FONT_SIZE = 12
GAP = 4  # px between tiles


def fit(image: np.ndarray, size: tuple[int, int]) -> Image.Image:
    """An RGB array scaled to fit (width, height), centred on the background colour."""
    tile = Image.new("RGB", size, BACKGROUND)
    img = Image.fromarray(np.ascontiguousarray(image, np.uint8))
    img.thumbnail(size, Image.Resampling.LANCZOS)
    tile.paste(img, ((size[0] - img.width) // 2, (size[1] - img.height) // 2))
    return tile


def contact_sheet(tiles: list[tuple[str, np.ndarray]], size: tuple[int, int], columns: int, title: str = "") -> Image.Image:
    """The tiles (label, RGB image) in rows of `columns`, each scaled to `size` with its label under it."""
    font = ImageFont.load_default(size=FONT_SIZE)
    rows = max(1, -(-len(tiles) // columns))
    top = LABEL_HEIGHT + GAP if title else 0
    cell_w, cell_h = size[0] + GAP, size[1] + LABEL_HEIGHT + GAP
    sheet = Image.new("RGB", (columns * cell_w + GAP, top + rows * cell_h + GAP), BACKGROUND)
    draw = ImageDraw.Draw(sheet)
    if title:
        draw.text((GAP, GAP), title, fill=LABEL_RGB, font=font)
    for k, (label, image) in enumerate(tiles):
        x, y = GAP + (k % columns) * cell_w, top + GAP + (k // columns) * cell_h
        sheet.paste(fit(image, size), (x, y))
        draw.text((x + 2, y + size[1] + 2), _clip(draw, label, font, size[0] - 4), fill=LABEL_RGB, font=font)
    return sheet


def _clip(draw: ImageDraw.ImageDraw, text: str, font, width: int) -> str:
    """The label, shortened with an ellipsis to fit `width` pixels."""
    while text and draw.textlength(text, font=font) > width:
        text = text[:-2] + "…"
    return text


def write_image(path: str | os.PathLike, image: Image.Image | np.ndarray) -> None:
    """A PNG, written atomically."""
    img = image if isinstance(image, Image.Image) else Image.fromarray(np.ascontiguousarray(image, np.uint8))
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    write_bytes_atomic(path, buf.getvalue())
