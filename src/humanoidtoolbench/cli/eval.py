"""`htb-eval`: evaluate a policy on one condition or a whole suite, with the suite's standard protocol."""

from __future__ import annotations

import argparse
import errno
import os
import sys
import traceback
from pathlib import Path

from .. import suites
from ..control import CONTROLLERS
from ..eval.settings import EvalSettings
from ..eval.thread_pools import bound_thread_pools
from ..policies.errors import PolicyConnectionError, PolicyError, PolicyLoadError
from ..policies.http_client import DEFAULT_TIMEOUT_S, PREFLIGHT_TIMEOUT_S
from ..robot import assets
from ..suites.base import SuiteDataError
from .common import (
    MAX_EPISODES, MAX_WORKERS, SEED_LIMIT, OneLineParser, UsageError, check_controller, check_look, check_model_fits,
    check_seed_range, conditions_of, speaks, worker_count,
)

DEFAULT_OUTPUT = "htb-results"
DEFAULT_PORT = 21000
MAX_POLICY_TIMEOUT_S = 86_400.0
STRING_FLAGS = ("output", "policy", "checkpoint", "host", "port", "workers", "ray_address", "model_config", "model", "revision", "device", "protocol_map")
MODEL_CONFIG_ENV = "HTB_MODEL_CONFIG"  # read by the language-model planner in this process and in workers


def build_parser() -> argparse.ArgumentParser:
    default = suites.default()
    std = default.protocol
    p = OneLineParser(
        prog="htb-eval",
        description="Evaluate a policy on HumanoidToolBench conditions. The defaults are each suite's standard protocol "
        f"(tool use: {std.episodes} episodes from seed {std.seed_start}, {std.max_steps} steps, the {std.controller} "
        f"controller, the {std.look} look); anything else is a "
        "diagnostic run.",
    )
    p.add_argument(
        "env",
        nargs="?",
        default=default.default_condition.name,
        help="condition ID (prefix optional), several of one suite separated by commas, 'all' (every tool-use "
        f"condition) or 'SUITE:all' (default {default.default_condition.name})",
    )
    p.add_argument("--list-envs", action="store_true", help="print every suite's condition IDs in the order 'all' runs them")
    p.add_argument("--dry-run", action="store_true", help="print the settings; start no simulation, contact no server")
    p.add_argument("--episodes", type=int, help=f"1 to {MAX_EPISODES}; default: the suite's protocol ({std.episodes} for tool use)")
    p.add_argument(
        "--seed-start", type=int, help=f"0 or more, every seed below 2**31; default: the suite's protocol ({std.seed_start} for tool use)"
    )
    p.add_argument("--max-steps", type=int, help=f"1 to the suite's protocol budget ({std.max_steps} for tool use)")
    p.add_argument(
        "--controller",
        choices=sorted(CONTROLLERS),
        help=f"what executes the commands (default: the suite's protocol, {std.controller} for tool use)",
    )
    p.add_argument(
        "--look",
        choices=sorted({look for s in suites.suites() for look in s.looks}),
        help=f"how the scenes are drawn (default: the suite's protocol, {std.look}); 'fast' draws flat colours "
        "without textures, cheaper, for diagnostics (results are not reportable)",
    )
    p.add_argument("--output", default=DEFAULT_OUTPUT, help=f"results directory (default {DEFAULT_OUTPUT})")
    p.add_argument("--rerun", action="store_true", help="evaluate again even where a matching validated result exists")
    src = p.add_argument_group("policy source (choose one)")
    src.add_argument(
        "--policy",
        metavar="REF",
        help="MODULE:FUNCTION, path/to/file.py:FUNCTION, or a built-in of the suite: "
        + "; ".join(f"{s.name}: {', '.join(s.builtin_policies_for())}" for s in suites.suites()),
    )
    src.add_argument("--checkpoint", help="identifier of the policy's weights, recorded in results (with --policy)")
    src.add_argument(
        "--model",
        metavar="PATH_OR_ID",
        help="a native ACT / Diffusion Policy checkpoint (repository, run or ckpt_STEP directory, or weight file), "
        "a LeRobot pretrained_model directory, or a hub model ID; needs the model extra",
    )
    src.add_argument("--revision", help="with a hub --model: the branch, tag or commit (default: main)")
    src.add_argument("--device", help="with --model: auto (default: CUDA when available), cpu or cuda:N")
    src.add_argument(
        "--model-config",
        metavar="FILE",
        help="a language-model planner's configuration (base_url, model, api_key_env, max_tokens, ...), for --policy llm",
    )
    src.add_argument("--host", help="address of a running policy server")
    src.add_argument(
        "--port",
        default=str(DEFAULT_PORT),
        help=f"policy server port (default {DEFAULT_PORT}); with --workers, one port per worker (P1,P2,...) "
        "or one server started with --allow-shared",
    )
    src.add_argument(
        "--protocol",
        choices=("http", "openpi"),
        default="http",
        help="with --host: what the server speaks, http (POST /act, JSON; default) or openpi (websocket, msgpack-numpy)",
    )
    src.add_argument(
        "--protocol-map",
        metavar="FILE",
        help='with --protocol openpi: JSON {"keys": {REQUEST_PATH: OBSERVATION_KEY}, "actions": KEY} replacing the '
        "suite's default observation keys entry by entry",
    )
    src.add_argument(
        "--policy-timeout",
        metavar="SECONDS",
        type=float,
        help=f"with --host: fail a request the server has not answered in this time, up to {MAX_POLICY_TIMEOUT_S:g} "
        f"(default {DEFAULT_TIMEOUT_S:g}; the pre-flight waits at most {PREFLIGHT_TIMEOUT_S:g})",
    )
    p.add_argument("--no-video", action="store_true", help="skip the cameras (diagnostic: results are not reportable)")
    p.add_argument(
        "--metrics",
        action="store_true",
        help="also record the suite's paper metrics (find-navigate-sit: segmentation per decision, paper_metrics/ per episode); off by default, since they cost a render per decision",
    )
    _add_option_flags(p)
    run = p.add_argument_group("parallel and cluster runs")
    run.add_argument(
        "--workers",
        metavar="N",
        help=f"episodes run at once: 1 to {MAX_WORKERS} or 'auto' (local: number of cores; ray: the cluster's CPUs). "
        "Default 1 locally; results are identical to a serial run",
    )
    run.add_argument("--backend", choices=("local", "ray"), default="local", help="local processes (default) or Ray tasks")
    run.add_argument("--ray-address", help="Ray cluster to join (default: start a local Ray instance); needs --backend ray")
    return p


