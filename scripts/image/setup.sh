#!/bin/sh
# Every step of the container image (Dockerfile), in one script the test suite runs
# (test/e2e/image.test.ts) into a temporary root, so the image cannot drift from a tested path.
#
#   UMBEL_IMAGE_ROOT     where to install (default /: the image itself)
#   UMBEL_IMAGE_RELEASE  a release directory (npm run release): installed by scripts/install.sh,
#                        checksum checked
#   CLAUDE_CODE_VERSION, CODEX_VERSION, GEMINI_CLI_VERSION
#                        exact versions of the vendor CLIs to install with npm (empty: leave it out)
#   UMBEL_IMAGE_EXTRA_CA a CA bundle file npm trusts besides its own (a TLS-inspecting proxy's CA),
#                        when it exists and is not empty; mounted for the build only (Dockerfile)
#   UMBEL_IMAGE_DRY_RUN  1: print the steps that need root or the network (apt-get, useradd, npm,
#                        chown) as "would run: …" instead of running them
#
# Credentials are never built in: the image refuses to build with one in its environment, and they
# are given to the container when it runs (docs/deploy.md).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=${UMBEL_IMAGE_ROOT:-/}
root=${root%/}
release=${UMBEL_IMAGE_RELEASE:?UMBEL_IMAGE_RELEASE must name a release directory (npm run release)}
user=umbel
uid=10001
state=/var/lib/umbel

fail() {
    printf 'umbel-image: error: %s\n' "$*" >&2
    exit 1
}

step() {
    if [ "${UMBEL_IMAGE_DRY_RUN:-}" = 1 ]; then
        echo "would run: $*"
    else
        "$@"
    fi
}

# Everything is checked before anything is made.
for secret in CLAUDE_CODE_OAUTH_TOKEN ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN OPENAI_API_KEY CODEX_API_KEY GEMINI_API_KEY GOOGLE_API_KEY; do
    eval "value=\${$secret:-}"
    [ -z "$value" ] || fail "$secret is set: credentials are given to the container when it runs, never built into the image"
done
for pin in CLAUDE_CODE_VERSION CODEX_VERSION GEMINI_CLI_VERSION; do
    eval "value=\${$pin:-}"
    case $value in
        "") ;;
        *[!0-9.]* | .* | *. | *..*) fail "$pin must be an exact version such as 1.2.3 (got $value): the image pins every CLI" ;;
    esac
done

if [ -s "${UMBEL_IMAGE_EXTRA_CA:-/nonexistent}" ]; then
    echo "umbel-image: npm trusts the extra CA bundle $UMBEL_IMAGE_EXTRA_CA for this build"
    export NODE_EXTRA_CA_CERTS="$UMBEL_IMAGE_EXTRA_CA"
fi

step apt-get update
step apt-get install -y --no-install-recommends tmux tini ca-certificates curl
step sh -c 'rm -rf /var/lib/apt/lists/*'

# The same installer users run: the artifact for this machine, its checksum checked first.
out=$(UMBEL_INSTALL_BASE="file://$release" UMBEL_INSTALL_DIR="$root/usr/local/bin" sh "$here/../install.sh" 2>&1) ||
    fail "$(printf '%s\n' "$out" | tail -n 1)"
printf '%s\n' "$out" | head -n 1

step useradd --uid "$uid" --user-group --home-dir /home/$user --shell /bin/bash $user
mkdir -p "$root/home/$user/.config/umbel" "$root$state" "$root/work"
chmod 700 "$root$state"
# Names only: the container is given the token's value when it runs (docker run -e ...).
cat >"$root/home/$user/.config/umbel/config.toml" <<'TOML'
# Variables every worker of a provider gets from the container's environment: names, never values.
[claude]
env = ["CLAUDE_CODE_OAUTH_TOKEN"]
TOML
# claude stops at its first-run onboarding without this (docs/providers.md); it is no credential.
echo '{"hasCompletedOnboarding":true}' >"$root/home/$user/.claude.json"

[ -z "${CLAUDE_CODE_VERSION:-}" ] || step npm install -g --no-audit --no-fund "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION"
[ -z "${CODEX_VERSION:-}" ] || step npm install -g --no-audit --no-fund "@openai/codex@$CODEX_VERSION"
[ -z "${GEMINI_CLI_VERSION:-}" ] || step npm install -g --no-audit --no-fund "@google/gemini-cli@$GEMINI_CLI_VERSION"
step npm cache clean --force
step chown -R "$user:$user" "$root/home/$user" "$root$state" "$root/work"
