"""Services as real processes, for tests that kill them (SIGKILL) and start them again."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.conftest import TEST_SECRET

ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 30.0  # a cold interpreter importing grpc and migrating a database


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_serving(address: str, timeout: float = STARTUP_SECONDS) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        with grpc.insecure_channel(address) as channel:
            try:
                answer = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=1.0)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
        time.sleep(0.1)
    raise TimeoutError(f"{address} did not become healthy")


class ServiceProcess:
    """One service started as ``python -m services.<name>.app`` with its own environment."""

    def __init__(self, name: str, port: int, env: dict[str, str], log_path: Path) -> None:
        self.name, self.port, self.log_path = name, port, log_path
        self.env = {
            **os.environ,
            "CARDROOM_JWT_SECRET": TEST_SECRET,
            f"CARDROOM_{name.upper()}_PORT": str(port),
            f"CARDROOM_{name.upper()}_METRICS_PORT": "0",
            "PYTHONPATH": str(ROOT),
            **env,
        }
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", f"services.{self.name}.app"], cwd=ROOT, env=self.env, stdout=log, stderr=log
            )
        wait_serving(self.address)

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind, as when a node dies."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def terminate(self) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)