def _ports(text: str) -> tuple[int, ...]:
    try:
        ports = tuple(int(p) for p in text.split(","))
    except ValueError:
        raise UsageError(f"--port takes a port or a comma-separated list of ports, got {text!r}") from None
    bad = [p for p in ports if not 1 <= p <= 65535]
    if bad:
        raise UsageError(f"--port must be between 1 and 65535, got {bad[0]}")
    return ports


def _workers(args) -> int | None:
    """The requested number of workers (None: as many as the Ray cluster has CPUs).

    Without --workers: one per listed policy server, else 1 locally and 'auto' on Ray.
    """
    default = str(len(args.ports)) if len(args.ports) > 1 else "auto" if args.backend == "ray" else "1"
    given = args.workers or default
    if args.backend == "ray" and given.strip().lower() == "auto":
        return None
    return worker_count(given)


def _check_strings(args) -> None:
    """An empty string is never meant: `--output ''` would write into the current directory."""
    for dest in STRING_FLAGS:
        value = getattr(args, dest)
        if value is not None and not value.strip():
            raise UsageError(f"--{dest.replace('_', '-')} must not be empty")


def _check_numbers(args, conditions) -> None:
    suite = suites.suite_of(conditions[0])
    protocol = suite.protocol
    args.episodes = protocol.episodes if args.episodes is None else args.episodes
    args.seed_start = protocol.seed_start if args.seed_start is None else args.seed_start
    budget = min(suite.budget(c) for c in conditions)  # unset, each condition takes its own
    if args.max_steps is not None and not 1 <= args.max_steps <= budget:
        raise UsageError(f"--max-steps must be between 1 and {budget}, got {args.max_steps}")
    if not 1 <= args.episodes <= MAX_EPISODES:
        raise UsageError(f"--episodes must be between 1 and {MAX_EPISODES}, got {args.episodes}")
    last = SEED_LIMIT - args.episodes
    if not 0 <= args.seed_start <= last:
        raise UsageError(
            f"--seed-start must be between 0 and {last} for {args.episodes} episodes (seeds stay below 2**31), got {args.seed_start}"
        )
    check_seed_range(suite, conditions, args.seed_start, args.episodes)
    check_controller(suite, args.controller)
    check_look(suite, args.look)
    if args.policy_timeout is not None and not 0 < args.policy_timeout <= MAX_POLICY_TIMEOUT_S:
        raise UsageError(
            f"--policy-timeout must be more than 0 and at most {MAX_POLICY_TIMEOUT_S:g} seconds, got {args.policy_timeout:g}"
        )
    args.ports = _ports(args.port)
    requested = _workers(args)
    args.worker_count = requested if requested is None else min(requested, args.episodes)
    if args.ray_address and args.backend != "ray":
        raise UsageError("--ray-address goes with --backend ray")
    if len(args.ports) > 1 and len(args.ports) != requested:
        raise UsageError(f"--port lists {len(args.ports)} servers for --workers {args.workers}: give one port per worker")


