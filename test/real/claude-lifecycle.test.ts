// The REAL Claude Code TUI (2.1.332, `npm run setup:real`) against the stub model: the workers no
// umbel process is left to remove must end by themselves (issue 22 items 10 and 11: with TMUX_TMPDIR
// set a spare's claude, 232 MB, ran on invisible after its TTL; a -p killed with SIGKILL left its
// worker running). Timing figures are printed, never asserted.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, eventually, isRunning, type Sandbox, UMBEL } from "../helpers/sandbox.ts";
import { hang } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { seedClaudeHome } from "./claude-home.ts";
import { requireRealClaude } from "./real-bin.ts";

setDefaultTimeout(90_000);

const claude = requireRealClaude("test/real/claude-lifecycle.test.ts");
const API_KEY = "sk-ant-test-umbel-real-0123456789abcdefghij";
const KEY = ["--env", "ANTHROPIC_API_KEY"];
const timing = (what: string, ms: number) => console.log(`[timing] ${what}: ${Math.round(ms)} ms`);

let stub: StubModel;

async function world(tmuxTmpdir: boolean): Promise<{ sb: Sandbox; dispose(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "umbel-real-life-"));
  const home = seedClaudeHome(dir, { apiKey: API_KEY });
  const sb = await createSandbox({
    untrusted: true,
    tmuxTmpdir,
    env: {
      HOME: home.home,
      CLAUDE_CONFIG_DIR: home.configDir,
      TMPDIR: home.tmpDir,
      DISABLE_AUTOUPDATER: "1",
      ANTHROPIC_BASE_URL: stub.url,
      ANTHROPIC_API_KEY: API_KEY,
      UMBEL_CLAUDE_BIN: claude ?? "claude",
    },
  });
  return {
    sb,
    async dispose() {
      await sb.dispose();
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}

/** The worker's claude: the pane runs launch.sh's sh, and claude is its child (beside its watch, a sh). */
async function claudeOf(sb: Sandbox, name: string): Promise<number> {
  const { pid } = JSON.parse((await sb.umbel(["status", name, "--json"])).stdout) as { pid: number };
  const children = Bun.spawnSync(["ps", "-o", "pid=,comm=", "--ppid", String(pid)])
    .stdout.toString()
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/));
  const cli = children.filter(([, comm]) => comm !== "sh");
  // 2.1.332's process is claude.exe (its native binary).
  expect(cli.map(([, comm]) => comm)).toEqual(["claude.exe"]);
  return Number(cli[0]?.[0]);
}

describe.skipIf(claude === null)("real claude: a worker nobody is left to remove ends by itself", () => {
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "anthropic" });
  });
  afterAll(async () => {
    await stub.stop();
  });

  test.each([
    ["set", true],
    ["unset", false],
  ])(
    "a spare past its TTL (TMUX_TMPDIR %s): its claude ends with its directory",
    async (_label, tmuxTmpdir) => {
      const w = await world(tmuxTmpdir);
      try {
        const r = await w.sb.umbel(["pool", "warm", "1", "--ttl", "3s", ...KEY, "--json"]);
        expect(r.code).toBe(0);
        const [name = ""] = (JSON.parse(r.stdout) as { made: string[] }).made;
        const pid = await claudeOf(w.sb, name);
        const started = performance.now();
        await eventually(() => !existsSync(join(w.sb.root, "sessions", name)), 20_000, "the spare to retire");
        await eventually(() => !isRunning(pid), 10_000, "its claude to end");
        timing(
          `pool warm returned → spare retired, its claude gone (TTL 3 s, TMUX_TMPDIR ${_label})`,
          performance.now() - started,
        );
      } finally {
        await w.dispose();
      }
    },
  );

  test("a -p killed with SIGKILL mid-turn: its worker's wrapper ends claude; prune removes the rest", async () => {
    const w = await world(true);
    try {
      stub.script(hang());
      const child = Bun.spawn([UMBEL, "-p", "never answered", ...KEY], {
        cwd: w.sb.work,
        env: w.sb.env,
        stdin: "ignore",
        stdout: "ignore",
        stderr: "ignore",
      });
      await stub.waitForRequest((req) => req.kind === "main" && req.answered === "hang", 60_000);
      const [row] = JSON.parse((await w.sb.umbel(["ls", "--json"])).stdout) as { name: string }[];
      const name = row?.name ?? "";
      const pid = await claudeOf(w.sb, name);
      child.kill("SIGKILL");
      await child.exited;
      const started = performance.now();
      await eventually(() => !isRunning(pid), 15_000, "the orphan's claude to end");
      timing("-p killed → its claude gone (the wrapper's watch)", performance.now() - started);
      const ls = JSON.parse((await w.sb.umbel(["ls", "--json"])).stdout) as { name: string; state: string }[];
      expect(ls).toEqual([expect.objectContaining({ name, state: "orphaned" })]);
      expect(JSON.parse((await w.sb.umbel(["prune", "--json"])).stdout).removed).toEqual([name]);
    } finally {
      await w.dispose();
    }
  });
});
