"""Writing a report folder: index.html, plotly.min.js beside it, and copies of the sample videos.

The folder is built as a hidden sibling and renamed into place, so a reader
never sees half a report; an earlier report is moved aside first and then
deleted. A folder that is not an earlier report is never replaced.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from plotly.offline import get_plotlyjs

from ..record.files import FILE_MODE, write_bytes_atomic
from .page import GENERATOR, PLOTLY_JS, Copy
from .report import ReportError

INDEX = "index.html"
DIR_MODE = FILE_MODE | (FILE_MODE & 0o444) >> 2  # search permission wherever read permission


def is_report(path: Path) -> bool:
    """An empty folder, or one whose index.html this tool wrote."""
    if not any(path.iterdir()):
        return True
    try:
        with open(path / INDEX, "rb") as f:
            return f'name="generator" content="{GENERATOR}"'.encode() in f.read(400)
    except OSError:
        return False


def write_report(out: Path, page: str, copies: list[Copy]) -> Path:
    """Write the report folder at `out`; returns its index.html."""
    out = Path(out)
    if out.exists() and not (out.is_dir() and is_report(out)):
        raise ReportError(f"{out} exists and is not a report folder; choose another --output")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as exc:  # named by the folder asked for, not the hidden one it is built in
        raise ReportError(f"cannot write a report at {out}: {exc.strerror}") from None
    try:
        write_bytes_atomic(tmp / PLOTLY_JS, get_plotlyjs().encode())
        for copy in copies:
            dest = tmp / copy.dest
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                shutil.copyfile(copy.source, dest)
            except OSError as exc:
                raise ReportError(f"cannot copy {copy.source}: {exc.strerror}") from None
            os.chmod(dest, FILE_MODE)
        write_bytes_atomic(tmp / INDEX, page.encode())
        for folder in [tmp, *(p for p in tmp.rglob("*") if p.is_dir())]:
            os.chmod(folder, DIR_MODE)
        old = tmp.with_name(tmp.name + ".old")
        if out.exists():
            os.rename(out, old)
        os.rename(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out / INDEX
