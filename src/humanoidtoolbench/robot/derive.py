"""Files derived from the verified robot sources at install time.

- `meshes/<name>.stl`: decimated visual meshes, so that software rendering
  stays fast (the upstream meshes carry 420k triangles);
- per robot variant (`variants.py`), a model with decimated visuals and one
  with full-detail visuals (`g1_htb.xml` and `g1_htb_full.xml` for the
  assisted robot): the upstream model with the edits of `edit.py`.

Everything here is a pure function of the source files, `RECIPE` and the
variant's row, so the same sources give byte-identical derived files; each
variant has its own recipe hash.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
from pathlib import Path

import fast_simplification
import mujoco
import numpy as np

from .edit import edit_robot
from .variants import VARIANTS

MODEL_FILE = "g1_29dof_with_hand.xml"
DETAILS = ("fast", "full")

RECIPE = {
    "version": 1,
    # Keep this fraction of each visual mesh's triangles, at least `min_faces`.
    "visual_face_fraction": 0.12,
    "min_faces": 150,
}


# The modules whose code shapes the derived files: editing any of them
# makes an existing installation out of date.
RECIPE_MODULES = ("derive.py", "edit.py", "joints.py", "cameras.py", "collision.py", "variants.py")


def recipe_sha256(variant: str = "assisted") -> str:
    row = VARIANTS[variant]
    h = hashlib.sha256(json.dumps({**RECIPE, "variant": repr(row)}, sort_keys=True).encode())
    for name in RECIPE_MODULES:
        h.update(name.encode() + b"\0" + (Path(__file__).parent / name).read_bytes())
    return h.hexdigest()


def read_stl(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Binary STL -> (unique vertices (N,3) float64, faces (M,3) int64)."""
    raw = path.read_bytes()
    (n,) = struct.unpack_from("<I", raw, 80)
    rec = np.frombuffer(raw, dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]), count=n, offset=84)
    corners = rec["v"].reshape(-1, 3).astype(np.float64)
    verts, inverse = np.unique(corners, axis=0, return_inverse=True)
    return verts, inverse.reshape(-1, 3).astype(np.int64)


def write_stl(path: Path, verts: np.ndarray, faces: np.ndarray) -> None:
    tri = verts[faces].astype(np.float32)
    normals = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    norm = np.linalg.norm(normals, axis=1, keepdims=True)
    normals = np.divide(normals, norm, out=np.zeros_like(normals), where=norm > 0)
    rec = np.zeros(len(faces), dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")]))
    rec["n"] = normals
    rec["v"] = tri
    header = b"humanoidtoolbench decimated mesh".ljust(80, b"\0")
    path.write_bytes(header + struct.pack("<I", len(faces)) + rec.tobytes())


def decimate(src: Path, dst: Path) -> int:
    verts, faces = read_stl(src)
    keep = max(RECIPE["min_faces"], int(len(faces) * RECIPE["visual_face_fraction"]))
    if keep < len(faces):
        verts, faces = fast_simplification.simplify(verts, faces, target_reduction=1.0 - keep / len(faces))
    write_stl(dst, np.asarray(verts), np.asarray(faces))
    return len(faces)


def build(source_dir: Path, out_dir: Path) -> list[str]:
    """Write every derived file under out_dir; return their paths relative to it."""
    mesh_out = out_dir / "meshes"
    mesh_out.mkdir(parents=True, exist_ok=True)
    written = []
    for stl in sorted((source_dir / "meshes").glob("*.STL")):
        decimate(stl, mesh_out / f"{stl.stem}.stl")
        written.append(f"meshes/{stl.stem}.stl")

    rel_source = Path("..") / source_dir.name / "meshes"
    for variant in VARIANTS.values():
        for detail, filename in variant.files.items():
            _write_model(source_dir, out_dir, rel_source, filename, detail, variant)
            written.append(filename)
    return written


def _write_model(source_dir: Path, out_dir: Path, rel_source: Path, filename: str, detail: str, variant) -> None:
    spec = mujoco.MjSpec.from_file(str(source_dir / MODEL_FILE))
    # Compiling (which to_xml does) resolves mesh files against meshdir;
    # the written file keeps them relative to its own directory.
    spec.meshdir = f"{out_dir.resolve()}/"
    for mesh in spec.meshes:
        mesh.file = str(rel_source / mesh.file)
    visual = (lambda name: f"meshes/{name}.stl") if detail == "fast" else None
    edit_robot(spec, visual, variant)
    xml = spec.to_xml().replace(f' meshdir="{spec.meshdir}"', "")
    # MuJoCo writes content_type only for meshes it did not find in its
    # in-process cache; drop it so the file does not depend on history.
    xml = re.sub(r' content_type="[^"]*"', "", xml)
    (out_dir / filename).write_text(xml)
