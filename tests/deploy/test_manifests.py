"""deploy/: the container image, the compose file and the Kubernetes manifests, checked offline.

* every manifest of deploy/k8s validates against the Kubernetes OpenAPI schemas of a pinned
  release, strictly (an unknown field fails), from the schemas kubernetes-validate bundles:
  no network (the network is shut off while they validate);
* the Deployment, Service, HPA, Job, ConfigMap and Secret agree with each other and with the
  image (port, user, probes' paths, secret and config names);
* compose.yaml's services and their order (db healthy → migrate succeeded → api);
* deploy/Dockerfile builds with deploy/serve.sh's own steps and runs as it does;
* every variable they set is a real setting (api.ops.settings.Settings) or HOST / PORT.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
import socket
import tomllib
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import kubernetes_validate
import pytest
import yaml

from api.ops.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "compose.yaml"

#: The Kubernetes release whose schemas the manifests are held to (kubernetes-validate
#: bundles each release's; the API versions used here are all GA there).
KUBERNETES_VERSION = "1.30.0"

#: Every Kubernetes manifest (kustomization.yaml is kustomize's own file, not an API object).
MANIFESTS = sorted(p for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")
#: Variables the image and the scripts read besides the settings: `numrules serve`'s address.
NON_SETTINGS = {"DATABASE_URL", "HOST", "PORT"}


def documents(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [doc for doc in yaml.safe_load_all(fh) if doc is not None]


def objects() -> dict[str, dict[str, Any]]:
    """Every manifest object, by kind (one of each here)."""
    found: dict[str, dict[str, Any]] = {}
    for path in MANIFESTS:
        for doc in documents(path):
            assert doc["kind"] not in found, f"a second {doc['kind']} in {path.name}"
            found[doc["kind"]] = doc
    return found


@pytest.fixture(scope="module")
def k8s() -> dict[str, dict[str, Any]]:
    return objects()


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    (doc,) = documents(COMPOSE)
    return doc


def pod_spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec: dict[str, Any] = obj["spec"]["template"]["spec"]
    return spec


def container(obj: dict[str, Any]) -> dict[str, Any]:
    (only,) = pod_spec(obj)["containers"]
    return dict(only)


def secret_ref(env: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (var,) = [v for v in env if v["name"] == name]
    assert "value" not in var, f"{name} must not be written in the manifest"
    ref: dict[str, Any] = var["valueFrom"]["secretKeyRef"]
    return ref


# --- Kubernetes: schemas ---------------------------------------------------------------------


def test_there_are_the_manifests() -> None:
    assert {p.name for p in MANIFESTS} == {
        "configmap.yaml",
        "deployment.yaml",
        "hpa.yaml",
        "migration-job.yaml",
        "secret.example.yaml",
        "service.yaml",
    }


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection attempt fails the test: the schemas must come from the package."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access while validating: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


@pytest.mark.usefixtures("no_network")
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda p: p.name)
def test_manifest_validates_against_the_kubernetes_schema(path: Path) -> None:
    docs = documents(path)
    assert docs, f"{path.name} holds no object"
    for doc in docs:
        try:
            used = kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            where = "/".join(str(p) for p in exc.path)
            pytest.fail(f"{path.name}: {doc['kind']} at {where or '/'}: {exc.message}")
        assert used == KUBERNETES_VERSION.rsplit(".", 1)[0]


def test_the_validator_refuses_a_wrong_manifest(k8s: dict[str, dict[str, Any]]) -> None:
    """The check above has teeth: a misspelt field and a wrong type are refused."""
    deployment = yaml.safe_load(yaml.safe_dump(k8s["Deployment"]))
    pod_spec(deployment)["containers"][0]["readinesProbe"] = {"httpGet": {"pathh": "/readyz"}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)
    deployment = yaml.safe_load(yaml.safe_dump(k8s["Deployment"]))
    deployment["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSION, strict=True)


def test_kustomization_lists_every_manifest_but_the_example_secret() -> None:
    (kustomization,) = documents(K8S / "kustomization.yaml")
    listed = set(kustomization["resources"])
    assert listed == {p.name for p in MANIFESTS} - {"secret.example.yaml"}
    assert all((K8S / name).is_file() for name in listed)
    # `kustomize edit set image numrules=…` sets the image of the API and of the migration
    (image,) = kustomization["images"]
    for path in ("deployment.yaml", "migration-job.yaml"):
        (obj,) = documents(K8S / path)
        assert container(obj)["image"].split(":")[0] == image["name"]


# --- Kubernetes: the Deployment and what it refers to ------------------------------------------


def container_port(obj: dict[str, Any], port: int | str) -> int:
    """A probe's or a Service's port, by number or by the container port's name."""
    ports = {p["name"]: p["containerPort"] for p in container(obj)["ports"]}
    if isinstance(port, str):
        assert port in ports, f"no container port named {port!r}"
        return int(ports[port])
    assert port in ports.values()
    return port