def _check_output(args) -> None:
    """Refuse an --output that is a file or cannot be created, without creating it (a dry run checks it too)."""
    output = Path(args.output).absolute()
    try:
        if output.exists() and not output.is_dir():
            raise UsageError(f"--output must be a directory, and {args.output} is a file")
        existing = next(p for p in (output, *output.parents) if p.exists())
    except OSError as exc:
        raise UsageError(f"cannot use --output {args.output}: {exc.strerror or exc}") from None
    if not existing.is_dir():
        raise UsageError(f"cannot create --output {args.output}: {existing} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write to --output {args.output}: no write permission in {existing}")


def _make_output(args) -> None:
    try:
        Path(args.output).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create --output {args.output}: {exc.strerror or exc}") from None


def _check_source(args) -> None:
    given = [flag for flag, value in (("--policy", args.policy), ("--model", args.model), ("--host", args.host)) if value]
    if len(given) > 1:
        raise UsageError(f"{' and '.join(given)} are alternative policy sources; give one")
    if not given:
        builtin = suites.get(args.suite).builtin_policies_for(args.controller)
        raise UsageError(
            f"choose a policy: --policy REF (built-in: {', '.join(builtin)}), --model PATH_OR_ID "
            "or --host HOST [--port PORT]"
        )
    for flag, value in (("--revision", args.revision), ("--device", args.device)):
        if value is not None and not args.model:
            raise UsageError(f"{flag} goes with --model")
    if args.model:
        _check_model(args)
    if args.host and args.checkpoint:
        raise UsageError("--checkpoint goes with --policy; a policy server reports its own checkpoint")
    if args.policy and args.policy_timeout is not None:
        raise UsageError("--policy-timeout goes with --host; an in-process policy is called directly")
    if args.policy and len(args.ports) > 1:
        raise UsageError("--port goes with --host")
    _check_protocol(args)


def _check_protocol(args) -> None:
    """--protocol and --protocol-map: the openpi keys the run sends (`args.openpi_keys`), checked before anything runs."""
    from ..policies.openpi_keys import KeysError, missing_packages

    args.openpi_keys = None
    if args.protocol != "openpi":
        if args.protocol_map:
            raise UsageError("--protocol-map goes with --protocol openpi")
        return
    if not args.host:
        raise UsageError("--protocol openpi goes with --host: it names what a policy server speaks")
    if missing_packages():
        raise UsageError(missing_packages())
    keys = suites.get(args.suite).openpi_keys()
    try:
        args.openpi_keys = keys.from_file(args.protocol_map) if args.protocol_map else keys
    except KeysError as exc:
        raise UsageError(str(exc)) from None


def _check_model(args) -> None:
    """--model's flags and, for a local path, its files, configuration and fit to the suite (no model library
    is imported); a hub model's inputs are known once it is downloaded, so only its contract is checked here."""
    from ..policies.model import ModelError, resolve
    from ..policies.model.device import Device
    from ..policies.model.families import BY_NAME
    from ..policies.model.load import ModelInfo

    suite = suites.get(args.suite)
    if args.checkpoint:
        raise UsageError("--checkpoint goes with --policy; a --model is identified by its weight and configuration hashes")
    if args.policy_timeout is not None or len(args.ports) > 1:
        raise UsageError("--policy-timeout and --port go with --host")
    try:
        args.device_spec = Device.parse(args.device or "auto")
        args.resolved_model = None
        hub = BY_NAME["act"]  # a hub model is one of the image families
        described = ModelInfo(hub.name, None, hub.contract, ())
        if not resolve.looks_like_hub_id(args.model):
            args.resolved_model = resolve.resolve(args.model, args.revision)
            described = _describe_model(args.resolved_model)
    except ModelError as exc:
        raise UsageError(str(exc)) from None
    check_model_fits(suite, args.controller, described)


