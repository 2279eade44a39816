"""What hostile clients can take from a policy server: threads held by slow clients, memory held by large bodies.

Starts `htb-serve` (the pose holder) in its own process on the loopback
interface, then, from this process:

1. opens N slow connections, each announcing a 1000-byte body and sending
   one byte a second (never silent long enough for a read timeout), for
   --hold-s seconds; it reports the server's threads (from /proc) at the
   peak and at the end, and how many connections were answered at once
   (503) or cut off (408);
2. sends M bodies of --body-mb MiB at once (whitespace: the server reads each
   whole, then answers 400) and reports the server's peak resident memory
   (VmHWM) before and after them.

`--src DIR` serves from another checkout's `src` (its code as it was), and
arguments after `--` go to htb-serve, so that one command measures a server
before and after a change:

    python benchmarks/server_probe.py --src OLD/src
    python benchmarks/server_probe.py -- --request-timeout-s 5

Everything stays on 127.0.0.1 and every count and duration is bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

HOST = "127.0.0.1"
SRC = Path(__file__).resolve().parents[1] / "src"


def proc_status(pid: int) -> dict[str, int]:
    """Threads, and resident memory now and at its peak (MiB), of a process."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    kib = lambda key: int(fields[key].split()[0]) // 1024  # noqa: E731
    return {"threads": int(fields["Threads"]), "rss_mib": kib("VmRSS"), "peak_rss_mib": kib("VmHWM")}


def start_server(src: Path, extra: list[str]) -> tuple[subprocess.Popen, int]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    cmd = [sys.executable, "-m", "humanoidtoolbench.cli.serve", "--host", HOST, "--port", "0", "--checkpoint", "probe", *extra]
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    first = server.stdout.readline()
    if not first.startswith("serving policy"):
        server.kill()
        raise SystemExit(f"server_probe: the server did not start: {first!r}")
    return server, int(first.rsplit(":", 1)[1])


def status_of(sock: socket.socket) -> str:
    """The status code of what the server sent (non-blocking), '' for nothing yet, 'closed' for a closed socket."""
    try:
        data = sock.recv(64, socket.MSG_DONTWAIT | socket.MSG_PEEK)
    except BlockingIOError:
        return ""
    except OSError:
        return "closed"
    return data.split(b" ")[1].decode() if data.startswith(b"HTTP/") else "closed"


def slow_clients(pid: int, port: int, count: int, hold_s: float) -> dict:
    socks = []
    for _ in range(count):
        s = socket.create_connection((HOST, port), timeout=10)
        s.settimeout(None)  # blocking: a peek with MSG_DONTWAIT must not wait for the timeout
        s.sendall(b"POST /act HTTP/1.1\r\nHost: probe\r\nContent-Length: 1000\r\n\r\n")
        socks.append(s)
    peak, started = proc_status(pid)["threads"], time.monotonic()
    while time.monotonic() - started < hold_s:
        for s in socks:
            if status_of(s) == "":
                try:
                    s.sendall(b"x")
                except OSError:
                    pass
        peak = max(peak, proc_status(pid)["threads"])
        time.sleep(1.0)
    answers: dict[str, int] = {}
    for s in socks:
        key = status_of(s) or "still held"
        answers[key] = answers.get(key, 0) + 1
    end = proc_status(pid)["threads"]
    for s in socks:
        s.close()
    return {"slow_clients": count, "held_s": hold_s, "peak_threads": peak, "threads_at_end": end, "slow_answers": answers}


def large_bodies(pid: int, port: int, count: int, mib: float) -> dict:
    size = int(mib * 2**20)
    before = proc_status(pid)["peak_rss_mib"]
    statuses: list[str] = []

    def send() -> None:
        try:
            with socket.create_connection((HOST, port), timeout=120) as s:
                s.sendall(f"POST /act HTTP/1.1\r\nHost: probe\r\nContent-Length: {size}\r\n\r\n".encode())
                chunk = b" " * 2**20
                for start in range(0, size, len(chunk)):
                    s.sendall(chunk[: size - start])
                statuses.append(s.recv(64).split(b" ")[1].decode())
        except OSError as exc:
            statuses.append(type(exc).__name__)

    threads = [threading.Thread(target=send) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    after = proc_status(pid)["peak_rss_mib"]
    counted = {s: statuses.count(s) for s in sorted(set(statuses))}
    return {"bodies": count, "body_mib": mib, "peak_rss_mib_before": before, "peak_rss_mib_after": after, "body_answers": counted}


def main() -> int:
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--src", type=Path, default=SRC, help="the package source to serve from (default: this checkout's)")
    p.add_argument("--slow", type=int, default=64, help="slow connections, 1 to 256 (default 64)")
    p.add_argument("--hold-s", type=float, default=10.0, help="how long they trickle, 1 to 120 s (default 10)")
    p.add_argument("--bodies", type=int, default=8, help="large bodies sent at once, 1 to 32 (default 8)")
    p.add_argument("--body-mb", type=float, default=60.0, help="their size in MiB, 1 to 256 (default 60)")
    args = p.parse_args(own)
    if not (1 <= args.slow <= 256 and 1 <= args.hold_s <= 120 and 1 <= args.bodies <= 32 and 1 <= args.body_mb <= 256):
        p.error("--slow 1-256, --hold-s 1-120, --bodies 1-32, --body-mb 1-256")
    server, port = start_server(args.src.resolve(), extra)
    try:
        idle = proc_status(server.pid)
        slow = slow_clients(server.pid, port, args.slow, args.hold_s)
        time.sleep(1.0)
        large = large_bodies(server.pid, port, args.bodies, args.body_mb)
    finally:
        server.terminate()
        server.wait(timeout=30)
    figures = {"src": str(args.src), "server_args": extra, "idle": idle, **slow, **large}
    print(json.dumps(figures))
    print(
        f"{args.slow} slow clients for {args.hold_s:g} s: peak {slow['peak_threads']} server threads "
        f"({idle['threads']} idle), {slow['threads_at_end']} at the end; answers {slow['slow_answers']}"
    )
    print(
        f"{args.bodies} bodies of {args.body_mb:g} MiB at once: peak RSS {large['peak_rss_mib_before']} -> "
        f"{large['peak_rss_mib_after']} MiB; answers {large['body_answers']}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
