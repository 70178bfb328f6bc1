// Issue 22 on the REAL gemini-cli 0.61.0 through dist/umbel against the stub model: gemini's own
// allowlist takes --allow, and runs `git diff --output=x` under run_shell_command(git diff) by
// itself (measured); umbel's BeforeTool answer `ask` makes it ask a person first, and a denied
// command wrapped in keywords and assignments is refused. Skipped locally without `npm run setup:real`.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { STUB_KEY } from "../helpers/gemini-world.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { requireRealGemini } from "./real-gemini.ts";

// The real CLI on real tmux takes seconds a turn; the file declares its own timeout.
setDefaultTimeout(150_000);

const gemini = requireRealGemini("test/real/fleet-gemini.test.ts");
type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (text: string) => JSON.parse(text) as Json;

describe.skipIf(gemini === null)("issue 22 on real gemini", () => {
  let stub: StubModel;
  let sb: Sandbox;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "gemini" });
    sb = await createSandbox({ untrusted: true });
    Object.assign(sb.env, {
      UMBEL_GEMINI_BIN: gemini ?? "gemini",
      GEMINI_API_KEY: STUB_KEY,
      GOOGLE_GEMINI_BASE_URL: stub.url,
    });
  });
  afterAll(async () => {
    await sb?.dispose();
    await stub?.stop();
  });

  async function ok(args: string[], stdin?: string): Promise<Json> {
    const r = await sb.umbel([...args, "--json"], stdin === undefined ? {} : { stdin });
    if (r.code !== 0) throw new Error(`umbel ${args.join(" ")} → ${r.code}\n${r.stdout}${r.stderr}`);
    return json(r.stdout);
  }
  async function turn(name: string, prompt: string) {
    const sent = await ok(["send", name], prompt);
    const waited = await sb.umbel([
      "wait",
      name,
      "--after",
      String(sent.baseline),
      "--json",
      "--timeout",
      "60s",
    ]);
    return { baseline: sent.baseline as number, outcome: json(waited.stdout), code: waited.code };
  }

  test("git diff --output is asked, not run by gemini's allowlist; the rule's own command runs; a wrapped rm is denied", async () => {
    const repo = join(sb.work, "gd");
    mkdirSync(repo);
    const git = (...args: string[]) =>
      Bun.spawnSync(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
    git("init", "-q", "-b", "main");
    writeFileSync(join(repo, "a.txt"), "one\n");
    git("add", ".");
    git("commit", "-q", "-m", "first");
    writeFileSync(join(repo, "a.txt"), "two\n");
    writeFileSync(join(repo, "keep.txt"), "x");
    await ok([
      "spawn",
      "gs",
      "--provider",
      "gemini",
      "--start-timeout",
      "60s",
      "--cwd",
      repo,
      "--allow",
      "run_shell_command(git diff)",
      "--deny",
      "run_shell_command(rm)",
    ]);
    expect((await turn("gs", "stub:bash git diff --stat")).outcome.reason).toBe("stop");
    const denied = await turn("gs", "stub:bash if true; then X=1 rm -f keep.txt; fi");
    expect(denied.outcome.reason).toBe("stop");
    expect(existsSync(join(repo, "keep.txt"))).toBe(true);
    // Last: after a cancelled call gemini sends the stub the old prompt and the next one run together.
    const asked = await turn("gs", "stub:bash git diff --output=out.patch");
    expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    await ok(["answer", "gs", "deny"]);
    await sb.umbel(["wait", "gs", "--after", String(asked.baseline), "--timeout", "60s"]);
    expect(existsSync(join(repo, "out.patch"))).toBe(false);
    expect((await ok(["status", "gs"])).policy).toMatchObject({ denied: 1 });
  });
});
