"""Hub model IDs through `huggingface_hub` and its cache: a cached revision needs no network.

`HF_HOME` / `HF_HUB_CACHE` place the cache and `HF_HUB_OFFLINE=1` forbids
downloads, as in every Hugging Face tool. Failures are one line: no network
and nothing cached, an unknown repository or revision.
"""

from __future__ import annotations

from pathlib import Path

from . import ModelError, require


def snapshot(repo_id: str, revision: str | None) -> tuple[Path, str]:
    """The local snapshot directory of `repo_id` at `revision` and the commit it resolved to."""
    hub = require("huggingface_hub")
    errors = require("huggingface_hub.errors")
    at = f"{repo_id}@{revision or 'main'}"
    try:
        path = Path(hub.snapshot_download(repo_id, revision=revision))
    except errors.LocalEntryNotFoundError:
        raise ModelError(
            f"cannot download model {at}: no network connection (or HF_HUB_OFFLINE is set) and the hub cache has no copy of it"
        ) from None
    except errors.RevisionNotFoundError:
        raise ModelError(f"model {repo_id} has no revision {revision!r}") from None
    except errors.RepositoryNotFoundError:
        raise ModelError(f"no model {repo_id} on the hub (or it is private: log in with `hf auth login`)") from None
    except (errors.HfHubHTTPError, OSError) as exc:
        raise ModelError(f"cannot download model {at}: {' '.join(str(exc).split())}") from None
    return path, path.name  # snapshots/<commit>
