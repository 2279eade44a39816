"""The OpenAI-compatible chat endpoint: one call with a text + PNG message, its reply decoded, within a time limit.

Retrying is the planner's (`language_model`), so this makes exactly one
request per call and reports any failure as one `TransportError`.
"""

from __future__ import annotations

import base64
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec

from .config import ModelConfig, api_key


class TransportError(RuntimeError):
    """The endpoint gave no completion (connection, status, timeout, a reply that is not one); one line."""


@dataclass(frozen=True)
class Reply:
    text: str
    usage: Mapping[str, Any] | None  # the provider's usage block, as sent


class _Message(msgspec.Struct):
    content: str | None = None


class _Choice(msgspec.Struct):
    message: _Message


class _Completion(msgspec.Struct):
    """The part of a chat completion the planner reads; anything else in the reply is ignored."""

    choices: list[_Choice]
    usage: dict[str, Any] | None = None


class ChatClient:
    """Chat completions with one text + PNG user message, through the `openai` package (the `llm` extra).

    The SDK's own retries are off: the planner's five attempts are the only
    ones, so that every attempt is counted and backed off the same way. The
    reply's body is decoded here, against the fields the planner reads, so a
    200 that is no chat completion (an HTML page from a proxy, another schema)
    is a `TransportError` like any other failed call.
    """

    def __init__(self, config: ModelConfig, environ: Mapping[str, str] = os.environ) -> None:
        import openai  # only the language-model planner needs it

        self.config = config
        self.where = config.base_url
        self.deadline_s = config.decision_deadline_s
        self._openai = openai
        self._client = openai.OpenAI(
            base_url=config.base_url, api_key=api_key(config, environ), max_retries=0, timeout=config.timeout_s
        )

    def complete(self, prompt: str, png: bytes, timeout: float | None = None) -> Reply:
        """One call, given at most `timeout` seconds (and never more than the config's `timeout_s`)."""
        image_url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        content = [{"type": "text", "text": prompt}, {"type": "image_url", "image_url": {"url": image_url}}]
        options: dict[str, Any] = {}
        if self.config.response_format is not None:
            options["response_format"] = self.config.response_format
        if self.config.extra_body is not None:
            options["extra_body"] = self.config.extra_body
        limit = self.config.timeout_s if timeout is None else min(self.config.timeout_s, timeout)
        request = dict(model=self.config.model, messages=[{"role": "user", "content": content}],
                       max_tokens=self.config.max_tokens, temperature=self.config.temperature, timeout=limit, **options)
        body = self._within(limit, request)
        try:
            response = msgspec.json.decode(body, type=_Completion)
        except msgspec.DecodeError as exc:
            raise TransportError(f"malformed reply: not a chat completion ({exc})") from None
        if not response.choices:
            raise TransportError("the reply has no choices")
        return Reply(response.choices[0].message.content or "", response.usage)


    def _within(self, limit: float, request: dict) -> bytes:
        """The reply's body, complete within `limit` seconds in all, else a `TransportError`.

        The SDK's timeout bounds each read, so a reply that trickles in (a byte a
        second, chunked or not) would never time out. The call runs in a thread
        the caller waits on for `limit` seconds at most; the thread reads the body
        in pieces and gives up at the first piece after the deadline, so it ends
        too rather than reading a reply that never ends.
        """
        import httpx  # the SDK's own HTTP client

        deadline = time.monotonic() + limit
        outcome: dict[str, Any] = {}

        def call() -> None:
            try:
                with self._client.chat.completions.with_streaming_response.create(**request) as raw:
                    pieces = []
                    for piece in raw.iter_bytes():
                        pieces.append(piece)
                        if time.monotonic() > deadline:
                            outcome["late"] = True
                            return
                    outcome["body"] = b"".join(pieces)
            except self._openai.APITimeoutError:
                outcome["late"] = True
            except (self._openai.OpenAIError, httpx.HTTPError, OSError) as exc:  # reported by the caller, one line
                outcome["error"] = exc
            except Exception as exc:  # a bug: raised in the caller's thread as it is
                outcome["bug"] = exc

        thread = threading.Thread(target=call, name="htb-planner-call", daemon=True)
        thread.start()
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive() or outcome.get("late"):
            raise TransportError(f"timed out: no complete reply within {round(limit, 1):g} s")
        if "bug" in outcome:
            raise outcome["bug"]
        exc = outcome.get("error")
        if exc is not None:  # an SDK error (connection, status), or the connection dropped mid-body
            raise TransportError(f"{type(exc).__name__}: {exc}".splitlines()[0])
        return outcome["body"]


class Transport(Protocol):
    where: str  # the endpoint, as the wait lines name it
    deadline_s: float  # one decision's total

    def complete(self, prompt: str, png: bytes, timeout: float | None = None) -> Reply: ...
