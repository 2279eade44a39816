"""How a suite's request maps onto an openpi observation, and the action key of the reply.

openpi servers read a flat dict (`observation/image`, `observation/state`,
`prompt`) and answer `{"actions": (T, D)}`; a suite's request is nested
(`image.rgb_head`, `state.states` of shape (1, n), `instruction`). The
mapping is data: a suite declares its table (`Suite.openpi_keys`), a table
derived from its request schema otherwise, and a small JSON file overrides it
entry by entry (`--protocol-map`), so a server trained on other key names is
served or scored without code. Both directions use the same table, so the
evaluator and `htb-serve --protocol openpi` agree by construction. NumPy only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from .request_schema import Array, RequestSchema, String


class KeysError(ValueError):
    """A protocol map that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Key:
    """One request entry (a dotted path) and the observation key it travels under; `squeeze`: a (1, n)
    array travels as (n,), the shape openpi's state inputs have."""

    path: str
    key: str
    squeeze: bool = False


@dataclass(frozen=True)
class OpenpiKeys:
    keys: tuple[Key, ...]
    actions: str = "actions"

    def observation(self, request: dict) -> dict:
        """The openpi observation of a suite's request; entries the request lacks are not sent."""
        obs = {}
        for k in self.keys:
            value = request
            for part in k.path.split("."):
                value = value.get(part) if isinstance(value, dict) else None
            if value is None:
                continue
            obs[k.key] = value[0] if k.squeeze and isinstance(value, np.ndarray) and value.ndim >= 1 and len(value) == 1 else value
        return obs

    def request(self, obs: dict) -> dict:
        """The suite's request from an openpi observation (keys not in the table are dropped)."""
        request: dict = {}
        for k in self.keys:
            if k.key not in obs:
                continue
            value = obs[k.key]
            if k.squeeze and isinstance(value, np.ndarray):
                value = value[None]
            *parents, leaf = k.path.split(".")
            node = request
            for part in parents:
                node = node.setdefault(part, {})
            node[leaf] = value
        return request

    def to_json(self) -> dict:
        """The table as the JSON a `--protocol-map` file holds (and a server's metadata declares)."""
        return {
            "keys": {k.path: {"key": k.key, "squeeze": k.squeeze} if k.squeeze else k.key for k in self.keys},
            "actions": self.actions,
        }

    def overridden(self, text: str, source: str) -> "OpenpiKeys":
        """This table with a `--protocol-map` file's entries replacing those of the same paths."""
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise KeysError(f"{source}: not valid JSON: {exc}") from None
        if not isinstance(data, dict) or set(data) - {"keys", "actions"}:
            raise KeysError(f'{source}: must be an object with "keys" (request path -> observation key) and/or "actions"')
        actions = data.get("actions", self.actions)
        if not isinstance(actions, str) or not actions:
            raise KeysError(f'{source}: "actions" must be the reply\'s action key, a non-empty string')
        given = data.get("keys", {})
        if not isinstance(given, dict):
            raise KeysError(f'{source}: "keys" must map request paths to observation keys')
        by_path = {k.path: k for k in self.keys}
        for path, entry in given.items():
            if path not in by_path:
                raise KeysError(f"{source}: unknown request path {path!r}; this suite sends {', '.join(by_path)}")
            if isinstance(entry, str):
                entry = {"key": entry}
            if not (isinstance(entry, dict) and set(entry) <= {"key", "squeeze"} and isinstance(entry.get("key"), str)
                    and entry["key"] and isinstance(entry.get("squeeze", False), bool)):
                raise KeysError(f'{source}: {path!r} must map to a key string or {{"key": str, "squeeze": bool}}')
            by_path[path] = Key(path, entry["key"], entry.get("squeeze", by_path[path].squeeze))
        names = [k.key for k in by_path.values()]
        if len(set(names)) < len(names):
            raise KeysError(f"{source}: two request paths travel under the same observation key")
        return replace(self, keys=tuple(by_path.values()), actions=actions)

    def from_file(self, path: str) -> "OpenpiKeys":
        """`overridden` by the file at `path`, or KeysError in one line."""
        try:
            text = Path(path).read_text()
        except OSError as exc:
            raise KeysError(f"--protocol-map {path}: {exc.strerror or exc}") from None
        return self.overridden(text, f"--protocol-map {path}")


def derived(schema: RequestSchema | None) -> OpenpiKeys:
    """A table from a request schema: the instruction as `prompt`, each array leaf as `observation/NAME`
    (the one image as `observation/image`, `state.states` as a squeezed `observation/state`) and the
    episode's reset flag as `reset`. Optional fields are left out: a key travels in every frame."""
    fields = tuple(f for f in schema.fields if f.required) if schema else ()
    images = [f for f in fields if f.path.startswith("image.") and isinstance(f.check, Array)]
    keys = []
    for f in fields:
        if isinstance(f.check, String) and f.path == "instruction":
            keys.append(Key(f.path, "prompt"))
        elif isinstance(f.check, Array):
            if f.path == "state.states":
                keys.append(Key(f.path, "observation/state", squeeze=True))
            elif len(images) == 1 and f is images[0]:
                keys.append(Key(f.path, "observation/image"))
            else:
                keys.append(Key(f.path, "observation/" + f.path.split(".")[-1]))
        elif isinstance(f.check, String):
            keys.append(Key(f.path, f.path.replace(".", "/")))
    return OpenpiKeys((*keys, Key("history.reset", "reset")))


def missing_packages() -> str | None:
    """Why the openpi protocol cannot run here (its packages are an extra), or None."""
    try:
        import openpi_client.msgpack_numpy  # noqa: F401
        import websockets.sync.client  # noqa: F401
    except ImportError as exc:
        return (f"--protocol openpi needs the openpi extra ({exc.name} is not installed): "
                "pip install 'humanoidtoolbench[openpi]' and then pip install --no-deps openpi-client==0.1.2")
    return None
