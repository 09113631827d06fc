"""Refusals with a machine-readable reason: gRPC status plus ``google.rpc.ErrorInfo``.

Domain code raises ``ServiceError``; the server interceptor (``shared.server``) turns it into a
rich status (``grpc-status-details-bin``) whose ErrorInfo ``reason`` is one of
``cardroom.common.v1.ErrorReason`` without its prefix and ``domain`` the service's name.
"""

from __future__ import annotations

from typing import Mapping

import grpc
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_status import rpc_status

from shared.games.base import Rejection

# Engine rejection reasons (rules/README.md) as the API's reasons and status codes.
_REJECTION_CODES: dict[str, grpc.StatusCode] = {
    "not_your_turn": grpc.StatusCode.FAILED_PRECONDITION,
    "illegal": grpc.StatusCode.FAILED_PRECONDITION,
    "cooldown": grpc.StatusCode.FAILED_PRECONDITION,
    "stale": grpc.StatusCode.ABORTED,
    "bad_target": grpc.StatusCode.INVALID_ARGUMENT,
    "own_quartet": grpc.StatusCode.FAILED_PRECONDITION,
    "unknown_action": grpc.StatusCode.INVALID_ARGUMENT,
    "round_over": grpc.StatusCode.FAILED_PRECONDITION,
    "bad_option": grpc.StatusCode.INVALID_ARGUMENT,
    "bad_seat_count": grpc.StatusCode.INVALID_ARGUMENT,
    "bad_deal": grpc.StatusCode.INVALID_ARGUMENT,
}


class ServiceError(Exception):
    """A refusal: changes nothing, tells the client why."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata = dict(metadata or {})

    @classmethod
    def from_rejection(cls, rejection: Rejection) -> ServiceError:
        code = _REJECTION_CODES.get(rejection.reason, grpc.StatusCode.FAILED_PRECONDITION)
        return cls(code, rejection.reason.upper(), rejection.message)


def invalid(field: str, message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT", message, {"field": field})


def not_found(what: str, message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.NOT_FOUND, "NOT_FOUND", message, {"resource": what})


def to_status(error: ServiceError, domain: str) -> grpc.Status:
    info = error_details_pb2.ErrorInfo(reason=error.reason, domain=domain, metadata=error.metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    status = status_pb2.Status(code=_code_number(error.code), message=error.message, details=[detail])
    return rpc_status.to_status(status)


def _code_number(code: grpc.StatusCode) -> int:
    return code_pb2.Code.Value(code.name)


def error_info(call_error: grpc.RpcError) -> error_details_pb2.ErrorInfo | None:
    """The ErrorInfo of a refused call, for clients and tests."""
    status = rpc_status.from_call(call_error)
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None
