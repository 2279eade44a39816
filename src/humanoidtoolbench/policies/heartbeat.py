"""A line every few seconds while a remote call is outstanding, so a slow server is never a silent hang."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def heartbeat(interval_s: float, say: Callable[[], None], name: str) -> Iterator[None]:
    """Call `say()` every `interval_s` seconds, on a daemon thread called `name`, until the block ends."""
    done = threading.Event()

    def beat() -> None:
        while not done.wait(interval_s):
            say()

    thread = threading.Thread(target=beat, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
