"""Generates the Python modules, gRPC stubs and type stubs from ``protos/`` into ``cardroom/``.

Run as ``python -m shared.protogen`` (``make protos`` does). The generated package ``cardroom``
mirrors the proto packages (``cardroom.table.v1.table_pb2``) and is not committed.
"""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTOS = ROOT / "protos"


def generate(out: Path = ROOT) -> None:
    sources = sorted(str(path.relative_to(PROTOS)) for path in PROTOS.rglob("*.proto"))
    well_known = str(resources.files("grpc_tools") / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTOS}",
        f"-I{well_known}",
        f"--python_out={out}",
        f"--grpc_python_out={out}",
        f"--mypy_out={out}",
        # Every channel and server here is grpc.aio: async-only stubs type calls as awaitable.
        f"--mypy_grpc_out=only_async:{out}",
        *sources,
    ]
    # protoc finds the mypy plugins by name; they are installed beside this interpreter.
    os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed")
    for folder in [out / "cardroom", *(p for p in (out / "cardroom").rglob("*") if p.is_dir())]:
        (folder / "__init__.py").touch()
    (out / "cardroom" / "py.typed").touch()


if __name__ == "__main__":
    generate()
    sys.exit(0)
