"""deploy/monitoring: the dashboard and the alert rules name only metrics the code
exports, the scrape config reaches every process where it serves them, and the
compose file's ``monitoring`` profile mounts files that exist.

No Prometheus or Grafana runs here: every PromQL expression is parsed
(``promql-parser``) and each metric it selects looked up among what the
processes serve (:func:`service.scrape.app_registry` and
:func:`service.scrape.worker_registry`, the system gauges included). With
``promtool`` installed (``tests/ensure-promtool.sh``) the rules and the config
are checked by it too, and the alerts run against the series of
``tests/product/monitoring/alerts.test.yml``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

import promql_parser
import pytest
import yaml
from prometheus_client import REGISTRY, CollectorRegistry

from service.config import Settings
from service.observe import SystemCollector
from service.scrape import MULTIPROC_ENV, app_registry, worker_registry

ROOT: Final = Path(__file__).resolve().parents[2]
DEPLOY: Final = ROOT / "deploy"
MONITORING: Final = DEPLOY / "monitoring"
DASHBOARD: Final = MONITORING / "grafana" / "dashboards" / "cardroom.json"
ALERTS: Final = MONITORING / "alerts.yml"
PROMETHEUS: Final = MONITORING / "prometheus.yml"
ALERT_TESTS: Final = Path(__file__).with_name("monitoring") / "alerts.test.yml"
SYNTHETIC: Final = frozenset({"up"})
"""Series Prometheus makes itself for each target."""
SUFFIXES: Final = {
    "counter": ("_total", "_created"),
    "histogram": ("_bucket", "_count", "_sum", "_created"),
    "summary": ("", "_count", "_sum", "_created"),
    "gauge": ("",),
}


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def series_names(registry: CollectorRegistry) -> set[str]:
    """Every series name the registry's collectors export (by their type's suffixes),
    those with no sample yet included."""
    return {
        family.name + suffix
        for family in registry.collect()
        for suffix in SUFFIXES.get(family.type, ("",))
    }


@pytest.fixture
def exported(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """What the API, the stream server, the workers and the scheduler serve."""
    monkeypatch.delenv(MULTIPROC_ENV, raising=False)
    # no store reachable: the system gauges come without samples, but come
    system = SystemCollector(service=None)
    return series_names(app_registry(system)) | series_names(worker_registry())


def selected(expr: str) -> set[str]:
    """The metric names an expression selects."""
    names: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            assert node.name, f"a selector without a metric name in {expr!r}"
            names.add(node.name)

    promql_parser.walk(promql_parser.parse(expr), visit)
    return names


def dashboard_exprs() -> list[str]:
    data = json.loads(DASHBOARD.read_text())
    return [t["expr"] for panel in data["panels"] for t in panel["targets"]]


def alert_rules() -> list[dict[str, Any]]:
    return [rule for group in load(ALERTS)["groups"] for rule in group["rules"]]


def test_the_parser_finds_every_selector() -> None:
    expr = 'sum(rate(a_total{x="1"}[5m])) / on() group_left max(b) + absent(c) or up == 0'
    assert selected(expr) == {"a_total", "b", "c", "up"}


def test_every_cardroom_metric_defined_is_served(exported: set[str]) -> None:
    """The metrics defined in the code (prometheus-client's default registry,
    once the service's modules are imported) are all served by some process."""
    defined = {
        name
        for name in series_names(REGISTRY)
        if name.startswith("cardroom_") and not name.endswith("_created")
    }
    assert defined and defined <= exported, defined - exported


def test_the_operations_doc_lists_every_cardroom_metric(monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/operations.md's metric table names exactly the families the processes serve."""
    monkeypatch.delenv(MULTIPROC_ENV, raising=False)
    doc = (ROOT / "docs" / "operations.md").read_text()
    section = doc[doc.index("## Metrics and logs") :]
    section = section[: section.index("\n## ", 1)]
    documented = set(re.findall(r"`(cardroom_\w+)`", section))
    registries = (app_registry(SystemCollector(service=None)), worker_registry())
    families = {
        family.name + ("_total" if family.type == "counter" else "")
        for registry in registries
        for family in registry.collect()
        if family.name.startswith("cardroom_")
    }
    assert documented == families


def test_the_dashboard_and_the_alerts_name_only_exported_metrics(exported: set[str]) -> None:
    exprs = dashboard_exprs() + [rule["expr"] for rule in alert_rules()]
    for expr in exprs:
        unknown = selected(expr) - exported - SYNTHETIC
        assert not unknown, f"{expr!r} names {unknown}, which no process exports"


def test_the_dashboard_shows_what_an_operator_watches() -> None:
    data = json.loads(DASHBOARD.read_text())
    used = set().union(*(selected(e) for e in dashboard_exprs()))
    assert {
        "cardroom_moves_total",  # moves/s
        "cardroom_http_request_seconds_bucket",  # p99 by route
        "cardroom_projection_lag_max_events",
        "cardroom_reconcile_sweep_age_seconds",
        "cardroom_queue_depth",
        "cardroom_redis_memory_ratio",
        "cardroom_streams_open",
        "cardroom_http_requests_total",  # 4xx/5xx
    } <= used
    assert "by (endpoint, le)" in " ".join(dashboard_exprs())
    datasource = load(MONITORING / "grafana" / "provisioning" / "datasources" / "prometheus.yml")
    uid = datasource["datasources"][0]["uid"]
    for panel in data["panels"]:
        assert panel["datasource"]["uid"] == uid, panel["title"]
        assert all(t["datasource"]["uid"] == uid for t in panel["targets"]), panel["title"]
    ids = [panel["id"] for panel in data["panels"]]
    assert len(set(ids)) == len(ids)


def test_the_alerts_cover_the_bad_nights() -> None:
    rules = {rule["alert"]: rule for rule in alert_rules()}
    assert {
        "CardroomProjectionLag",
        "CardroomRedisMemoryHigh",
        "CardroomNoWorkerHeartbeat",
        "CardroomHigh5xxRate",
        "CardroomReconcilerBehind",
        "CardroomAuditFailed",
        "CardroomAuditStale",
    } <= set(rules)
    memory = rules["CardroomRedisMemoryHigh"]["expr"]
    assert memory.endswith(f"> {Settings.model_fields['memory_warn_ratio'].default}")
    for name, rule in rules.items():
        assert {"summary", "description"} <= set(rule["annotations"]), name
        assert rule["labels"]["severity"] in {"warning", "critical"}, name


def test_prometheus_scrapes_every_process_where_it_serves() -> None:
    config = load(PROMETHEUS)
    ports = {
        job["job_name"]: (job["dns_sd_configs"][0]["names"], job["dns_sd_configs"][0]["port"])
        for job in config["scrape_configs"]
    }
    defaults = Settings.model_fields
    assert ports == {
        "cardroom-api": (["api"], 8000),
        "cardroom-streams": (["streams"], 8001),
        "cardroom-worker": (["worker"], defaults["worker_metrics_port"].default),
        "cardroom-scheduler": (["scheduler"], defaults["scheduler_metrics_port"].default),
    }
    app = load(DEPLOY / "compose.yaml")["services"]
    for job, (names, port) in ports.items():
        service = app[names[0]]
        if job in {"cardroom-worker", "cardroom-scheduler"}:
            kind = job.removeprefix("cardroom-").upper()
            assert service["environment"][f"CARDROOM_{kind}_METRICS_PORT"] == str(port)
            assert str(port) in service["expose"]
    for rules in config["rule_files"]:
        assert (PROMETHEUS.parent / rules).is_file()


def monitoring_services() -> dict[str, Any]:
    services = load(DEPLOY / "compose.yaml")["services"]
    return {n: s for n, s in services.items() if "monitoring" in s.get("profiles", [])}


def mounts(service: dict[str, Any]) -> dict[str, Path]:
    """The service's bind mounts of the deploy's files: container path -> file here."""
    found: dict[str, Path] = {}
    for volume in service.get("volumes", []):
        source, target, *_ = volume.split(":")
        if source.startswith("./"):
            found[target] = DEPLOY / source
    return found


def test_the_monitoring_profile_mounts_files_that_exist() -> None:
    services = monitoring_services()
    assert set(services) == {"prometheus", "grafana"}
    for name, service in services.items():
        bound = mounts(service)
        assert bound, name
        for source in bound.values():
            assert source.exists(), f"{name} mounts {source}, which is missing"
        for port in service["ports"]:
            assert port.startswith("127.0.0.1:"), f"{name} publishes {port} beyond loopback"

    prometheus = mounts(services["prometheus"])
    config_flag = "--config.file="
    (config,) = [a for a in services["prometheus"]["command"] if a.startswith(config_flag)]
    inside = Path(config.removeprefix(config_flag))
    assert prometheus[str(inside)] == PROMETHEUS
    for rules in load(PROMETHEUS)["rule_files"]:
        assert prometheus[str(inside.parent / rules)] == PROMETHEUS.parent / rules

    grafana = services["grafana"]
    bound = mounts(grafana)
    provisioning = bound["/etc/grafana/provisioning"]
    provider = load(provisioning / "dashboards" / "cardroom.yml")["providers"][0]
    dashboards = bound[provider["options"]["path"]]
    assert (dashboards / DASHBOARD.name).samefile(DASHBOARD)
    home = Path(grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"])
    assert (bound[str(home.parent)] / home.name).samefile(DASHBOARD)
    source = load(provisioning / "datasources" / "prometheus.yml")["datasources"][0]
    assert source["url"] == "http://prometheus:9090"
    assert any(p.endswith(":9090") for p in services["prometheus"]["ports"])


PROMTOOL: Final = shutil.which("promtool")


@pytest.mark.skipif(PROMTOOL is None, reason="promtool is missing: run tests/ensure-promtool.sh")
@pytest.mark.parametrize(
    "args",
    [
        ["check", "config", str(PROMETHEUS)],
        ["check", "rules", str(ALERTS)],
        ["test", "rules", str(ALERT_TESTS)],
    ],
    ids=["config", "rules", "alerts-fire"],
)
def test_promtool_accepts_the_config_and_the_alerts_fire(args: list[str]) -> None:
    assert PROMTOOL is not None
    done = subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