def _describe_model(resolved):
    from ..policies.model.load import describe

    return describe(resolved)


def _check_model_config(args) -> None:
    """Check the planner's configuration with its suite, before anything is simulated, and hand it to the
    policy (and to every worker) through the environment; what identifies its model joins the policy's
    identity (`args.model_identity`)."""
    args.model_identity = None
    if args.model_config is None and args.policy in suites.get(args.suite).needs_model_config:
        args.model_config = os.environ.get(MODEL_CONFIG_ENV)  # the planner would read it: its model is recorded
        if not args.model_config:
            raise UsageError(f"--policy {args.policy} needs --model-config FILE (the planner's endpoint and model)")
    if args.model_config is None:
        return
    path = Path(args.model_config)
    if not path.is_file():
        raise UsageError(f"--model-config {args.model_config}: no such file")
    try:
        args.model_identity = suites.get(args.suite).check_model_config(path)
    except ValueError as exc:
        raise UsageError(f"--model-config {args.model_config}: {exc}") from None
    os.environ[MODEL_CONFIG_ENV] = str(path.resolve())


def _check_metrics(args, suite) -> None:
    if args.metrics and not suite.paper_metrics:
        raise UsageError(f"--metrics: the {suite.name} suite has no paper metrics (find-navigate-sit has)")


def episode_options() -> dict[str, list]:
    """Each episode-option flag of the registered suites (`suites/options.py`) and the options behind it."""
    flags: dict[str, list] = {}
    for suite in suites.suites():
        for option in suite.options:
            flags.setdefault(option.flag, []).append((suite, option))
    return flags


def _add_option_flags(p) -> None:
    """One flag per suite option; two suites' options of one name share a flag."""
    flags = episode_options()
    owners = ", ".join(dict.fromkeys(s.name for rows in flags.values() for s, _ in rows)) or "none"
    group = p.add_argument_group(f"episode options (suites that have them: {owners}; any but the default is a diagnostic run)")
    for flag, rows in flags.items():
        option = rows[0][1]
        if option.switch:
            group.add_argument(flag, action="store_true", help=option.help)
        else:
            choices = tuple(dict.fromkeys(v for _, o in rows for v in o.values))
            group.add_argument(flag, choices=choices, help=option.help)


def _check_options(args, suite) -> None:
    """The episode options given, checked against the suite's (`Suite.options`)."""
    args.options = {}
    for flag, rows in episode_options().items():
        value = rows[0][1].given(args)
        if value is None:
            continue
        option = suite.option(rows[0][1].name)
        if option is None or option.flag != flag:
            owners = ", ".join(s.name for s, _ in rows)
            raise UsageError(f"{flag}: the {suite.name} suite's episodes have no such option ({owners}'s have)")
        if value not in option.values:
            raise UsageError(f"{flag} {value}: the {suite.name} suite's {option.name} is one of {', '.join(map(str, option.values))}")
        args.options[option.name] = value


def _policy_spec(args):
    from ..policies.policy_source import PolicySpec

    suite = suites.get(args.suite)
    if args.host:
        return PolicySpec(host=args.host, ports=args.ports, timeout=_policy_timeout(args), speaks=speaks(suite, args.controller),
                          protocol=args.protocol, keys=args.openpi_keys)
    if args.model:
        return PolicySpec(model=_resolved_model(args), device=args.device_spec.name)
    builtin = tuple(suite.builtin_policies_for(args.controller).items())
    return PolicySpec(ref=args.policy, checkpoint=args.checkpoint, builtin=builtin)


def _resolved_model(args):
    """The local model checked before, or the hub model resolved now (downloaded unless cached)."""
    if args.resolved_model is None:
        from ..policies.model import resolve

        args.resolved_model = resolve.resolve(args.model, args.revision)
        _describe_model(args.resolved_model)
    return args.resolved_model


def _policy_timeout(args) -> float:
    return DEFAULT_TIMEOUT_S if args.policy_timeout is None else args.policy_timeout


