"""``make run``: the whole backend on this machine, each service its own process, on SQLite.

Prints where each service listens and where its metrics are, then waits; Ctrl-C (or SIGTERM)
stops all four gracefully. Data goes to ``CARDROOM_DATA_DIR`` (default ``var/``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from shared.config import DEFAULT_PORTS, data_dir, service_address, service_settings

SERVICES = ("rating", "profile", "table", "matchmaking")  # dependencies first
STARTUP_SECONDS = 30.0  # a cold start migrates four SQLite databases; generous for slow disks


def _wait_healthy(address: str, deadline: float) -> bool:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    while time.time() < deadline:
        with grpc.insecure_channel(address) as channel:
            try:
                answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1.0)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return True
            except grpc.RpcError:
                pass
        time.sleep(0.2)
    return False


def main() -> int:
    data_dir().mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("CARDROOM_SHARD_ID", "local-table-0")
    children: dict[str, subprocess.Popen[bytes]] = {}
    logs = {}
    for name in SERVICES:
        log_path = data_dir() / f"{name}.log"
        logs[name] = log_path
        children[name] = subprocess.Popen(
            [sys.executable, "-m", f"services.{name}.app"], env=env, stdout=subprocess.DEVNULL, stderr=open(log_path, "ab")
        )
    deadline = time.time() + STARTUP_SECONDS
    print("cardroom is starting (SQLite under %s)" % data_dir().resolve())
    ok = True
    for name in SERVICES:
        settings = service_settings(name)
        healthy = _wait_healthy(service_address(name), deadline)
        ok = ok and healthy
        state = "ready" if healthy else f"NOT READY (see {logs[name]})"
        print(f"  {name:<12} grpc {service_address(name):<18} metrics http://127.0.0.1:{settings.metrics_port}/metrics  {state}")
    if not ok:
        _stop(children)
        return 1
    print("Logs: %s/*.log. Try, in another terminal: .venv/bin/cardroom play four_down. Ctrl-C stops everything." % data_dir())
    stopping = {"flag": False}

    def stop(_signum: int, _frame: object) -> None:
        stopping["flag"] = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    while not stopping["flag"]:
        for name, child in children.items():
            if child.poll() is not None:
                print(f"{name} exited with {child.returncode}; see {logs[name]}")
                stopping["flag"] = True
        time.sleep(0.5)
    _stop(children)
    return 0


def _stop(children: dict[str, subprocess.Popen[bytes]]) -> None:
    for child in children.values():
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    for child in children.values():
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()


assert set(SERVICES) == set(DEFAULT_PORTS)

if __name__ == "__main__":
    sys.exit(main())
