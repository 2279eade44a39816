"""`htb-serve`: serve a policy over the public HTTP protocol, one evaluator per server."""

from __future__ import annotations

import argparse
import sys

from ..policies.errors import PolicyLoadError
from ..policies.loader import load_policy
from ..policies.server import DEFAULT_MAX_BODY_BYTES, DEFAULT_READ_TIMEOUT_S, PolicyServer

DEFAULT_POLICY = "humanoidtoolbench.policies.pose_hold:predict"


def _load(args):
    """(policy, checkpoint, extra /info fields): a --policy reference, or a --model resolved and loaded."""
    if not args.model:
        for flag, value in (("--revision", args.revision), ("--device", args.device)):
            if value is not None:
                raise PolicyLoadError(f"{flag} goes with --model")
        return load_policy(args.policy or DEFAULT_POLICY), args.checkpoint, None
    if args.policy or args.checkpoint:
        raise PolicyLoadError("--model is served alone: it is identified by its weight and configuration hashes, not --policy / --checkpoint")
    from ..policies.model import MODEL_KEYS, load, resolve
    from ..policies.model.device import Device

    policy, info = load.load(resolve.resolve(args.model, args.revision), Device.parse(args.device or "auto"))
    return policy, info["checkpoint"], {k: info[k] for k in MODEL_KEYS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="htb-serve",
        description="Serve a policy's predict(request) -> (T, 36) action chunk over HTTP for one evaluator.",
    )
    parser.add_argument(
        "--policy",
        metavar="REF",
        help="MODULE:FUNCTION or path/to/file.py:FUNCTION (default: the diagnostic pose-holding example)",
    )
    parser.add_argument(
        "--model",
        metavar="PATH_OR_ID",
        help="serve a native ACT / Diffusion Policy or LeRobot checkpoint (as htb-eval --model); needs the model extra",
    )
    parser.add_argument("--revision", help="with a hub --model: the branch, tag or commit (default: main)")
    parser.add_argument("--device", help="with --model: auto (default), cpu or cuda:N")
    parser.add_argument("--checkpoint", metavar="STR", help="checkpoint identity recorded with every result")
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=21000, help="port to listen on (default: 21000)")
    parser.add_argument(
        "--allow-shared",
        action="store_true",
        help="let several evaluators use this server at once (only for stateless policies)",
    )
    parser.add_argument(
        "--max-body-mb",
        type=float,
        default=DEFAULT_MAX_BODY_BYTES / 2**20,
        metavar="MIB",
        help="largest request body accepted, in MiB; a larger one is refused with 413 unread (default: %(default)g)",
    )
    parser.add_argument(
        "--read-timeout-s",
        type=float,
        default=DEFAULT_READ_TIMEOUT_S,
        metavar="S",
        help="close a connection that sends nothing for this many seconds, mid-request or between requests "
        "(default: %(default)g)",
    )
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        print(f"htb-serve: --port must be between 0 (any free port) and 65535, got {args.port}", file=sys.stderr)
        return 2
    for flag, value in (("--max-body-mb", args.max_body_mb), ("--read-timeout-s", args.read_timeout_s)):
        if not value > 0:  # NaN too
            print(f"htb-serve: {flag} must be a positive number, got {value:g}", file=sys.stderr)
            return 2

    try:
        policy, checkpoint, extra = _load(args)
    except PolicyLoadError as exc:
        print(f"htb-serve: {exc}", file=sys.stderr)
        return 2
    args.checkpoint = checkpoint
    if args.checkpoint is None:
        print("htb-serve: warning: no --checkpoint given; results will record checkpoint: null", file=sys.stderr)

    def ready(url: str) -> None:
        flags = [flag for flag, on in (("diagnostic", policy.diagnostic), ("privileged", policy.privileged)) if on]
        kind = f" ({', '.join(flags)})" if flags else ""
        print(f"serving policy {policy.name!r}{kind} from {policy.source} at {url}")
        identity = f"weights_sha256: {extra['weights_sha256']}" if extra else f"adapter_sha256: {policy.adapter_sha256}"
        print(f"  checkpoint: {args.checkpoint}  {identity}", flush=True)

    server = PolicyServer(
        policy,
        checkpoint=args.checkpoint,
        allow_shared=args.allow_shared,
        max_body_bytes=int(args.max_body_mb * 2**20),
        read_timeout_s=args.read_timeout_s,
        extra_info=extra,
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
