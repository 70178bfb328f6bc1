# syntax=docker/dockerfile:1.7
# umbel for workflow runs in a container (docs/deploy.md). Build after `npm run release`:
#   docker build -t umbel .
#   docker run --rm -e CLAUDE_CODE_OAUTH_TOKEN -v umbel-state:/var/lib/umbel -v "$PWD:/work" umbel run flow.yaml
# Every step is scripts/image/setup.sh, which the test suite runs into a temporary root
# (test/e2e/image.test.ts), so this file holds no step of its own; the suite also builds and runs
# this file with podman on a debootstrapped Debian base (test/e2e/image-podman.test.ts).

# Any Debian bookworm with Node 22 and npm on PATH; the default is the public Node image.
ARG BASE_IMAGE=node:22-bookworm-slim
FROM ${BASE_IMAGE}

# The vendor CLIs, pinned to the versions umbel is tested with (src/core/doctor/tested-versions.ts);
# an empty value leaves that CLI out: --build-arg CODEX_VERSION=
ARG CLAUDE_CODE_VERSION=2.1.332
ARG CODEX_VERSION=0.171.0
ARG GEMINI_CLI_VERSION=0.61.0
# Podman (buildah) reuses a cached RUN even when a mounted file changed (BuildKit hashes the mounts
# itself): with podman, pass a digest of what the step mounts, so a new release or script rebuilds:
#   --build-arg UMBEL_MOUNTS_DIGEST="$(cat dist/release/SHA256SUMS scripts/image/setup.sh | sha256sum)"
ARG UMBEL_MOUNTS_DIGEST=

# The release and the scripts are mounted for this one step, not copied into a layer. Behind a
# TLS-inspecting proxy, give npm the proxy's CA for this step only, never kept in a layer:
#   docker build --secret id=extra-ca,src=/etc/ssl/certs/ca-certificates.crt -t umbel .
RUN --mount=type=bind,source=dist/release,target=/tmp/umbel/release \
    --mount=type=bind,source=scripts,target=/tmp/umbel/scripts \
    --mount=type=secret,id=extra-ca,target=/run/umbel/extra-ca.pem \
    UMBEL_IMAGE_RELEASE=/tmp/umbel/release UMBEL_IMAGE_EXTRA_CA=/run/umbel/extra-ca.pem \
    sh /tmp/umbel/scripts/image/setup.sh

USER umbel
WORKDIR /work
ENV UMBEL_HOME=/var/lib/umbel
VOLUME ["/var/lib/umbel"]
# tini reaps the workers' processes and passes Ctrl-C / SIGTERM on (a run stops cleanly, exit 130).
ENTRYPOINT ["tini", "--", "umbel"]
CMD ["doctor"]
