import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TESTED_CLIS } from "../../src/core/doctor/tested-versions.ts";
import { parseUserConfig } from "../../src/core/worker/user-config.ts";
import { hostRelease, syntheticRelease, thisTarget } from "../helpers/release.ts";
import { REPO } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * The Dockerfile's steps (scripts/image/setup.sh) run for real into a temporary root, under dash (the
 * image's /bin/sh): the release installed through scripts/install.sh with its checksum checked, the
 * state dir, the config file. The steps that need root and the network (apt-get, useradd, npm, chown)
 * are printed instead (UMBEL_IMAGE_DRY_RUN=1), and the test reads them.
 */

const SETUP = join(REPO, "scripts", "image", "setup.sh");
const scratch = mkdtempSync(join(tmpdir(), "umbel-image-test-"));
let release: string;

beforeAll(async () => {
  release = await hostRelease();
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function setup(env: Record<string, string>) {
  const root = mkdtempSync(join(scratch, "root-"));
  const r = Bun.spawnSync(["dash", SETUP], {
    env: {
      PATH: "/usr/local/bin:/usr/bin:/bin",
      HOME: scratch,
      TMPDIR: mkdtempSync(join(scratch, "tmp-")),
      UMBEL_IMAGE_ROOT: root,
      UMBEL_IMAGE_RELEASE: release,
      UMBEL_IMAGE_DRY_RUN: "1",
      CLAUDE_CODE_VERSION: TESTED_CLIS.claude.version,
      CODEX_VERSION: TESTED_CLIS.codex.version,
      GEMINI_CLI_VERSION: TESTED_CLIS.gemini.version,
      ...env,
    },
  });
  return { root, code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe("the image's setup", () => {
  test("tmux, the verified release, a non-root user, UMBEL_HOME 0700, pinned CLIs, a names-only config", () => {
    const r = setup({});
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const planned = r.stdout.split("\n").filter((l) => l.startsWith("would run: "));
    expect(planned).toEqual([
      "would run: apt-get update",
      "would run: apt-get install -y --no-install-recommends tmux tini ca-certificates curl",
      "would run: sh -c rm -rf /var/lib/apt/lists/*",
      "would run: useradd --uid 10001 --user-group --home-dir /home/umbel --shell /bin/bash umbel",
      `would run: npm install -g --no-audit --no-fund @anthropic-ai/claude-code@${TESTED_CLIS.claude.version}`,
      `would run: npm install -g --no-audit --no-fund @openai/codex@${TESTED_CLIS.codex.version}`,
      `would run: npm install -g --no-audit --no-fund @google/gemini-cli@${TESTED_CLIS.gemini.version}`,
      "would run: npm cache clean --force",
      `would run: chown -R umbel:umbel ${r.root}/home/umbel ${r.root}/var/lib/umbel ${r.root}/work`,
    ]);
    const umbel = join(r.root, "usr", "local", "bin", "umbel");
    expect(statSync(umbel).mode & 0o777).toBe(0o755);
    const version = Bun.spawnSync([umbel, "--version"]).stdout.toString();
    expect(version).toMatch(/^\d+\.\d+\.\d+ \(commit [0-9a-f]{12}/);
    expect(statSync(join(r.root, "var", "lib", "umbel")).mode & 0o777).toBe(0o700);
    const config = join(r.root, "home", "umbel", ".config", "umbel", "config.toml");
    expect(parseUserConfig(readFileSync(config, "utf8"), config)).toEqual({
      claude: { env: ["CLAUDE_CODE_OAUTH_TOKEN"] },
    });
    // claude skips its first-run onboarding only with this (docs/providers.md); it holds no credential.
    expect(JSON.parse(readFileSync(join(r.root, "home", "umbel", ".claude.json"), "utf8"))).toEqual({
      hasCompletedOnboarding: true,
    });
    expect(existsSync(join(r.root, "work"))).toBe(true);
  });

  test("an extra CA bundle given to the build is trusted by npm; a missing or empty one is no error", () => {
    const ca = join(scratch, "extra-ca.pem");
    writeFileSync(ca, "-----BEGIN CERTIFICATE-----\n");
    const given = setup({ UMBEL_IMAGE_EXTRA_CA: ca });
    expect(given.code).toBe(0);
    expect(given.stdout).toContain(`umbel-image: npm trusts the extra CA bundle ${ca} for this build\n`);
    writeFileSync(ca, "");
    for (const path of [ca, join(scratch, "no-such-ca.pem")]) {
      const r = setup({ UMBEL_IMAGE_EXTRA_CA: path });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain("extra CA bundle");
    }
  });

  test("a CLI left out by an empty build argument is not installed", () => {
    const small = join(scratch, "synthetic");
    syntheticRelease(small, [thisTarget().name]);
    const r = setup({ CODEX_VERSION: "", GEMINI_CLI_VERSION: "", UMBEL_IMAGE_RELEASE: small });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("@openai/codex");
    expect(r.stdout).not.toContain("@google/gemini-cli");
  });

  test.each([
    [{ CLAUDE_CODE_VERSION: "latest" }, "CLAUDE_CODE_VERSION must be an exact version"],
    [{ CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-x" }, "CLAUDE_CODE_OAUTH_TOKEN is set"],
    [{ ANTHROPIC_API_KEY: "sk" }, "ANTHROPIC_API_KEY is set"],
  ])("refuses %j: an unpinned CLI, or a credential that would be baked in", (env, reason) => {
    const r = setup(env);
    expect(r.stderr).toContain(reason);
    expect(r.code).not.toBe(0);
    expect(readdirSync(r.root)).toEqual([]);
  });

  test("a release that cannot be read installs nothing", () => {
    const r = setup({ UMBEL_IMAGE_RELEASE: join(scratch, "nowhere") });
    expect(r.stderr).toContain("could not download");
    expect(r.code).not.toBe(0);
    expect(existsSync(join(r.root, "usr", "local", "bin", "umbel"))).toBe(false);
  });
});
