#!/bin/sh
# umbel's installer: curl -fsSL "$UMBEL_INSTALL_BASE/install.sh" | sh
#
# POSIX sh (the suite runs it under dash and bash). It picks the artifact for this machine,
# downloads it and SHA256SUMS from UMBEL_INSTALL_BASE, checks the checksum before anything is
# written to the install dir, and moves the binary into UMBEL_INSTALL_DIR (default ~/.local/bin)
# with one rename. A refusal is one line on stderr and a non-zero exit, and leaves nothing behind.
#
#   UMBEL_INSTALL_BASE  the URL that serves umbel-<os>-<arch>.tar.gz and SHA256SUMS
#   UMBEL_INSTALL_DIR   where `umbel` goes (default ~/.local/bin)
set -eu

# There is no public release host yet: this placeholder (.invalid never resolves) is refused with a
# pointer to UMBEL_INSTALL_BASE. docs/deploy.md says how to serve a release.
DEFAULT_BASE="https://releases.umbel.invalid/latest"

base=${UMBEL_INSTALL_BASE:-$DEFAULT_BASE}
base=${base%/}
dir=${UMBEL_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}
tmp=""
staged=""

fail() {
    printf 'umbel-install: error: %s\n' "$*" >&2
    exit 1
}

cleanup() {
    [ -n "$staged" ] && rm -f "$staged"
    [ -n "$tmp" ] && rm -rf "$tmp"
    return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

has() { command -v "$1" >/dev/null 2>&1; }

is_musl() {
    # musl's ldd prints "musl libc" (to stderr, exit 1); glibc's says "GNU libc".
    if has ldd && ldd --version 2>&1 | grep -qi musl; then return 0; fi
    for loader in /lib/ld-musl-*.so.1; do
        [ -e "$loader" ] && return 0
    done
    return 1
}

detect_target() {
    os=$(uname -s)
    machine=$(uname -m)
    case $os in
        Linux) os=linux ;;
        Darwin) os=darwin ;;
        *) fail "unsupported platform: $os $machine (umbel ships for Linux and macOS on x86_64 and arm64)" ;;
    esac
    case $machine in
        x86_64 | amd64) arch=x64 ;;
        aarch64 | arm64) arch=arm64 ;;
        *) fail "unsupported platform: $os $machine (umbel ships for Linux and macOS on x86_64 and arm64)" ;;
    esac
    # A shell under Rosetta 2 sees x86_64 on Apple silicon; the native build runs without translation.
    if [ "$os" = darwin ] && [ "$arch" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
        arch=arm64
    fi
    # The Linux builds link glibc's loader, which Alpine and other musl systems do not have.
    suffix=""
    if [ "$os" = linux ] && is_musl; then suffix=-musl; fi
    echo "$os-$arch$suffix"
}

download() {
    if has curl; then
        curl -fsSL -o "$2" "$1" 2>/dev/null || fail "could not download $1 (is UMBEL_INSTALL_BASE right?)"
    elif has wget; then
        wget -q -O "$2" "$1" 2>/dev/null || fail "could not download $1 (is UMBEL_INSTALL_BASE right?)"
    else
        fail "neither curl nor wget is installed: one is needed to download umbel"
    fi
}

sha256_of() {
    if has sha256sum; then
        sha256sum "$1" | cut -d ' ' -f 1
    elif has shasum; then
        shasum -a 256 "$1" | cut -d ' ' -f 1
    elif has openssl; then
        openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
    else
        fail "no sha256 tool (sha256sum, shasum or openssl) to verify the download"
    fi
}

# The sum SHA256SUMS lists for $2 (sha256sum's "<hex>  <name>" or "<hex> *<name>").
listed_sum() {
    awk -v name="$2" '$2 == name || $2 == "*" name { print $1; exit }' "$1"
}

verify() {
    expected=$(listed_sum "$tmp/SHA256SUMS" "$2")
    [ -n "$expected" ] || fail "SHA256SUMS from $base has no entry for $2"
    actual=$(sha256_of "$1")
    [ "$actual" = "$expected" ] || fail "checksum mismatch for $2 (expected $expected, got $actual): nothing was installed"
}

target=$(detect_target)
if [ "$base" = "$DEFAULT_BASE" ]; then
    fail "no release host is configured: set UMBEL_INSTALL_BASE to the URL that serves umbel's release files (docs/deploy.md)"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/umbel-install.XXXXXX")
archive="umbel-$target.tar.gz"
download "$base/SHA256SUMS" "$tmp/SHA256SUMS"
download "$base/$archive" "$tmp/$archive"
verify "$tmp/$archive" "$archive"
mkdir "$tmp/x"
tar -xzf "$tmp/$archive" -C "$tmp/x" 2>/dev/null || fail "$archive is not a gzipped tar"
[ -f "$tmp/x/umbel" ] || fail "$archive holds no umbel"
verify "$tmp/x/umbel" "umbel-$target"
chmod 755 "$tmp/x/umbel"

# Run it before it replaces anything: a binary for the wrong C library fails here (status 126 is a
# temp dir mounted noexec, which proves nothing either way).
version=$("$tmp/x/umbel" --version 2>&1) || {
    status=$?
    [ "$status" -eq 126 ] || fail "the downloaded umbel does not run on this machine ($target): $(echo "$version" | head -n 1)"
    version=""
}

# Staged beside its final name, so the rename is atomic: a running umbel keeps its old inode.
mkdir -p "$dir" 2>/dev/null || fail "cannot create $dir"
staged="$dir/.umbel.install.$$"
cp "$tmp/x/umbel" "$staged" 2>/dev/null || fail "cannot write to $dir"
chmod 755 "$staged"
mv -f "$staged" "$dir/umbel" || fail "cannot move umbel into $dir"
staged=""

echo "installed umbel ${version:-($target)} to $dir/umbel"
case ":${PATH:-}:" in
    *":$dir:"*) next="umbel doctor" ;;
    *)
        printf 'umbel-install: warning: %s is not on your PATH; add it (for example in ~/.profile): export PATH="%s:$PATH"\n' "$dir" "$dir" >&2
        next="$dir/umbel doctor"
        ;;
esac
echo "next: run '$next' to check tmux, the agent CLIs and their sign-in"