def test_deployment_probes(k8s: dict[str, dict[str, Any]]) -> None:
    deployment = k8s["Deployment"]
    api = container(deployment)
    paths = {
        probe: (
            api[probe]["httpGet"]["path"],
            container_port(deployment, api[probe]["httpGet"]["port"]),
        )
        for probe in ("readinessProbe", "livenessProbe", "startupProbe")
    }
    assert paths == {
        "readinessProbe": ("/readyz", 8000),
        "livenessProbe": ("/healthz", 8000),
        "startupProbe": ("/healthz", 8000),
    }
    assert [str(p["containerPort"]) for p in api["ports"]] == dockerfile_instructions("EXPOSE")


def test_deployment_resources(k8s: dict[str, dict[str, Any]]) -> None:
    for kind in ("Deployment", "Job"):
        resources = container(k8s[kind])["resources"]
        for bound in ("requests", "limits"):
            assert set(resources[bound]) >= {"cpu", "memory"}, (kind, bound)


@pytest.mark.parametrize("kind", ["Deployment", "Job"])
def test_runs_as_the_images_unprivileged_user(k8s: dict[str, dict[str, Any]], kind: str) -> None:
    pod = pod_spec(k8s[kind])["securityContext"]
    box = container(k8s[kind])["securityContext"]
    assert pod["runAsNonRoot"] is True
    assert str(pod["runAsUser"]) == final_user().split(":")[0]
    assert pod["runAsUser"] != 0
    assert box["allowPrivilegeEscalation"] is False
    assert box["readOnlyRootFilesystem"] is True
    assert box["capabilities"]["drop"] == ["ALL"]


@pytest.mark.parametrize("kind", ["Deployment", "Job"])
def test_database_url_comes_from_the_secret(k8s: dict[str, dict[str, Any]], kind: str) -> None:
    ref = secret_ref(container(k8s[kind])["env"], "DATABASE_URL")
    secret = k8s["Secret"]
    assert ref["name"] == secret["metadata"]["name"]
    assert ref["key"] in secret["stringData"]
    assert not ref.get("optional", False)


def test_deployment_reads_the_configmap(k8s: dict[str, dict[str, Any]]) -> None:
    (source,) = container(k8s["Deployment"])["envFrom"]
    assert source["configMapRef"]["name"] == k8s["ConfigMap"]["metadata"]["name"]


def test_shutdown_fits_in_the_grace_period(k8s: dict[str, dict[str, Any]]) -> None:
    """The kubelet's SIGKILL comes after the preStop pause and the app's graceful shutdown."""
    spec = pod_spec(k8s["Deployment"])
    pause = container(k8s["Deployment"])["lifecycle"]["preStop"]["exec"]["command"]
    assert pause[0] == "sleep"
    graceful = int(k8s["ConfigMap"]["data"]["NUMRULES_GRACEFUL_SHUTDOWN_SECONDS"])
    assert spec["terminationGracePeriodSeconds"] > int(pause[1]) + graceful


def test_service_selects_the_pods(k8s: dict[str, dict[str, Any]]) -> None:
    service, deployment = k8s["Service"], k8s["Deployment"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    (port,) = service["spec"]["ports"]
    assert container_port(deployment, port["targetPort"]) == 8000


def test_hpa_targets_the_deployment_on_cpu(k8s: dict[str, dict[str, Any]]) -> None:
    hpa, deployment = k8s["HorizontalPodAutoscaler"], k8s["Deployment"]
    assert hpa["apiVersion"] == "autoscaling/v2"
    assert hpa["spec"]["scaleTargetRef"] == {
        "apiVersion": deployment["apiVersion"],
        "kind": "Deployment",
        "name": deployment["metadata"]["name"],
    }
    (metric,) = hpa["spec"]["metrics"]
    assert metric["type"] == "Resource"
    assert metric["resource"]["name"] == "cpu"
    assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]


def test_job_migrates_the_database(k8s: dict[str, dict[str, Any]]) -> None:
    job = k8s["Job"]
    migrate = container(job)
    assert migrate["command"] == ["numrules", "db", "upgrade"]
    assert migrate["image"] == container(k8s["Deployment"])["image"]
    assert pod_spec(job)["restartPolicy"] in ("Never", "OnFailure")


