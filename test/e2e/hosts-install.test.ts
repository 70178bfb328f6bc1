import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Sandbox } from "../helpers/sandbox.ts";
import { UMBEL } from "../helpers/sandbox.ts";
import { createHostPair, type HostPair, hasSshd } from "../helpers/sshd.ts";

// A real sshd and a ~100 MB binary sent over it (~1 s on loopback), then the host's doctor.
setDefaultTimeout(60_000);

/**
 * `umbel hosts install NAME` over a real OpenSSH server on loopback (test/helpers/sshd.ts): dist/umbel
 * goes to a fresh path under the remote sandbox, and every ssh session there has the remote sandbox's
 * environment (the test key's environment=), so the doctor that runs there is the sandbox's, never
 * /root's state.
 */

let pair: HostPair;
let local: Sandbox;
let remote: Sandbox;
let target: string;
let release: string;

const sha256 = (bytes: Uint8Array) => new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
const SELF = new Uint8Array(readFileSync(UMBEL));
const SELF_SHA = sha256(SELF);
const TARGET = `linux-${process.arch}`;

beforeAll(async () => {
  if (!hasSshd()) throw new Error("no sshd: apt-get install openssh-server (.ci/run installs it)");
  pair = await createHostPair({ sessionEnv: true });
  ({ local, remote } = pair);
  target = join(remote.dir, "opt", "bin", "umbel");
  await writeFile(
    join(local.root, "config.toml"),
    [
      "[hosts.box]",
      'ssh = "box"',
      `umbel = "${target}"`,
      "[hosts.plain]",
      'ssh = "box"',
      "[hosts.gone]",
      'ssh = "gone.invalid"',
      "",
    ].join("\n"),
  );
  release = await mkdtemp(join(tmpdir(), "umbel-release-"));
});

afterAll(async () => {
  await pair?.dispose();
  if (release) await rm(release, { recursive: true, force: true });
});

const parse = (text: string) => JSON.parse(text) as Record<string, unknown>;

