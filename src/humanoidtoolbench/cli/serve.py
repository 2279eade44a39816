"""`htb-serve`: serve a policy over the public HTTP protocol or openpi's websocket protocol, one evaluator per
server, in one suite's language.

`--suite` (and `--controller`, for a suite whose policies speak otherwise on
another controller) picks the action contract each chunk is validated with
and the request schema each request is checked against; `/info` declares
both, and `htb-eval` refuses a server that speaks other than its suite. With
`--protocol openpi` the metadata sent on connect declares them, and the
suite's openpi keys (or `--protocol-map`) say where each request field travels.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

from .. import suites
from ..control import CONTROLLERS
from ..policies.errors import PolicyLoadError
from ..policies.loader import load_policy
from ..policies.openpi_keys import KeysError, missing_packages
from ..policies.server import (
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_BUFFER_BYTES, DEFAULT_MAX_CONNECTIONS, DEFAULT_READ_TIMEOUT_S,
    DEFAULT_REQUEST_TIMEOUT_S, PolicyServer,
)
from .common import OneLineParser, UsageError, check_controller, check_model_fits

DEFAULT_POLICY = "pose-hold"  # a built-in of the suites that speak decoupled_v1: the diagnostic pose holder
MIB = 2**20


@dataclass(frozen=True)
class Bound:
    """A numeric flag's finite range and its server argument (`scale`: flag units to the server's)."""

    flag: str
    lo: float
    hi: float
    default: float
    server_arg: str
    scale: float = 1.0
    whole: bool = False
    help: str = ""

    def value(self, given: float):
        """The server argument for `given`, or UsageError naming the range (NaN and infinities included)."""
        if not (math.isfinite(given) and self.lo <= given <= self.hi):
            raise UsageError(f"{self.flag} must be a number from {self.lo:g} to {self.hi:g}, got {given:g}")
        return int(given * self.scale) if self.whole or self.scale != 1.0 else given


BOUNDS = (
    Bound("--max-body-mb", 0.001, 4096, DEFAULT_MAX_BODY_BYTES / MIB, "max_body_bytes", MIB,
          help="largest request body accepted, in MiB; a larger one is refused with 413 unread"),
    Bound("--read-timeout-s", 0.01, 3600, DEFAULT_READ_TIMEOUT_S, "read_timeout_s",
          help="close a connection that sends nothing for this many seconds, mid-request or between requests"),
    Bound("--request-timeout-s", 0.01, 86400, DEFAULT_REQUEST_TIMEOUT_S, "request_timeout_s",
          help="answer 408 (or close) a request whose headers and body have not all arrived in this many seconds, "
          "however steadily they trickle"),
    Bound("--max-connections", 1, 1024, DEFAULT_MAX_CONNECTIONS, "max_connections", whole=True,
          help="connections served at once (one thread each); more are answered 503 at once"),
    Bound("--max-buffer-mb", 0.001, 65536, DEFAULT_MAX_BUFFER_BYTES / MIB, "max_buffer_bytes", MIB,
          help="request bodies held at once over all connections, in MiB (at least --max-body-mb); a body that does "
          "not fit waits until its request's deadline, then gets 503"),
)


def _load(args, suite):
    """(policy, checkpoint, extra /info fields): a --policy reference (or a built-in of the suite), or a --model
    resolved and loaded."""
    if not args.model:
        for flag, value in (("--revision", args.revision), ("--device", args.device)):
            if value is not None:
                raise PolicyLoadError(f"{flag} goes with --model")
        builtin = suite.builtin_policies_for(args.controller)
        if args.policy is None and DEFAULT_POLICY not in builtin:
            raise PolicyLoadError(f"name a --policy: MODULE:FUNCTION, path/to/file.py:FUNCTION or a built-in ({', '.join(builtin)})")
        return load_policy(args.policy or DEFAULT_POLICY, aliases=builtin), args.checkpoint, None
    if args.policy or args.checkpoint:
        raise PolicyLoadError("--model is served alone: it is identified by its weight and configuration hashes, not --policy / --checkpoint")
    from ..policies.model import MODEL_KEYS, load, resolve
    from ..policies.model.device import Device

    resolved = resolve.resolve(args.model, args.revision)
    check_model_fits(suite, args.controller, load.describe(resolved))
    policy, info = load.load(resolved, Device.parse(args.device or "auto"))
    return policy, info["checkpoint"], {k: info[k] for k in MODEL_KEYS}


def build_parser() -> OneLineParser:
    default = suites.default()
    parser = OneLineParser(
        prog="htb-serve",
        description="Serve a policy's predict(request) -> (T, action_dim) action chunk over HTTP for one evaluator, "
        "in one suite's action contract and request schema.",
    )
    parser.add_argument(
        "--policy",
        metavar="REF",
        help="MODULE:FUNCTION, path/to/file.py:FUNCTION or a built-in of the suite (default: pose-hold, the diagnostic "
        "pose-holding example, where the suite has it)",
    )
    parser.add_argument(
        "--model",
        metavar="PATH_OR_ID",
        help="serve a native ACT / Diffusion Policy or LeRobot checkpoint (as htb-eval --model); needs the model extra",
    )
    parser.add_argument("--revision", help="with a hub --model: the branch, tag or commit (default: main)")
    parser.add_argument("--device", help="with --model: auto (default), cpu or cuda:N")
    parser.add_argument("--checkpoint", metavar="STR", help="checkpoint identity recorded with every result")
    parser.add_argument(
        "--suite",
        default=default.name,
        help=f"whose action contract and request schema the policy speaks (default: {default.name})",
    )
    parser.add_argument(
        "--controller",
        choices=sorted(CONTROLLERS),
        help="the controller the evaluator runs, where the suite's contract depends on it (default: the suite's protocol)",
    )
    parser.add_argument(
        "--protocol",
        choices=("http", "openpi"),
        default="http",
        help="http: POST /act with JSON (default); openpi: openpi's websocket protocol, msgpack-numpy frames, "
        "metadata on connect, GET /healthz",
    )
    parser.add_argument(
        "--protocol-map",
        metavar="FILE",
        help='with --protocol openpi: JSON {"keys": {REQUEST_PATH: OBSERVATION_KEY}, "actions": KEY} replacing the '
        "suite's default keys entry by entry",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=21000, help="port to listen on (default: 21000)")
    parser.add_argument(
        "--allow-shared",
        action="store_true",
        help="let several evaluators use this server at once (only for stateless policies)",
    )
    for bound in BOUNDS:
        parser.add_argument(
            bound.flag,
            type=int if bound.whole else float,
            default=bound.default,
            metavar="N" if bound.whole else "X",
            help=f"{bound.help}; {bound.lo:g} to {bound.hi:g} (default: %(default)g)",
        )
    return parser


def _settings(args):
    """The suite and the server's arguments from the command line, or UsageError in one line."""
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be between 0 (any free port) and 65535, got {args.port}")
    try:
        suite = suites.get(args.suite)
    except suites.SuiteError as exc:
        raise UsageError(str(exc)) from None
    check_controller(suite, args.controller)
    limits = {b.server_arg: b.value(getattr(args, b.flag[2:].replace("-", "_"))) for b in BOUNDS}
    if limits["max_buffer_bytes"] < limits["max_body_bytes"]:
        raise UsageError(f"--max-buffer-mb ({args.max_buffer_mb:g}) must be at least --max-body-mb ({args.max_body_mb:g})")
    settings = {"contract": suite.action_contract(args.controller), "schema": suite.request_schema, **limits}
    if args.protocol_map and args.protocol != "openpi":
        raise UsageError("--protocol-map goes with --protocol openpi")
    if args.protocol == "openpi":
        if missing_packages():
            raise UsageError(missing_packages())
        try:
            keys = suite.openpi_keys()
            settings["keys"] = keys.from_file(args.protocol_map) if args.protocol_map else keys
        except KeysError as exc:
            raise UsageError(str(exc)) from None
    return suite, settings


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        suite, settings = _settings(args)
        policy, checkpoint, extra = _load(args, suite)
    except (UsageError, PolicyLoadError) as exc:
        print(f"htb-serve: {exc}", file=sys.stderr)
        return 2
    args.checkpoint = checkpoint
    if args.checkpoint is None:
        print("htb-serve: warning: no --checkpoint given; results will record checkpoint: null", file=sys.stderr)
    contract, schema = settings["contract"], settings["schema"]

    def ready(url: str) -> None:
        flags = [flag for flag, on in (("diagnostic", policy.diagnostic), ("privileged", policy.privileged)) if on]
        kind = f" ({', '.join(flags)})" if flags else ""
        print(f"serving policy {policy.name!r}{kind} from {policy.source} at {url}")
        identity = f"weights_sha256: {extra['weights_sha256']}" if extra else f"adapter_sha256: {policy.adapter_sha256}"
        print(f"  checkpoint: {args.checkpoint}  {identity}", flush=True)
        print(f"  suite: {args.suite}  action schema: {contract.name}  request schema: {schema.name if schema else None}", flush=True)
        if args.protocol == "openpi":
            print(f"  protocol: openpi (health: {url.replace('ws://', 'http://')}/healthz)", flush=True)

    if args.protocol == "openpi":
        from ..policies.openpi_ws_server import OpenpiServer as Server
    else:
        Server = PolicyServer
    server = Server(
        policy, checkpoint=args.checkpoint, allow_shared=args.allow_shared, extra_info=extra, **settings
    )
    try:
        server.serve_forever(args.host, args.port, ready=ready)
    except OSError as exc:
        print(f"htb-serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("htb-serve: stopped", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
