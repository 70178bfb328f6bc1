import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256 } from "../../scripts/checksums.ts";
import { hostRelease, syntheticRelease, thisTarget } from "../helpers/release.ts";
import { REPO } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * scripts/install.sh, run by dash and by bash, against a loopback HTTP server: the real release of
 * this machine's target, a tampered copy, a 404, and small synthetic artifacts for the platforms
 * this machine is not (Apple silicon under Rosetta, musl), chosen through fake uname/sysctl/ldd.
 */

const INSTALLER = join(REPO, "scripts", "install.sh");
const SHELLS = ["dash", "bash"] as const;
const scratch = mkdtempSync(join(tmpdir(), "umbel-install-test-"));
let server: ReturnType<typeof Bun.serve>;
let base: string;
const roots: Record<string, string> = {};

/** Fake uname / sysctl / ldd first on PATH: the platform the installer believes it is on. */
function fakePlatform(os: string, arch: string, extra: { translated?: string; ldd?: string } = {}): string {
  const bin = mkdtempSync(join(scratch, "bin-"));
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  script("uname", `case "$1" in -s) echo ${os} ;; -m) echo ${arch} ;; *) echo ${os} ;; esac`);
  if (extra.translated !== undefined)
    script("sysctl", `[ "$2" = sysctl.proc_translated ] && echo ${extra.translated} || exit 1`);
  if (extra.ldd !== undefined) script("ldd", `echo '${extra.ldd}' >&2; exit 1`);
  return bin;
}

type Run = { code: number; stdout: string; stderr: string; dir: string; tmp: string };

