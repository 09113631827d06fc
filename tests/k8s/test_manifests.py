"""The Kubernetes manifests (``k8s/``) and the image recipe (``Dockerfile``), checked with real tools.

* ``kubectl kustomize`` renders both overlays and the monitoring folder;
* every rendered object validates with ``kubernetes-validate`` (strict: unknown fields fail) against
  the oldest Kubernetes we support and a recent one; the Prometheus Operator's kinds, which it cannot
  know, must parse with their apiVersion;
* ``promtool`` checks the alert rules and runs their unit tests; the PrometheusRule holds the same
  rules; the dashboard's queries are valid PromQL and name only metrics our code defines;
* every workload has gRPC probes on its gRPC port, resource limits, a non-root read-only container,
  a console script of the project as its command, and ports that agree with the ConfigMap.

Limits: no cluster and no Docker engine here, so nothing is applied and the image is not built. A
missing tool (kubectl, promtool, kubernetes-validate) skips its tests locally and fails them under
CI=true.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
MONITORING = K8S / "monitoring"
OVERLAYS = ("local", "production")
SERVICES = ("profile", "matchmaking", "table", "rating")
WORKLOAD_KINDS = ("Deployment", "StatefulSet")
# The Prometheus Operator's kinds: kubernetes-validate knows only the built-in API.
OPERATOR_API_VERSION = "monitoring.coreos.com/v1"
OPERATOR_KINDS = ("ServiceMonitor", "PrometheusRule")
# 1.29: the oldest Kubernetes these manifests promise (k8s/README.md); 1.33: a recent one, so that an
# API removed since shows up here rather than at deploy time.
KUBERNETES_VERSIONS = ("1.29.0", "1.33.0")
SECRET_NAME = "cardroom-secrets"
SECRET_KEYS = {"CARDROOM_JWT_SECRET", "DATABASE_URL"}
# The per-pod wait before SIGTERM (the workloads' preStop hook).
PRE_STOP_COMMAND = ["sleep", "5"]
REQUIRED_ALERTS = {
    "CardroomActionDeliverySlow",
    "CardroomGrpcErrorsHigh",
    "CardroomTableShardDown",
    "CardroomResultsStuckInOutbox",
    "CardroomNoLiveTableShard",
}
# Streams whose "latency" is their whole life: the dashboard leaves them out of latency panels.
STREAMING_METHODS = ("Watch", "JoinQueue", "WatchPrivateTable")

Doc = dict[str, Any]


# -- tools -------------------------------------------------------------------------------------------


def missing(what: str) -> None:
    """Skip locally, fail under CI: CI must run every check."""
    message = f"{what} is not installed"
    if os.environ.get("CI") == "true":
        pytest.fail(message + " (CI must run this check)")
    pytest.skip(message)


def tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        missing(name)
    assert path is not None
    return path


def kubernetes_validate() -> ModuleType:
    try:
        import kubernetes_validate as module
    except ImportError:
        missing("kubernetes-validate (pip install kubernetes-validate)")
        raise
    return module


@functools.lru_cache(maxsize=None)
def _render(folder: str) -> tuple[Doc, ...]:
    result = subprocess.run(
        [shutil.which("kubectl") or "kubectl", "kustomize", folder], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, f"kubectl kustomize {folder} failed:\n{result.stderr}"
    return tuple(doc for doc in yaml.safe_load_all(result.stdout) if doc)


def render(folder: Path) -> list[Doc]:
    tool("kubectl")
    return list(_render(str(folder)))


def promtool(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool("promtool"), *map(str, args)], capture_output=True, text=True, timeout=60)


# -- reading rendered objects ------------------------------------------------------------------------


def objects(docs: list[Doc], kind: str) -> dict[str, Doc]:
    return {doc["metadata"]["name"]: doc for doc in docs if doc["kind"] == kind}


def workloads(docs: list[Doc]) -> dict[str, Doc]:
    return {name: doc for kind in WORKLOAD_KINDS for name, doc in objects(docs, kind).items()}


def only_container(workload: Doc) -> Doc:
    containers = workload["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1, f"{workload['metadata']['name']}: one container per pod"
    return containers[0]


def component(workload: Doc) -> str:
    return workload["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"]


def config(docs: list[Doc]) -> dict[str, str]:
    maps = [doc for name, doc in objects(docs, "ConfigMap").items() if name.startswith("cardroom-config")]
    assert len(maps) == 1, "one cardroom-config ConfigMap"
    return maps[0]["data"]


def port_named(container: Doc, name: str) -> int:
    ports = {port["name"]: port["containerPort"] for port in container.get("ports", [])}
    assert name in ports, f"{container['name']} has no port named {name}"
    return ports[name]


def env_sources(container: Doc) -> dict[str, Doc]:
    return {entry["name"]: entry.get("valueFrom", {}) for entry in container.get("env", [])}


def cpu_cores(quantity: str | int | float) -> float:
    text = str(quantity)
    return float(text[:-1]) / 1000 if text.endswith("m") else float(text)


def memory_bytes(quantity: str | int) -> int:
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30}
    text = str(quantity)
    for suffix, factor in units.items():
        if text.endswith(suffix):
            return int(float(text[: -len(suffix)]) * factor)
    return int(text)


def every_overlay() -> Iterator[tuple[str, list[Doc]]]:
    for overlay in OVERLAYS:
        yield overlay, render(K8S / "overlays" / overlay)


# -- rendering and schema validation ---------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_overlay_renders_every_service(overlay: str) -> None:
    docs = render(K8S / "overlays" / overlay)
    assert {component(workload) for workload in workloads(docs).values()} == set(SERVICES)
    assert objects(docs, "Namespace").keys() == {"cardroom"}
    namespaced = [doc for doc in docs if doc["kind"] != "Namespace"]
    assert all(doc["metadata"].get("namespace") == "cardroom" for doc in namespaced)


def test_table_shards_are_one_locally_and_three_in_production() -> None:
    local = render(K8S / "overlays" / "local")
    production = render(K8S / "overlays" / "production")
    assert objects(local, "StatefulSet")["table"]["spec"]["replicas"] == 1
    assert objects(production, "StatefulSet")["table"]["spec"]["replicas"] == 3
    assert objects(production, "HorizontalPodAutoscaler")["table"]["spec"]["minReplicas"] == 3


def test_local_overlay_has_small_requests_and_no_autoscalers_or_operator_objects() -> None:
    docs = render(K8S / "overlays" / "local")
    assert not objects(docs, "HorizontalPodAutoscaler")
    assert not [doc for doc in docs if doc["kind"] in OPERATOR_KINDS]
    for name, workload in workloads(docs).items():
        assert cpu_cores(only_container(workload)["resources"]["requests"]["cpu"]) <= 0.1, name


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("folder", [*(f"overlays/{o}" for o in OVERLAYS), "monitoring"])
def test_every_rendered_object_is_valid_for_kubernetes(folder: str, version: str) -> None:
    validator = kubernetes_validate()
    problems: list[str] = []
    for doc in render(K8S / folder):
        name = f"{doc['kind']}/{doc['metadata']['name']}"
        if doc["kind"] in OPERATOR_KINDS:
            assert doc["apiVersion"] == OPERATOR_API_VERSION, name
            assert isinstance(doc.get("spec"), dict) and doc["spec"], name
            continue
        try:
            validator.validate(doc, version, strict=True)
        except validator.ValidationError as error:
            problems.append(f"{name} at {'/'.join(map(str, error.absolute_path))}: {error.message}")
    assert not problems, f"{folder} is not valid Kubernetes {version}:\n" + "\n".join(problems)


def test_production_ships_the_operator_objects() -> None:
    docs = render(K8S / "overlays" / "production")
    assert {doc["kind"] for doc in docs if doc.get("apiVersion") == OPERATOR_API_VERSION} == set(OPERATOR_KINDS)


# -- workloads ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_workload_probes_the_grpc_health_service_on_its_grpc_port(overlay: str) -> None:
    docs = render(K8S / "overlays" / overlay)
    settings = config(docs)
    for name, workload in workloads(docs).items():
        container = only_container(workload)
        service = component(workload).upper()
        grpc_port = port_named(container, "grpc")
        assert grpc_port == int(settings[f"CARDROOM_{service}_PORT"]), name
        assert port_named(container, "metrics") == int(settings[f"CARDROOM_{service}_METRICS_PORT"]), name
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"]["port"] == grpc_port, f"{name} {probe}"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_workload_has_resource_limits_at_or_above_its_requests(overlay: str) -> None:
    for name, workload in workloads(render(K8S / "overlays" / overlay)).items():
        resources = only_container(workload)["resources"]
        requests, limits = resources["requests"], resources["limits"]
        assert cpu_cores(requests["cpu"]) <= cpu_cores(limits["cpu"]), name
        assert memory_bytes(requests["memory"]) <= memory_bytes(limits["memory"]), name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_workload_runs_as_the_image_user_on_a_read_only_root(overlay: str) -> None:
    image_user = dockerfile_user()
    for name, workload in workloads(render(K8S / "overlays" / overlay)).items():
        pod = workload["spec"]["template"]["spec"]
        container = only_container(workload)
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        assert pod["securityContext"]["runAsUser"] == image_user, name
        assert container["securityContext"]["readOnlyRootFilesystem"] is True, name
        assert container["securityContext"]["allowPrivilegeEscalation"] is False, name
        assert container["securityContext"]["capabilities"]["drop"] == ["ALL"], name
        tmp = [mount["name"] for mount in container["volumeMounts"] if mount["mountPath"] == "/tmp"]
        volumes = {volume["name"]: volume for volume in pod["volumes"]}
        assert tmp and "emptyDir" in volumes[tmp[0]], f"{name}: /tmp must be a writable emptyDir"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_workload_runs_its_services_console_script(overlay: str) -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    for name, workload in workloads(render(K8S / "overlays" / overlay)).items():
        command = only_container(workload)["command"]
        assert command == [f"cardroom-{component(workload)}"], name
        assert command[0] in scripts, f"{name}: {command[0]} is not a console script of pyproject.toml"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_termination_grace_outlasts_the_pre_stop_wait_and_the_shutdown_grace(overlay: str) -> None:
    docs = render(K8S / "overlays" / overlay)
    shutdown_grace = float(config(docs)["CARDROOM_SHUTDOWN_GRACE_SECONDS"])
    for name, workload in workloads(docs).items():
        pre_stop = only_container(workload)["lifecycle"]["preStop"]["exec"]["command"]
        assert pre_stop == PRE_STOP_COMMAND, name
        wait = float(pre_stop[1])
        assert workload["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > wait + shutdown_grace, name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_secrets_come_only_from_the_referenced_secret(overlay: str) -> None:
    docs = render(K8S / "overlays" / overlay)
    assert not objects(docs, "Secret"), "secret values are never committed"
    for name, workload in workloads(docs).items():
        sources = env_sources(only_container(workload))
        for key in SECRET_KEYS:
            assert sources[key]["secretKeyRef"] == {"name": SECRET_NAME, "key": key}, f"{name} {key}"
    readme = (K8S / "README.md").read_text()
    assert SECRET_NAME in readme and all(f"`{key}`" in readme for key in SECRET_KEYS), "document the Secret's keys"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_config_map_configures_production_listening_and_addresses(overlay: str) -> None:
    docs = render(K8S / "overlays" / overlay)
    settings = config(docs)
    services = objects(docs, "Service")
    assert settings["CARDROOM_ENV"] == "production"
    assert not SECRET_KEYS & settings.keys(), "secrets belong in the Secret"
    for service in SERVICES:
        prefix = f"CARDROOM_{service.upper()}_"
        assert settings[prefix + "HOST"] == "0.0.0.0"
        host, port = settings[prefix + "ADDRESS"].rsplit(":", 1)
        assert host == f"{service}.cardroom.svc.cluster.local"
        grpc_ports = {p["port"] for p in services[service]["spec"]["ports"] if p["name"] == "grpc"}
        assert grpc_ports == {int(port)} == {int(settings[prefix + "PORT"])}
    for name, workload in workloads(docs).items():
        (source,) = only_container(workload)["envFrom"]
        assert source["configMapRef"]["name"] in objects(docs, "ConfigMap"), name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_service_reaches_its_pods_by_named_grpc_and_metrics_ports(overlay: str) -> None:
    docs = render(K8S / "overlays" / overlay)
    pods = workloads(docs)
    for name, service in objects(docs, "Service").items():
        selector = service["spec"]["selector"]
        targets = [w for w in pods.values() if selector.items() <= w["spec"]["template"]["metadata"]["labels"].items()]
        assert len(targets) == 1, f"Service {name} selects one workload"
        ports = {port["name"]: port for port in service["spec"]["ports"]}
        assert ports.keys() == {"grpc", "metrics"}, name
        container = only_container(targets[0])
        for port_name, port in ports.items():
            assert port["targetPort"] == port_name and port["port"] == port_named(container, port_name), name


def test_table_shards_are_named_by_their_pods_and_reachable_one_by_one() -> None:
    docs = render(K8S / "overlays" / "production")
    shards = objects(docs, "StatefulSet")["table"]
    assert env_sources(only_container(shards))["CARDROOM_SHARD_ID"] == {"fieldRef": {"fieldPath": "metadata.name"}}
    services = objects(docs, "Service")
    headless = services[shards["spec"]["serviceName"]]
    assert headless["spec"]["clusterIP"] == "None"
    assert services["table"]["spec"].get("clusterIP") != "None", "a normal Service for any shard too"
    budget = objects(docs, "PodDisruptionBudget")["table"]["spec"]
    assert budget == {"maxUnavailable": 1, "selector": shards["spec"]["selector"]}


def test_matchmaking_runs_exactly_one_replica_even_while_updating() -> None:
    docs = render(K8S / "overlays" / "production")
    matchmaking = objects(docs, "Deployment")["matchmaking"]["spec"]
    assert matchmaking["replicas"] == 1
    assert matchmaking["strategy"] == {"type": "Recreate"}
    scaled = {hpa["spec"]["scaleTargetRef"]["name"] for hpa in objects(docs, "HorizontalPodAutoscaler").values()}
    assert "matchmaking" not in scaled


def test_autoscalers_scale_table_profile_and_rating_by_cpu() -> None:
    docs = render(K8S / "overlays" / "production")
    scalers = objects(docs, "HorizontalPodAutoscaler")
    pods = workloads(docs)
    assert scalers.keys() == {"table", "profile", "rating"}
    for name, scaler in scalers.items():
        target = scaler["spec"]["scaleTargetRef"]
        assert target["name"] in pods and pods[target["name"]]["kind"] == target["kind"], name
        assert [metric["resource"]["name"] for metric in scaler["spec"]["metrics"]] == ["cpu"], name
        replicas = pods[target["name"]]["spec"]["replicas"]
        assert scaler["spec"]["minReplicas"] <= replicas <= scaler["spec"]["maxReplicas"], name
    assert "cardroom_table_open_streams" in (K8S / "base" / "table.yaml").read_text(), "the custom-metrics note"


# -- alert rules -------------------------------------------------------------------------------------


def test_alert_rules_pass_promtool_check() -> None:
    result = promtool("check", "rules", MONITORING / "alerts.rules.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def test_alert_rules_pass_their_unit_tests() -> None:
    result = promtool("test", "rules", MONITORING / "alerts.test.yml")
    assert result.returncode == 0, result.stdout + result.stderr


def rule_groups() -> list[Doc]:
    return yaml.safe_load((MONITORING / "alerts.rules.yml").read_text())["groups"]


def alerts() -> dict[str, Doc]:
    return {rule["alert"]: rule for group in rule_groups() for rule in group["rules"] if "alert" in rule}


def test_the_prometheus_rule_holds_the_same_rules_as_the_plain_file() -> None:
    (rule,) = [doc for doc in yaml.safe_load_all((MONITORING / "prometheusrule.yaml").read_text()) if doc]
    assert rule["apiVersion"] == OPERATOR_API_VERSION and rule["kind"] == "PrometheusRule"
    assert rule["spec"]["groups"] == rule_groups()


def test_every_required_alert_exists_and_is_seen_firing_in_a_unit_test() -> None:
    assert REQUIRED_ALERTS <= alerts().keys()
    unit_tests = yaml.safe_load((MONITORING / "alerts.test.yml").read_text())
    firing = {
        case["alertname"]
        for test in unit_tests["tests"]
        for case in test.get("alert_rule_test", [])
        if case.get("exp_alerts")
    }
    assert firing == alerts().keys(), "every alert needs a unit test in which it fires"


def test_delivery_and_outbox_alerts_keep_their_agreed_thresholds() -> None:
    rules = alerts()
    assert "> 0.1" in rules["CardroomActionDeliverySlow"]["expr"] and rules["CardroomActionDeliverySlow"]["for"] == "5m"
    assert "cardroom_table_outbox_pending" in rules["CardroomResultsStuckInOutbox"]["expr"]
    assert rules["CardroomResultsStuckInOutbox"]["for"] == "10m"


# -- metric names ------------------------------------------------------------------------------------

METRIC_DEFINITION = re.compile(r"\b(Counter|Gauge|Histogram|Summary)\(\s*\"(cardroom_[a-z0-9_]+)\"")
METRIC_USE = re.compile(r"\bcardroom_[a-z0-9_]+\b")


@functools.lru_cache(maxsize=1)
def defined_series() -> frozenset[str]:
    """Every series name our code exposes, from the prometheus_client definitions in shared/ and services/."""
    names: set[str] = set()
    for path in [*ROOT.glob("shared/**/*.py"), *ROOT.glob("services/**/*.py")]:
        for kind, name in METRIC_DEFINITION.findall(path.read_text()):
            if kind == "Histogram":
                names |= {f"{name}_bucket", f"{name}_count", f"{name}_sum"}
            elif kind == "Summary":
                names |= {name, f"{name}_count", f"{name}_sum"}
            elif kind == "Counter":
                names.add(name if name.endswith("_total") else f"{name}_total")
            else:
                names.add(name)
    return frozenset(names)


def unknown_metrics(expression: str) -> set[str]:
    return set(METRIC_USE.findall(expression)) - defined_series()


def test_the_metric_check_knows_our_metrics_and_catches_a_misspelt_one() -> None:
    known = {
        "cardroom_table_live_tables",  # a Gauge
        "cardroom_grpc_server_handling_seconds_bucket",  # a Histogram's buckets
        "cardroom_rating_results_total",  # a Counter defined outside a metrics.py (services/rating/ledger.py)
    }
    assert known <= defined_series()
    assert unknown_metrics("sum(cardroom_table_live_tablez)") == {"cardroom_table_live_tablez"}


def test_alert_rules_name_only_metrics_our_code_defines() -> None:
    for name, rule in alerts().items():
        assert not unknown_metrics(rule["expr"]), f"{name} uses metrics no code defines"


def dashboard() -> Doc:
    return json.loads((MONITORING / "grafana-dashboard.json").read_text())


def dashboard_queries() -> list[tuple[str, str]]:
    """(panel title, PromQL) for every query of the dashboard."""
    return [
        (panel["title"], target["expr"])
        for panel in dashboard()["panels"]
        for target in panel.get("targets", [])
    ]


def test_dashboard_names_only_metrics_our_code_defines_and_shows_each_agreed_view() -> None:
    queries = dashboard_queries()
    for title, expression in queries:
        assert not unknown_metrics(expression), f"panel {title!r} uses metrics no code defines"
    used = {metric for _, expression in queries for metric in METRIC_USE.findall(expression)}
    agreed = {
        "cardroom_grpc_server_handling_seconds_bucket",  # gRPC latency per service and method
        "cardroom_table_action_delivery_seconds_bucket",  # action to delivery
        "cardroom_table_live_tables",
        "cardroom_table_open_streams",
        "cardroom_table_replays_total",
        "cardroom_table_outbox_pending",
        "cardroom_table_outbox_lag_seconds_bucket",
        "cardroom_matchmaking_queue_length",
        "cardroom_matchmaking_queue_wait_seconds_bucket",
        "cardroom_rating_results_total",  # results recorded
    }
    assert agreed <= used, f"missing views: {sorted(agreed - used)}"
    latency = [e for _, e in queries if "cardroom_grpc_server_handling_seconds_bucket" in e]
    assert {"0.5", "0.99"} <= {e.split("(", 1)[1].split(",", 1)[0] for e in latency}
    assert all(all(method in e for method in STREAMING_METHODS) for e in latency), "streams are not latencies"


def test_dashboard_queries_are_valid_promql(tmp_path: Path) -> None:
    grafana_variables = {"$__rate_interval": "5m", "$namespace": "cardroom"}
    rules = []
    for index, (_, expression) in enumerate(dashboard_queries()):
        for variable, value in grafana_variables.items():
            expression = expression.replace(variable, value)
        rules.append({"record": f"dashboard:query_{index}", "expr": expression})
    path = tmp_path / "dashboard.rules.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    result = promtool("check", "rules", path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_dashboard_ships_as_a_grafana_config_map() -> None:
    docs = render(K8S / "overlays" / "production")
    shipped = objects(docs, "ConfigMap")["cardroom-grafana-dashboard"]
    assert shipped["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert json.loads(shipped["data"]["grafana-dashboard.json"]) == dashboard()


# -- the image -----------------------------------------------------------------------------------------


def dockerfile_instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "") for line in lines]


def dockerfile_user() -> int:
    users = [argument for instruction, argument in dockerfile_instructions() if instruction == "USER"]
    assert users, "the image must not run as root"
    return int(users[-1].split(":")[0])


def test_the_image_installs_the_project_without_test_extras_and_generates_the_protos() -> None:
    instructions = dockerfile_instructions()
    bases = [argument.split()[0] for instruction, argument in instructions if instruction == "FROM"]
    assert bases and all(base == "python:3.11-slim" for base in bases)
    runs = " ".join(argument for instruction, argument in instructions if instruction == "RUN")
    assert "pip install . " in runs and "[test]" not in runs
    assert "python -m shared.protogen" in runs
    assert dockerfile_user() != 0
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".venv", ".git", "tests"} <= set(ignored)
