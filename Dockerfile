# The one image every cardroom service runs from; k8s/ picks the service per workload with
# `command: [cardroom-profile]` (or -matchmaking, -table, -rating: the console scripts in pyproject.toml).
#
# Limits: there is no Docker engine on the development machines, so this file is checked by
# tests/k8s/test_manifests.py (base image, non-root user, build steps) but not built there.
# Build: docker build -t cardroom:dev .

# -- build: install the project and its runtime dependencies (no test extras) into a virtualenv --
FROM python:3.11-slim AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN python -m venv /opt/cardroom
ENV PATH=/opt/cardroom/bin:$PATH

WORKDIR /src
COPY pyproject.toml README.md ./
COPY protos ./protos
COPY shared ./shared
COPY services ./services

# `pip install .` installs shared/ and services/ with their migrations; the generated gRPC package
# `cardroom` is not part of the distribution, so it is generated here from protos/ and copied beside
# them into the virtualenv's site-packages. The last command fails the build if anything is missing.
RUN pip install . \
 && python -m shared.protogen \
 && cp -r cardroom "$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/" \
 && cd / && python -c "import services.profile.app, services.matchmaking.app, services.table.app, services.rating.app"

# -- runtime: the virtualenv alone, run by an unprivileged user --
FROM python:3.11-slim

# A fixed numeric id, so that Kubernetes' runAsNonRoot can verify it (k8s/base sets the same ids).
RUN groupadd --system --gid 10001 cardroom \
 && useradd --system --uid 10001 --gid cardroom --no-create-home --shell /usr/sbin/nologin cardroom

COPY --from=build /opt/cardroom /opt/cardroom

# The root filesystem is read-only in the cluster: no .pyc writes; SQLite files (local use only)
# and anything else written go to /tmp, an emptyDir there.
ENV PATH=/opt/cardroom/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    CARDROOM_DATA_DIR=/tmp/cardroom

USER 10001:10001
WORKDIR /tmp
EXPOSE 50051 50052 50053 50054 9101 9102 9103 9104

# No default service: each workload names its own command.
CMD ["sh", "-c", "echo 'run cardroom-profile, cardroom-matchmaking, cardroom-table or cardroom-rating' >&2; exit 64"]