async function install(shell: string, env: Record<string, string>, pathFirst?: string): Promise<Run> {
  const home = mkdtempSync(join(scratch, "home-"));
  const tmp = mkdtempSync(join(scratch, "tmp-"));
  const dir = join(home, ".local", "bin");
  const child = Bun.spawn([shell, INSTALLER], {
    env: {
      PATH: `${pathFirst ? `${pathFirst}:` : ""}/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      TMPDIR: tmp,
      ...env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  return { code: await child.exited, stdout, stderr, dir: env.UMBEL_INSTALL_DIR ?? dir, tmp };
}

/** A refusal: one line on stderr saying why, a non-zero exit, and nothing left anywhere. */
function expectRefused(r: Run, reason: RegExp): void {
  expect(r.stderr).toMatch(reason);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(r.stdout).toBe("");
  expect(r.code).not.toBe(0);
  expect(existsSync(r.dir)).toBe(false);
  expect(readdirSync(r.tmp)).toEqual([]);
}

beforeAll(async () => {
  roots.real = await hostRelease();
  roots.synthetic = join(scratch, "synthetic");
  const host = thisTarget().name;
  syntheticRelease(roots.synthetic, [
    ...new Set([host, "darwin-arm64", "darwin-x64", "linux-x64-musl", "linux-arm64"]),
  ]);
  copyFileSync(join(REPO, "scripts", "install.sh"), join(roots.synthetic, "install.sh"));
  // A release whose archive changed after SHA256SUMS was written.
  roots.tampered = join(scratch, "tampered");
  syntheticRelease(roots.tampered, [host]);
  const archive = join(roots.tampered, `umbel-${host}.tar.gz`);
  const bytes = readFileSync(archive);
  bytes[bytes.length - 20] = (bytes[bytes.length - 20] ?? 0) ^ 0xff;
  writeFileSync(archive, bytes);
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const [, root, name] = new URL(request.url).pathname.split("/");
      const dir = roots[root ?? ""];
      const path = dir && name ? join(dir, name) : "";
      return path && existsSync(path)
        ? new Response(Bun.file(path))
        : new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
}, 120_000);

afterAll(() => {
  server?.stop(true);
  rmSync(scratch, { recursive: true, force: true });
});

describe.each(SHELLS)("install.sh under %s", (shell) => {
  test("is installed (Debian: apt-get install dash; .ci/run installs it)", () => {
    if (!Bun.which(shell)) throw new Error(`${shell} is not installed: apt-get install ${shell}`);
  });

  test("installs the verified binary atomically, warns that the dir is not on PATH, says what next", async () => {
    const r = await install(shell, { UMBEL_INSTALL_BASE: `${base}/real` });
    expect(r.stderr).toContain(`${r.dir} is not on your PATH`);
    expect(r.stdout).toMatch(/^installed umbel \d+\.\d+\.\d+ \(commit [0-9a-f]{12}/);
    expect(r.stdout).toContain("umbel doctor");
    expect(r.code).toBe(0);
    expect(readdirSync(r.dir)).toEqual(["umbel"]);
    expect(statSync(join(r.dir, "umbel")).mode & 0o777).toBe(0o755);
    expect(sha256(readFileSync(join(r.dir, "umbel")))).toBe(
      sha256(readFileSync(join(roots.real ?? "", `umbel-${thisTarget().name}`))),
    );
    expect(readdirSync(r.tmp)).toEqual([]);
  }, 60_000);

  test("curl … | sh: the installer served beside the release", async () => {
    const dir = mkdtempSync(join(scratch, "piped-"));
    const line = `curl -fsSL ${base}/synthetic/install.sh | UMBEL_INSTALL_BASE=${base}/synthetic UMBEL_INSTALL_DIR=${dir} ${shell}`;
    // Not spawnSync: the server answering curl runs in this process.
    const child = Bun.spawn(["sh", "-c", line], {
      env: { PATH: "/usr/bin:/bin", HOME: scratch },
      stdout: "pipe",
    });
    expect(await new Response(child.stdout).text()).toStartWith(
      `installed umbel synthetic ${thisTarget().name}`,
    );
    expect(await child.exited).toBe(0);
    expect(readdirSync(dir)).toEqual(["umbel"]);
  }, 60_000);

  test("into UMBEL_INSTALL_DIR on PATH, over an older umbel: no PATH warning", async () => {
    const dir = mkdtempSync(join(scratch, "dir-"));
    writeFileSync(join(dir, "umbel"), "old");
    const r = await install(shell, { UMBEL_INSTALL_BASE: `${base}/synthetic`, UMBEL_INSTALL_DIR: dir }, dir);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readdirSync(dir)).toEqual(["umbel"]);
    expect(readFileSync(join(dir, "umbel"), "utf8")).toContain("synthetic");
  }, 60_000);

  test("refuses a tampered download before writing anything", async () => {
    expectRefused(await install(shell, { UMBEL_INSTALL_BASE: `${base}/tampered` }), /checksum/);
  }, 60_000);

  test("refuses a failed download (404)", async () => {
    expectRefused(await install(shell, { UMBEL_INSTALL_BASE: `${base}/nowhere` }), /could not download/);
  }, 60_000);

  test.each([
    ["FreeBSD", "amd64"],
    ["Linux", "riscv64"],
    ["Linux", "armv7l"],
  ])("refuses an unsupported platform (%s %s)", async (os, arch) => {
    const r = await install(shell, { UMBEL_INSTALL_BASE: `${base}/synthetic` }, fakePlatform(os, arch));
    expectRefused(r, /unsupported platform/);
  });

  test("without UMBEL_INSTALL_BASE it says that no release host is configured", async () => {
    expectRefused(await install(shell, {}), /UMBEL_INSTALL_BASE/);
  });

  test.each([
    ["Apple silicon under Rosetta", "darwin-arm64", fakePlatform("Darwin", "x86_64", { translated: "1" })],
    ["an Intel Mac", "darwin-x64", fakePlatform("Darwin", "x86_64", { translated: "0" })],
    ["Apple silicon", "darwin-arm64", fakePlatform("Darwin", "arm64")],
    ["musl Linux (Alpine)", "linux-x64-musl", fakePlatform("Linux", "x86_64", { ldd: "musl libc (x86_64)" })],
    ["glibc Linux on arm", "linux-arm64", fakePlatform("Linux", "aarch64", { ldd: "ldd (GNU libc) 2.36" })],
  ])("on %s it installs %s", async (_what, target, bin) => {
    const r = await install(shell, { UMBEL_INSTALL_BASE: `${base}/synthetic` }, bin);
    expect(r.stdout).toContain(`installed umbel synthetic ${target}`);
    expect(r.code).toBe(0);
    expect(readFileSync(join(r.dir, "umbel"), "utf8")).toContain(`synthetic ${target}`);
  });
});