def _open_policy(args, spec):
    """Load the in-process policy or pre-flight every server, before any simulation."""
    policy = spec.open()
    if not args.host or args.worker_count == 1:
        return policy
    from ..eval.identity import policy_identity

    if len(spec.ports) == 1:
        if (policy.info["server_info"].get("server_state") or {}).get("exclusive") is not False:
            workers = args.worker_count or "auto"
            raise UsageError(
                f"--workers {workers} needs one policy server per worker: pass one port per worker "
                f"(--port {spec.ports[0]},{spec.ports[0] + 1},...) or start the server with htb-serve --allow-shared"
            )
        return policy
    for slot in range(1, len(spec.ports)):
        other = spec.open(slot)
        if policy_identity(other.info) != policy_identity(policy.info):
            raise UsageError(
                f"the servers on ports {spec.ports[0]} and {spec.ports[slot]} serve different policies "
                f"({policy_identity(policy.info)} vs {policy_identity(other.info)})"
            )
    return policy


def _match_renderer(policy) -> None:
    """Render on the GPU the model runs on (before any episode, so workers inherit the choice)."""
    from ..policies.model.device import Device, match_renderer

    match_renderer(Device(policy.info["model"]["device"]))


def _backend(args, spec, policy):
    from ..eval.backends import LocalBackend
    from ..eval.ray_backend import RayBackend

    if args.backend == "ray":
        return RayBackend(spec, args.ray_address, args.worker_count)
    return LocalBackend(policy, spec, args.worker_count)


def _model_line(args) -> str:
    """A dry run's description of --model: what a local path resolves to; a hub ID is not looked up."""
    where = f"--model {args.model} on device {args.device_spec.name}"
    model = args.resolved_model
    if model is None:
        return f"{where}, hub revision {args.revision or 'main'} (not downloaded or loaded in a dry run)"
    info = _describe_model(model)
    step = f" step {model.step}" if model.step is not None else ""
    return f"{where}: {info.family.upper()}{step}, {model.weights_path} (chunk {info.chunk_size}; not loaded in a dry run)"


def _dry_run(args, conditions, settings_of) -> None:
    if args.model:
        print(f"policy source: {_model_line(args)}")
    else:
        scheme = "ws" if args.protocol == "openpi" else "http"
        source = f"--policy {args.policy}" if args.policy else f"server {scheme}://{args.host}:{args.port}"
        print(f"policy source: {source} (not loaded or contacted in a dry run)")
    workers = args.worker_count or "auto"
    if args.host:
        print(f"policy timeout: {_policy_timeout(args):g} s per request (pre-flight {PREFLIGHT_TIMEOUT_S:g} s)")
    print(f"output: {Path(args.output).resolve()}")
    print(f"execution: {args.backend} backend, {workers} worker(s)")
    for k, cond in enumerate(conditions, 1):
        s = settings_of(cond)
        reasons = s.diagnostic_reasons()
        seeds = f"{s.seeds[0]}..{s.seeds[-1]}" if len(s.seeds) > 1 else str(s.seeds[0])
        print(
            f"[{k}/{len(conditions)}] {cond.env_id}: {s.episodes} episodes, seeds {seeds}, {s.max_steps} steps, the {s.controller} controller, "
            f"the {s.look} look, "
            f"{'videos of ' + ', '.join(s.cameras) if s.record_video else 'no video'}"
            f"{', paper metrics' if s.paper_metrics else ''}"
            f"{''.join(f', {k}={v}' for k, v in s.options.items())}; instruction {cond.instruction!r}; "
            + ("standard protocol" if not reasons else "diagnostic: " + "; ".join(reasons))
        )


