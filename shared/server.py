"""The gRPC server every cardroom service runs: health, reflection, auth, errors, metrics, shutdown.

A service builds a ``GrpcApp``, adds its servicers and starts it; tests do the same on port 0.
Every call passes one interceptor that

* checks the bearer token (except the methods a service names as public) and makes the caller's
  claims available through ``caller()``;
* turns ``ServiceError`` (and engine ``Rejection``) into a status with ``google.rpc.ErrorInfo``, and
  anything unexpected into INTERNAL without details (logged, never shown);
* records latency per method and status code.

Responses may be handed over already serialized (``bytes``): the table service serializes each
public event once and gives the same bytes to every stream.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import signal
import time
from typing import Any, AsyncIterator, Awaitable, Callable, Coroutine, Iterable

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from shared.auth import Claims, TokenError, TokenIssuer
from shared.config import ServiceSettings
from shared.errors import ServiceError, to_status
from shared.games.base import Rejection
from shared.metrics import GRPC_HANDLING, GRPC_IN_FLIGHT, GRPC_STARTED, start_metrics

log = logging.getLogger(__name__)

# Phones: clients may ping every 30 s without data (DESIGN "Streams for mobile"); the server pings
# idle connections every 60 s so that a vanished phone's streams are closed within ~80 s and NAT
# mappings stay open. More pings would cost phone batteries.
KEEPALIVE_OPTIONS: list[tuple[str, Any]] = [
    ("grpc.keepalive_time_ms", 60_000),
    ("grpc.keepalive_timeout_ms", 20_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", 30_000),
    ("grpc.http2.min_recv_ping_interval_without_data_ms", 30_000),
    ("grpc.http2.max_ping_strikes", 2),
]
# grpc core refuses calls beyond 1,000 waiting for the Python side (MEASURED.md): 2,000 phones
# reconnecting at once after a deploy would see a third of their Watch streams CANCELLED.
CAPACITY_OPTIONS: list[tuple[str, Any]] = [
    ("grpc.server.max_pending_requests", 20_000),
    ("grpc.server.max_pending_requests_hard_limit", 30_000),
    ("grpc.max_concurrent_streams", 1_000),
    ("grpc.so_reuseport", 0),
]
SERVER_OPTIONS = KEEPALIVE_OPTIONS + CAPACITY_OPTIONS

_CALLER: contextvars.ContextVar[Claims | None] = contextvars.ContextVar("cardroom_caller", default=None)


def caller() -> Claims:
    """The authenticated caller of the current call."""
    claims = _CALLER.get()
    if claims is None:
        raise ServiceError(grpc.StatusCode.UNAUTHENTICATED, "TOKEN_MISSING", "this call needs a bearer token")
    return claims


def require_service() -> Claims:
    """The caller, who must hold service credentials."""
    claims = caller()
    if not claims.is_service:
        raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN", "only cardroom services may call this")
    return claims


def require_player() -> Claims:
    """The caller, who must be a player (an access token)."""
    claims = caller()
    if claims.kind != "access":
        raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "FORBIDDEN", "this call is for players")
    return claims


def bearer(context: grpc.aio.ServicerContext) -> str:
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and isinstance(value, str):
            scheme, _, token = value.partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


def _serialize(serializer: Callable[[Any], bytes] | None) -> Callable[[Any], bytes]:
    def serialize(message: Any) -> bytes:
        if isinstance(message, bytes):
            return message
        return serializer(message) if serializer else message.SerializeToString()

    return serialize


class CardroomInterceptor(grpc.aio.ServerInterceptor):
    """Auth, rich errors and metrics for every cardroom method (health and reflection pass by)."""

    def __init__(self, service: str, issuer: TokenIssuer, public_methods: Iterable[str] = ()) -> None:
        self.service = service
        self.domain = f"{service}.cardroom"
        self.issuer = issuer
        self.public_methods = frozenset(public_methods)

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler | None]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler | None:
        handler = await continuation(details)
        method = details.method
        if handler is None or not method.startswith("/cardroom."):
            return handler
        name = method.rsplit("/", 1)[-1]
        needs_token = method not in self.public_methods
        serializer = _serialize(handler.response_serializer)
        if handler.unary_unary:
            return grpc.unary_unary_rpc_method_handler(
                self._unary(name, needs_token, handler.unary_unary),
                request_deserializer=handler.request_deserializer,
                response_serializer=serializer,
            )
        if handler.unary_stream:
            return grpc.unary_stream_rpc_method_handler(
                # typeshed types handler behaviours the sync way; under grpc.aio this one is an async generator.
                self._stream(name, needs_token, handler.unary_stream),  # type: ignore[arg-type]
                request_deserializer=handler.request_deserializer,
                response_serializer=serializer,
            )
        return handler

    def _authenticate(self, context: grpc.aio.ServicerContext, needs_token: bool) -> None:
        token = bearer(context)
        if not token and not needs_token:
            _CALLER.set(None)
            return
        _CALLER.set(self.issuer.verify(token, "access", "service"))

    def _unary(self, name: str, needs_token: bool, behaviour: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def handle(request: Any, context: grpc.aio.ServicerContext) -> Any:
            with _CallMetrics(self.service, name) as call:
                try:
                    self._authenticate(context, needs_token)
                    return await behaviour(request, context)
                except Exception as error:  # noqa: BLE001 - every failure becomes a clear status
                    await self._refuse(error, context, call, name)

        return handle

    def _stream(self, name: str, needs_token: bool, behaviour: Callable[..., AsyncIterator[Any]]) -> Callable[..., AsyncIterator[Any]]:
        async def handle(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
            with _CallMetrics(self.service, name) as call:
                try:
                    self._authenticate(context, needs_token)
                    async for message in behaviour(request, context):
                        yield message
                except Exception as error:  # noqa: BLE001
                    await self._refuse(error, context, call, name)

        return handle

    async def _refuse(self, error: Exception, context: grpc.aio.ServicerContext, call: _CallMetrics, name: str) -> None:
        if isinstance(error, (grpc.aio.AbortError, asyncio.CancelledError)):
            call.code = "CANCELLED" if isinstance(error, asyncio.CancelledError) else call.code
            raise error
        if isinstance(error, Rejection):
            error = ServiceError.from_rejection(error)
        elif isinstance(error, TokenError):
            error = ServiceError(grpc.StatusCode.UNAUTHENTICATED, error.reason, error.message)
        elif not isinstance(error, ServiceError):
            log.exception("unexpected error in %s", name, extra={"method": name})
            error = ServiceError(grpc.StatusCode.INTERNAL, "INTERNAL", "internal error; it has been logged")
        call.code = error.code.name
        await context.abort_with_status(to_status(error, self.domain))


class _CallMetrics:
    def __init__(self, service: str, method: str) -> None:
        self.service, self.method, self.code = service, method, "OK"

    def __enter__(self) -> _CallMetrics:
        self.started = time.perf_counter()
        GRPC_STARTED.labels(self.service, self.method).inc()
        GRPC_IN_FLIGHT.labels(self.service, self.method).inc()
        return self

    def __exit__(self, *exc: object) -> None:
        GRPC_IN_FLIGHT.labels(self.service, self.method).dec()
        GRPC_HANDLING.labels(self.service, self.method, self.code).observe(time.perf_counter() - self.started)


class GrpcApp:
    """One service's gRPC server with the standard health and reflection services."""

    def __init__(self, settings: ServiceSettings, public_methods: Iterable[str] = ()) -> None:
        self.settings = settings
        self.issuer = TokenIssuer(settings.jwt_secret)
        self.server = grpc.aio.server(
            options=SERVER_OPTIONS,
            interceptors=[CardroomInterceptor(settings.name, self.issuer, public_methods)],
        )
        self.health = health.aio.HealthServicer() if hasattr(health, "aio") else health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        self.service_names: list[str] = []
        self.port = 0
        self._shutdown_hooks: list[Callable[[], Awaitable[None]]] = []

    def add(self, adder: Callable[[Any, grpc.aio.Server], None], servicer: Any, full_name: str) -> None:
        adder(servicer, self.server)
        self.service_names.append(full_name)

    def on_shutdown(self, hook: Callable[[], Awaitable[None]]) -> None:
        """Run ``hook`` after the server stops taking calls and before it exits (draining)."""
        self._shutdown_hooks.append(hook)

    async def start(self, address: str | None = None) -> int:
        names = [*self.service_names, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME]
        reflection.enable_server_reflection(names, self.server)
        self.port = self.server.add_insecure_port(address or self.settings.address)
        await self.server.start()
        for name in ["", *self.service_names]:
            await _set_health(self.health, name, health_pb2.HealthCheckResponse.SERVING)
        log.info("listening", extra={"address": address or self.settings.address, "port": self.port})
        return self.port

    async def stop(self, grace: float | None = None) -> None:
        for name in ["", *self.service_names]:
            await _set_health(self.health, name, health_pb2.HealthCheckResponse.NOT_SERVING)
        for hook in self._shutdown_hooks:
            await hook()
        await self.server.stop(self.settings.grace_seconds if grace is None else grace)

    async def run(self) -> None:
        """Serve until SIGTERM or SIGINT, then drain and stop gracefully."""
        start_metrics(self.settings.metrics_port)
        await self.start()
        stopping = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stopping.set)
        await stopping.wait()
        log.info("stopping: draining calls", extra={"grace_seconds": self.settings.grace_seconds})
        await self.stop()
        log.info("stopped")


async def _set_health(servicer: Any, name: str, status: int) -> None:
    result = servicer.set(name, status)
    if asyncio.iscoroutine(result):
        await result


def run_service(main: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run a service's async main on uvloop where available (measurably faster fan-out)."""
    try:
        import uvloop

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())