def test_example_secret_holds_a_placeholder(k8s: dict[str, dict[str, Any]]) -> None:
    secret = k8s["Secret"]
    url = urlsplit(secret["stringData"]["DATABASE_URL"])
    assert url.password == "CHANGE-ME"
    assert url.hostname is not None
    assert url.hostname.endswith(".example.internal")
    assert "EXAMPLE" in (K8S / "secret.example.yaml").read_text(encoding="utf-8")
    Settings(database_url=secret["stringData"]["DATABASE_URL"])  # a URL the service takes


def test_configmap_values_are_valid_settings(
    k8s: dict[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = k8s["ConfigMap"]["data"]
    assert all(isinstance(value, str) for value in data.values())
    for name, value in data.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    assert settings.graceful_shutdown_seconds == int(data["NUMRULES_GRACEFUL_SHUTDOWN_SECONDS"])
    assert settings.max_streams < settings.max_concurrency


# --- compose.yaml -------------------------------------------------------------------------


def test_compose_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"db", "migrate", "api"}
    db, migrate, api = services["db"], services["migrate"], services["api"]
    assert db["image"] == "postgres:15"
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    (volume,) = db["volumes"]
    assert volume.split(":")[0] in compose["volumes"]  # a named volume
    assert migrate["image"] == api["image"]
    assert migrate["build"] == api["build"]
    assert (
        ROOT / DEPLOY.name / migrate["build"]["context"] / migrate["build"]["dockerfile"]
    ).resolve() == DOCKERFILE
    assert migrate["command"] == ["numrules", "db", "upgrade"]
    assert migrate["depends_on"] == {"db": {"condition": "service_healthy"}}
    assert api["depends_on"] == {
        "migrate": {"condition": "service_completed_successfully"},
        "db": {"condition": "service_healthy"},
    }
    assert any(str(port).endswith(":8000") for port in api["ports"])
    assert "/readyz" in " ".join(api["healthcheck"]["test"])


def is_required_variable(value: str) -> bool:
    """`${NAME:?message}` or `${NAME?message}`: compose stops while NAME is unset."""
    return re.fullmatch(r"\$\{[A-Za-z_][A-Za-z0-9_]*:?\?[^}]*\}", value) is not None


def test_compose_commits_no_password(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        for key, value in service.get("environment", {}).items():
            if "PASSWORD" in key or "SECRET" in key:
                assert is_required_variable(str(value)), (name, key)
            if key == "DATABASE_URL":
                # scheme://user:password@host…: the password is a required variable
                credentials = value.split("://", 1)[1].rpartition("@")[0]
                password = credentials.partition(":")[2]
                assert is_required_variable(password), (name, key, "password")


def test_compose_stop_grace_period(compose: dict[str, Any]) -> None:
    api = compose["services"]["api"]
    graceful = int(api["environment"]["NUMRULES_GRACEFUL_SHUTDOWN_SECONDS"])
    assert int(api["stop_grace_period"].removesuffix("s")) > graceful


# --- every variable set is a setting ------------------------------------------------------------


def variables_set(k8s: dict[str, dict[str, Any]], compose: dict[str, Any]) -> dict[str, str]:
    """Each environment variable the app's containers get, and where it is set."""
    found: dict[str, str] = {}
    for kind in ("Deployment", "Job"):
        for var in container(k8s[kind]).get("env", []):
            found[var["name"]] = f"k8s {kind}"
    for name in k8s["ConfigMap"]["data"]:
        found[name] = "k8s ConfigMap"
    for service in ("migrate", "api"):
        for name in compose["services"][service].get("environment", {}):
            found[name] = f"compose {service}"
    for name in dockerfile_env(final_stage()):
        if not name.startswith("PYTHON") and name != "PATH":
            found[name] = "Dockerfile ENV"
    return found


def test_every_variable_set_is_a_setting(
    k8s: dict[str, dict[str, Any]], compose: dict[str, Any]
) -> None:
    settings = {f"NUMRULES_{name.upper()}" for name in Settings.model_fields} - {
        "NUMRULES_DATABASE_URL"
    }
    unknown = {
        name: where
        for name, where in variables_set(k8s, compose).items()
        if name not in settings | NON_SETTINGS
    }
    assert unknown == {}


# --- deploy/Dockerfile ----------------------------------------------------------------------


def dockerfile_lines() -> list[str]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    lines: list[str] = []
    pending = ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        lines.append(" ".join((pending + line).split()))
        pending = ""
    assert not pending
    return lines


def stages() -> list[list[str]]:
    found: list[list[str]] = []
    for line in dockerfile_lines():
        if line.upper().startswith("FROM "):
            found.append([])
        if found:
            found[-1].append(line)
    return found


def final_stage() -> list[str]:
    return stages()[-1]


def instructions(lines: list[str], name: str) -> list[str]:
    prefix = name.upper() + " "
    return [line[len(prefix) :] for line in lines if line.upper().startswith(prefix)]


def dockerfile_instructions(name: str) -> list[str]:
    return instructions(dockerfile_lines(), name)


def dockerfile_env(lines: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for line in instructions(lines, "ENV"):
        for pair in shlex.split(line):
            name, _, value = pair.partition("=")
            env[name] = value
    return env


def final_user() -> str:
    (user,) = instructions(final_stage(), "USER")
    return user


def arg_defaults() -> dict[str, str]:
    defaults = {}
    for line in dockerfile_lines():
        if line.upper().startswith("FROM "):
            break
        name, _, value = line[len("ARG ") :].partition("=")
        defaults[name] = value
    return defaults


def test_dockerfile_is_multi_stage_on_a_slim_python() -> None:
    assert len(stages()) >= 2
    image = final_stage()[0].split()[1]
    image = re.sub(r"\$\{(\w+)\}", lambda m: arg_defaults()[m.group(1)], image)
    assert re.fullmatch(r"python:3\.1[1-9]-slim", image), image
    # the runtime stage takes only the virtual environment and the compiled build
    copies = instructions(final_stage(), "COPY")
    assert copies and all(c.startswith("--from=") for c in copies)
    assert {c.split()[1] for c in copies} == {"/app/.venv", "/app/.build/mypyc"}


def test_dockerfile_runs_as_a_non_root_user() -> None:
    uid, _, gid = final_user().partition(":")
    assert uid.isdigit(), "a numeric user: Kubernetes' runAsNonRoot can check it"
    assert int(uid) != 0
    assert not gid or int(gid) != 0


def test_dockerfile_healthcheck_and_port() -> None:
    (check,) = dockerfile_instructions("HEALTHCHECK")
    assert "/healthz" in check
    assert "urllib.request" in check
    assert "curl" not in check
    assert dockerfile_instructions("EXPOSE") == ["8000"]


def serve_steps() -> tuple[list[str], list[str]]:
    """deploy/serve.sh's install/build commands (`bash deploy/…`), and how it serves."""
    steps, serves = [], []
    for raw in (DEPLOY / "serve.sh").read_text(encoding="utf-8").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if line.startswith("#"):
            continue
        if line.startswith("bash deploy/"):
            steps.append(line)
        if "numrules serve" in line:
            serves.append(line)
    return steps, serves


def test_dockerfile_builds_as_serve_sh_does() -> None:
    steps, _ = serve_steps()
    assert steps == [
        "bash deploy/setup.sh serve",
        "bash deploy/ensure-app.sh",
        "bash deploy/build-mypyc.sh",
    ]
    build = stages()[0]
    assert instructions(build, "RUN")[-len(steps) :] == steps
    # what those steps need is in the build context: the scripts, the project's files and
    # every package pyproject.toml ships (and its readme, part of the metadata)
    copied = {source for line in instructions(build, "COPY") for source in line.split()[:-1]}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    packages = {
        pattern.rstrip("*")
        for pattern in project["tool"]["setuptools"]["packages"]["find"]["include"]
    }
    needed = {"pyproject.toml", "setup.py", project["project"]["readme"], *packages}
    needed |= {step.split()[1] for step in steps}
    assert needed <= copied
    assert all((ROOT / path).exists() for path in copied)


def test_dockerfile_serves_as_serve_sh_does() -> None:
    _, serves = serve_steps()
    (serve,) = serves
    assert "PYTHONPATH=.build/mypyc" in serve
    assert serve.endswith('numrules serve "$@"')  # HOST and PORT are settings
    env = dockerfile_env(final_stage())
    assert env["PYTHONPATH"].split(":")[0] == "/app/.build/mypyc"
    assert env["PATH"].startswith("/app/.venv/bin:")
    assert env["HOST"] == "0.0.0.0"
    assert env["PORT"] == "8000"
    (cmd,) = instructions(final_stage(), "CMD")
    assert cmd == '["numrules", "serve"]', cmd  # exec form: uvicorn itself gets SIGTERM


def test_dockerignore_keeps_out_the_local_state_but_not_the_sources() -> None:
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert {".venv", ".git", ".build", "build", "__pycache__", ".mypy_cache"} <= set(patterns)
    copied = {source for line in instructions(stages()[0], "COPY") for source in line.split()[:-1]}
    for source in copied:
        assert not any(fnmatch.fnmatch(source, p) for p in patterns), source


# --- deploy/README.md ---------------------------------------------------------------------------


def test_deploy_readme_names_every_file() -> None:
    text = (DEPLOY / "README.md").read_text(encoding="utf-8")
    for path in [DOCKERFILE, COMPOSE, *MANIFESTS, K8S / "kustomization.yaml"]:
        assert path.name in text, path.name