describe("umbel hosts install NAME", () => {
  test("puts the running umbel at the host's configured path: its bytes, 0755, its sum; then the host's doctor", async () => {
    expect(existsSync(target)).toBe(false);
    const r = await local.umbel(["hosts", "install", "box", "--json"]);
    expect(r.stderr).toBe("");
    const result = parse(r.stdout);
    expect(result).toMatchObject({
      host: "box",
      path: target,
      resolved: target,
      configured: true,
      target: TARGET,
      source: "running",
      sha256: SELF_SHA,
      bytes: SELF.length,
      previous: null,
      doctor: { exitCode: 0, output: "" },
    });
    expect(typeof result.version).toBe("string");
    // The doctor was the remote sandbox's: its state root, not /root's.
    const doctor = (result.doctor as { result: { ok: boolean; checks: { id: string; message: string }[] } })
      .result;
    expect(doctor.ok).toBe(true);
    expect(doctor.checks.find((c) => c.id === "state")?.message).toContain(remote.root);
    expect(r.code).toBe(0);
    expect(sha256(new Uint8Array(readFileSync(target)))).toBe(SELF_SHA);
    expect(statSync(target).size).toBe(SELF.length);
    expect(statSync(target).mode & 0o777).toBe(0o755);
    expect(readdirSync(dirname(target))).toEqual(["umbel"]);
  });

  test("a second install replaces it with one rename, names the version it replaced, prints the doctor", async () => {
    const inode = statSync(target).ino;
    const r = await local.umbel(["hosts", "install", "box"]);
    expect(r.stderr).toBe("");
    const version = parse((await local.umbel(["--version", "--json"])).stdout).version as string;
    expect(r.stdout).toContain(
      `installed umbel ${version} on box at ${target} (${TARGET}, ${(SELF.length / 1e6).toFixed(1)} MB, sha256 ${SELF_SHA.slice(0, 16)}…) from this umbel's own binary; it replaced ${version}\n`,
    );
    expect(r.stdout).toContain("doctor on box (exit 0):\n");
    expect(r.stdout).toMatch(/^ok {4}tmux /m);
    expect(r.stdout).toMatch(/^ok {4}state +.*umbel-t-/m);
    expect(r.stdout).toMatch(/\d+ ok, \d+ warn, 0 fail\n$/);
    expect(r.code).toBe(0);
    expect(statSync(target).ino).not.toBe(inode);
    expect(sha256(new Uint8Array(readFileSync(target)))).toBe(SELF_SHA);
    expect(readdirSync(dirname(target))).toEqual(["umbel"]);
  });

  test("a release file whose sum is not its SHA256SUMS': refused before anything is sent, the old umbel untouched", async () => {
    await writeFile(join(release, `umbel-${TARGET}`), "#!/bin/sh\necho tampered\n");
    await writeFile(join(release, "SHA256SUMS"), `${"0".repeat(64)}  umbel-${TARGET}\n`);
    const inode = statSync(target).ino;
    const r = await local.umbel(["hosts", "install", "box", "--from", release]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`umbel-${TARGET}: its SHA-256 is `);
    expect(r.stderr).toContain(`its SHA256SUMS says ${"0".repeat(64)}: nothing was sent to box`);
    expect(r.code).toBe(65);
    expect(statSync(target).ino).toBe(inode);
    expect(sha256(new Uint8Array(readFileSync(target)))).toBe(SELF_SHA);
    expect(readdirSync(dirname(target))).toEqual(["umbel"]);
  });

  test("a release directory with no file for the host's platform: a usage error naming the target and what it holds", async () => {
    const other = join(release, "other");
    await mkdir(other);
    await writeFile(join(other, "SHA256SUMS"), `${"1".repeat(64)}  umbel-darwin-arm64\n`);
    const r = await local.umbel(["hosts", "install", "box", "--from", other, "--json"]);
    expect(parse(r.stdout).error).toMatchObject({
      code: "usage",
      data: { target: TARGET, held: ["umbel-darwin-arm64"] },
    });
    expect(r.code).toBe(2);
  });

  test("--from DIR's file, its sum right: installed as the release's; the doctor's problem is the exit code", async () => {
    // A stand-in for another build: answers --version and a doctor with a failed check, as umbel does.
    const script = [
      "#!/bin/sh",
      'if [ "$1" = --version ]; then echo \'{"version":"9.9.9","protocol":1}\'; exit 0; fi',
      'echo \'{"ok":false,"checks":[{"id":"config","status":"fail","message":"config.toml:3: an unknown key","fix":"remove it"}]}\'',
      "exit 1",
      "",
    ].join("\n");
    await writeFile(join(release, `umbel-${TARGET}`), script);
    await writeFile(
      join(release, "SHA256SUMS"),
      `${sha256(new TextEncoder().encode(script))}  umbel-${TARGET}\n`,
    );
    const r = await local.umbel(["hosts", "install", "box", "--from", release, "--json"]);
    expect(r.stderr).toBe("");
    expect(parse(r.stdout)).toMatchObject({
      source: "release",
      file: join(release, `umbel-${TARGET}`),
      version: "9.9.9",
      previous: { version: expect.any(String), protocol: 1 },
      doctor: { exitCode: 1, result: { ok: false } },
    });
    expect(r.code).toBe(1);
    expect(readFileSync(target, "utf8")).toBe(script);
    expect(statSync(target).mode & 0o777).toBe(0o755);
  });

  test("no umbel = path configured: ~/.local/bin/umbel of the host's home, and a note when it is not on the PATH", async () => {
    const r = await local.umbel(["hosts", "install", "plain"]);
    expect(r.stderr).toBe("");
    const installed = join(remote.env.HOME ?? "", ".local", "bin", "umbel");
    expect(r.stdout).toContain(" on plain at ~/.local/bin/umbel (");
    expect(r.stdout).toContain(
      'note: ~/.local/bin is not on the PATH of plain\'s ssh commands, so umbel there does not find it: set umbel = "~/.local/bin/umbel" under [hosts.plain] in config.toml\n',
    );
    expect(r.code).toBe(0);
    expect(sha256(new Uint8Array(readFileSync(installed)))).toBe(SELF_SHA);
  });

  test("a host that does not answer: unreachable, exit 69", async () => {
    const r = await local.umbel(["hosts", "install", "gone", "--json"]);
    expect(parse(r.stdout).error).toMatchObject({ code: "unreachable", data: { host: "gone" } });
    expect(r.code).toBe(69);
  });
});
