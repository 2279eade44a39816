"""Where the model runs (`--device auto|cpu|cuda:N`), and the EGL device of the same physical GPU.

CUDA and EGL number GPUs independently (and `CUDA_VISIBLE_DEVICES` renumbers
CUDA's), so the renderer is matched to the policy's GPU by PCI address:
CUDA device -> UUID -> PCI bus ID (nvidia-smi), EGL device -> DRM node ->
PCI address (sysfs). The match is written to `MUJOCO_EGL_DEVICE_ID`; an
explicit `MUJOCO_EGL_DEVICE_ID` naming another GPU is an error.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import ModelError, require

CUDA = re.compile(r"cuda:(\d+)")
EGL_ENV = "MUJOCO_EGL_DEVICE_ID"


@dataclass(frozen=True)
class Device:
    name: str  # "auto", "cpu" or "cuda:N"

    @classmethod
    def parse(cls, text: str) -> "Device":
        text = text.strip().lower()
        if text not in ("auto", "cpu") and not CUDA.fullmatch(text):
            raise ModelError(f"--device must be auto, cpu or cuda:N, got {text!r}")
        return cls(text)

    def resolved(self) -> "Device":
        """`auto` made concrete: the first visible CUDA device if torch sees one, else the CPU."""
        if self.name != "auto":
            return self
        return Device("cuda:0" if require("torch").cuda.is_available() else "cpu")

    @property
    def cuda_index(self) -> int | None:
        match = CUDA.fullmatch(self.name)
        return int(match.group(1)) if match else None

    def torch(self):
        torch = require("torch")
        index = self.cuda_index
        if index is not None:
            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            if index >= count:
                raise ModelError(f"--device {self.name}: torch sees {count} CUDA device(s) (CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')})")
        return torch.device(self.name)

    def identity(self) -> dict:
        index = self.cuda_index
        return {} if index is None else {"cuda_uuid": cuda_uuid(index)}


def cuda_uuid(index: int) -> str:
    """'GPU-xxxxxxxx-...' of a visible CUDA device, as nvidia-smi prints it."""
    uuid = str(require("torch").cuda.get_device_properties(index).uuid)
    return uuid if uuid.startswith("GPU-") else f"GPU-{uuid}"


def normalise_pci(bus_id: str) -> str:
    """'00000000:3B:00.0' (nvidia-smi) and '0000:3b:00.0' (sysfs) -> '0000:3b:00.0'."""
    domain, _, rest = bus_id.strip().lower().rpartition(":")
    domain, _, bus = domain.rpartition(":") if domain.count(":") else ("", "", domain)
    return f"{int(domain or '0', 16):04x}:{bus}:{rest}"


def nvidia_smi_pci() -> dict[str, str]:
    """UUID -> PCI address of every NVIDIA GPU, whatever CUDA_VISIBLE_DEVICES hides."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=uuid,pci.bus_id", "--format=csv,noheader"], capture_output=True, text=True, timeout=10, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise ModelError(f"cannot match the renderer to the policy's GPU: nvidia-smi failed ({exc})") from None
    rows = [line.split(",") for line in out.splitlines() if line.strip()]
    return {uuid.strip(): normalise_pci(bus) for uuid, bus in rows}


def egl_pci_addresses() -> list[str | None]:
    """The PCI address of each EGL device, in the order MUJOCO_EGL_DEVICE_ID counts them (None: not a PCI GPU)."""
    from OpenGL import EGL

    devices = (EGL.EGLDeviceEXT * 32)()
    count = EGL.EGLint()
    if not EGL.eglQueryDevicesEXT(32, devices, count):
        raise ModelError("cannot match the renderer to the policy's GPU: eglQueryDevicesEXT failed")
    out = []
    for device in devices[: count.value]:
        node = EGL.eglQueryDeviceStringEXT(device, EGL.EGL_DRM_DEVICE_FILE_EXT)
        out.append(drm_pci(node.decode()) if node else None)
    return out


def drm_pci(node: str) -> str | None:
    """'/dev/dri/card1' -> its PCI address through sysfs."""
    link = Path("/sys/class/drm") / Path(node).name / "device"
    try:
        return normalise_pci(link.resolve(strict=True).name)
    except (OSError, ValueError):
        return None


def egl_device_for(uuid: str, gpus: dict[str, str], egl: list[str | None]) -> int:
    """The EGL index of the GPU with this CUDA UUID."""
    pci = gpus.get(uuid)
    if pci is None:
        raise ModelError(f"cannot match the renderer to the policy's GPU: nvidia-smi does not list {uuid}")
    if pci not in egl:
        raise ModelError(f"cannot match the renderer to the policy's GPU: no EGL device at PCI {pci} ({uuid})")
    return egl.index(pci)


def match_renderer(device: Device, environ=os.environ, gpus=None, egl=None) -> int | None:
    """Point MuJoCo's EGL renderer at the policy's GPU; None when the policy runs on the CPU or EGL is unused."""
    index = device.cuda_index
    if index is None or environ.get("MUJOCO_GL", "egl") != "egl":
        return None
    uuid = cuda_uuid(index)
    chosen = egl_device_for(uuid, nvidia_smi_pci() if gpus is None else gpus, egl_pci_addresses() if egl is None else egl)
    explicit = environ.get(EGL_ENV)
    if explicit is not None and explicit.strip() != str(chosen):
        raise ModelError(f"{EGL_ENV}={explicit} is not the policy's GPU {uuid} (EGL device {chosen}); unset it or make them agree")
    environ[EGL_ENV] = str(chosen)
    return chosen