def main(argv: list[str] | None = None) -> int:
    """Run htb-eval; Ctrl-C at any point (pre-flight, loading, evaluating) ends it with one line and status 130."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("htb-eval: interrupted; run the same command again to continue where it stopped", file=sys.stderr)
        return 130


def _main(argv: list[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.list_envs:
            print("\n".join(c.env_id for suite in suites.suites() for c in suite.listed))
            return 0
        _check_strings(args)
        conditions = conditions_of(args.env)
        args.suite = conditions[0].suite
        _check_numbers(args, conditions)
        _check_source(args)
        _check_model_config(args)
        _check_metrics(args, suites.suite_of(conditions[0]))
        _check_options(args, suites.suite_of(conditions[0]))
        _check_output(args)
        if args.backend == "ray":
            from ..eval.ray_backend import RayUnavailable, import_ray

            try:
                import_ray()
            except RayUnavailable as exc:
                raise UsageError(str(exc)) from None
    except UsageError as exc:
        print(f"htb-eval: {exc}", file=sys.stderr)
        return 2

    def settings_of(cond):
        return EvalSettings(
            cond, args.episodes, args.seed_start, args.max_steps, record_video=not args.no_video, controller=args.controller,
            look=args.look, paper_metrics=args.metrics, options=args.options,
        )

    if args.dry_run:
        _dry_run(args, conditions, settings_of)
        return 0
    bound_thread_pools(args.worker_count or 1)
    try:
        assets.installed()
        suites.suite_of(conditions[0]).check_data()
        spec = _policy_spec(args)
        _make_output(args)
        policy = _open_policy(args, spec)
        if args.model_identity is not None:  # two models behind one planner are two policies
            policy.info["model_config"] = args.model_identity
        if args.model:
            _match_renderer(policy)
    except (assets.AssetError, SuiteDataError, PolicyLoadError, PolicyConnectionError, UsageError) as exc:
        print(f"htb-eval: {exc}", file=sys.stderr)
        return 2
    if not policy.info.get("checkpoint"):
        print("htb-eval: warning: no checkpoint identifier; results record checkpoint null, are not reportable and are never resumed (pass --checkpoint)", file=sys.stderr)
    backend = _backend(args, spec, policy)
    try:
        return _evaluate(args, conditions, settings_of, policy, backend)
    finally:
        backend.close()
        policy.close()


_STORAGE_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM)


def _storage_error(exc: OSError) -> str:
    """'No space left on device: <file>' (what and where), without the errno number."""
    return f"{exc.strerror or exc}" + (f": {exc.filename}" if exc.filename else "")


def _evaluate(args, conditions, settings_of, policy, backend) -> int:
    from ..eval.condition import RunFailed, evaluate_condition
    from ..eval.progress import ProgressReporter
    from ..eval.summary import summary_row, write_summary

    output = Path(args.output)
    progress = ProgressReporter()
    failed, rows, disk_failed = [], [], False
    for k, cond in enumerate(conditions, 1):
        label = f"[{k}/{len(conditions)}] {cond.name}" if len(conditions) > 1 else cond.name
        try:
            outcome = evaluate_condition(settings_of(cond), policy, output, progress, args.rerun, label, backend)
        except PolicyError as exc:  # the policy's own failure: one line, the details are in the run log
            failed.append(cond.name)
            rows.append(summary_row(cond.env_id, None, None))
            progress.message(f"htb-eval: {exc}")
            continue
        except RunFailed as exc:  # a lost worker, episodes failing validation: one line, the traceback is in the run log
            failed.append(cond.name)
            rows.append(summary_row(cond.env_id, None, None))
            progress.message(f"{label}: FAILED: {exc}")
            continue
        except Exception as exc:
            failed.append(cond.name)
            if isinstance(exc, OSError) and exc.errno in _STORAGE_ERRORS:
                # The disk, not the code: one line, and no further condition (it would fail the same way).
                progress.message(f"{label}: FAILED: cannot write the results under {output}: {_storage_error(exc)}")
                disk_failed = True
                break
            rows.append(summary_row(cond.env_id, None, None))
            progress.message(f"{label}: FAILED: {type(exc).__name__}: {exc}")
            progress.message(traceback.format_exc().rstrip())
            runs = sorted((output / cond.name).glob("run-*"))
            if runs:
                progress.message(f"{label}: run directory kept for inspection: {runs[-1]} (log: {runs[-1] / 'eval_latest.log'})")
            continue
        r = outcome.result
        # Relative to the summary, so a results directory can be moved, archived or published whole.
        rows.append(summary_row(cond.env_id, r.to_json(), outcome.run.result_path.relative_to(output).as_posix()))
        flag = "reportable" if r.reportable else "not reportable: " + "; ".join(r.reasons)
        progress.message(f"{label}: {r.successes}/{r.episodes} successes ({flag}) -> {outcome.run.result_path}")
    if len(conditions) > 1 and not disk_failed:
        summary = write_summary(output, rows)
        mean = summary.get("mean_success_rate")
        progress.message(
            f"summary: {output / 'summary.md'}"
            + (f"; unweighted mean success rate {mean:.3f}" if mean is not None else "; incomplete, no mean")
        )
    if failed:
        progress.message(f"{len(failed)} condition(s) failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
