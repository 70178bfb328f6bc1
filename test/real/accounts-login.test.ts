// `umbel accounts login NAME -- --help` through dist/umbel with each pinned real CLI: the sign-in
// command umbel runs exists in that release (a vendor renaming `auth login` turns this red), with
// the account's home made 0700. Only --help runs, so no CLI needs the network; a dead proxy in the
// environment makes sure nothing reaches a vendor anyway. Skipped locally per CLI when `npm run
// setup:real` has not installed it; UMBEL_REQUIRE_REAL=1 (CI) makes that a failure.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";
import { requireRealClaude } from "./real-bin.ts";
import { requireRealCodex } from "./real-codex.ts";
import { requireRealGemini } from "./real-gemini.ts";
import { requireRealOpencode } from "./real-opencode.ts";

// A real CLI's first start on 2 loaded cores takes seconds (opencode's up to 49 s: docs/providers.md).
setDefaultTimeout(120_000);

const FILE = "test/real/accounts-login.test.ts";
const CLIS = [
  { account: "work", provider: "claude", bin: requireRealClaude(FILE), usage: "Usage: claude auth login" },
  { account: "cx", provider: "codex", bin: requireRealCodex(FILE), usage: "Usage: codex login" },
  // gemini 0.61.0 has no login command: the sign-in is the TUI's own auth dialog.
  { account: "gem", provider: "gemini", bin: requireRealGemini(FILE), usage: "Usage: gemini [options]" },
  { account: "oc", provider: "opencode", bin: requireRealOpencode(FILE), usage: "opencode auth login" },
] as const;
const BIN_ENV = {
  claude: "UMBEL_CLAUDE_BIN",
  codex: "UMBEL_CODEX_BIN",
  gemini: "UMBEL_GEMINI_BIN",
  opencode: "UMBEL_OPENCODE_BIN",
};

let sb: Sandbox;
const homeOf = (account: string) => join(sb.dir, "homes", account);

beforeAll(async () => {
  const bins: Record<string, string> = {};
  for (const cli of CLIS) if (cli.bin) bins[BIN_ENV[cli.provider]] = cli.bin;
  const deadProxy = "http://127.0.0.1:9";
  sb = await createSandbox({
    env: {
      ...bins,
      HTTPS_PROXY: deadProxy,
      HTTP_PROXY: deadProxy,
      https_proxy: deadProxy,
      http_proxy: deadProxy,
    },
  });
  mkdirSync(sb.root, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(sb.root, "config.toml"),
    CLIS.map(
      (c) => `[accounts.${c.account}]\nprovider = "${c.provider}"\nhome = "${homeOf(c.account)}"\n`,
    ).join("\n"),
  );
});
afterAll(async () => {
  await sb?.dispose();
});

describe("umbel accounts login with the pinned CLIs", () => {
  for (const cli of CLIS) {
    test.skipIf(cli.bin === null)(
      `${cli.provider}: its sign-in command is there (${cli.usage})`,
      async () => {
        const r = await sb.umbel(["accounts", "login", cli.account, "--", "--help"]);
        // opencode (yargs) prints its help on stderr: the terminal's either way.
        expect(r.stdout + r.stderr).toContain(cli.usage);
        expect(r.code).toBe(0);
        expect(statSync(homeOf(cli.account)).mode & 0o777).toBe(0o700);
      },
    );
  }
});
