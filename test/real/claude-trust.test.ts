// Trust on the REAL Claude Code 2.1.332 through dist/umbel against the stub model: `umbel -p` in a
// fresh untrusted folder leaves claude's trust record as it was (claude -p records none either),
// killed or not; spawn answers the trust dialog, says so on stderr and in JSON, and claude keeps it.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { type ClaudeHome, seedClaudeHome } from "./claude-home.ts";
import { requireRealClaude } from "./real-bin.ts";

setDefaultTimeout(90_000);

const claude = requireRealClaude("test/real/claude-trust.test.ts");
const API_KEY = "sk-ant-test-umbel-real-0123456789abcdefghij";
const KEY = ["--env", "ANTHROPIC_API_KEY"];

describe.skipIf(claude === null)("real claude: trust", () => {
  let stub: StubModel;
  let dir: string;
  let home: ClaudeHome;
  let sb: Sandbox;
  const configFile = () => join(home.configDir, ".claude.json");
  /** claude's trust record for a folder: projects[<folder>].hasTrustDialogAccepted (null: no entry). */
  const trustOf = (folder: string): boolean | null => {
    const config = JSON.parse(readFileSync(configFile(), "utf8"));
    return config.projects?.[folder]?.hasTrustDialogAccepted ?? null;
  };

  beforeAll(async () => {
    stub = await startStubModel({ dialect: "anthropic" });
    dir = await mkdtemp(join(tmpdir(), "umbel-real-trust-"));
    // A signed-in user's claude (onboarding done, the key approved) that trusts no folder.
    home = seedClaudeHome(dir, { apiKey: API_KEY });
    sb = await createSandbox({
      untrusted: true,
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
  });
  afterAll(async () => {
    await sb?.dispose();
    await stub?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test("umbel -p in a fresh untrusted folder answers and leaves claude's trust record unchanged", async () => {
    const folder = realpathSync(sb.work);
    expect(trustOf(folder)).toBeNull();
    const r = await sb.umbel(["-p", "trust me not", "--output-format", "json", ...KEY]);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: renderPromptEcho("trust me not"), is_error: false });
    // No dialog was answered: nothing on stderr, none in umbel's part of the result.
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).umbel).not.toHaveProperty("dialogs");
    expect(r.code).toBe(0);
    // 2.1.332 writes its per-project entry with the default hasTrustDialogAccepted: false; never true.
    expect(trustOf(folder)).not.toBe(true);
  });

  test("in a git repository's subfolder too (claude keys the record by the repository's top)", async () => {
    const repo = join(sb.dir, "repo");
    const sub = join(repo, "sub");
    mkdirSync(sub, { recursive: true });
    expect(Bun.spawnSync(["git", "init", "-q", repo]).exitCode).toBe(0);
    const r = await sb.umbel(["-p", "in a repo", "--cwd", sub, ...KEY]);
    expect(r.stdout).toBe(`${renderPromptEcho("in a repo")}\n`);
    expect(r.code).toBe(0);
    expect(trustOf(realpathSync(repo))).not.toBe(true);
    expect(trustOf(realpathSync(sub))).not.toBe(true);
  });

  test("a -p killed mid-turn (SIGKILL) leaves no trust either", async () => {
    const folder = join(sb.dir, "killed");
    mkdirSync(folder);
    stub.setDefault({ kind: "hang" });
    try {
      const child = Bun.spawn([UMBEL, "-p", "hang on", "--cwd", folder, ...KEY], {
        cwd: sb.work,
        env: sb.env,
        stdout: "ignore",
        stderr: "ignore",
      });
      await stub.waitForRequest((q) => q.kind === "main" && q.prompt === "hang on", 30_000);
      child.kill("SIGKILL");
      await child.exited;
    } finally {
      stub.setDefault(undefined);
    }
    expect(trustOf(realpathSync(folder))).not.toBe(true);
    // The worker the killed -p left: kill it, and its claude must not record a trust on the way out.
    const left = JSON.parse((await sb.umbel(["ls", "--json"])).stdout) as { name: string }[];
    expect(left).toHaveLength(1);
    for (const { name } of left) await sb.umbel(["kill", name, "--purge"]);
    expect(trustOf(realpathSync(folder))).not.toBe(true);
  });

  test("spawn there: the dialog comes again (nothing lasted), is said on stderr and in JSON, and lasts", async () => {
    const folder = realpathSync(sb.work);
    const r = await sb.umbel(["spawn", "t1", "--json", ...KEY]);
    expect(r.code).toBe(0);
    const record = configFile();
    expect(JSON.parse(r.stdout).dialogs).toEqual([
      { dialog: "trust", answer: "Yes, I trust this folder", folders: [folder], lasting: true, record },
    ]);
    expect(r.stderr).toBe(
      `umbel: t1: answered claude's trust dialog for ${folder}: "Yes, I trust this folder"; claude keeps this answer in ${record}\n`,
    );
    // claude writes it on its own schedule, soon after the answer.
    expect(await eventually(() => trustOf(folder) === true, 10_000, "claude to record the trust")).toBe(true);
    await sb.umbel(["kill", "t1", "--purge"]);
    expect(existsSync(join(sb.work, ".claude"))).toBe(false);
  });
});
