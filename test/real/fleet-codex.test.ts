// Issue 14 on the REAL codex-cli 0.171.0 through dist/umbel against the stub model: answer allow /
// deny on a real approval, a stale --input-id refused, a policy-allowed escalation that never reaches
// the caller (and a denied command), wait --any over two real workers, --notify on stop and on input,
// a worktree kept while dirty. Skipped locally without `npm run setup:real`.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { seedCodexWorld, stubProviderToml } from "../helpers/codex-world.ts";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { requireRealCodex } from "./real-codex.ts";

// The real CLI on real tmux takes seconds a turn; the file declares its own timeout.
setDefaultTimeout(150_000);

const codex = requireRealCodex("test/real/fleet-codex.test.ts");
type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (text: string) => JSON.parse(text) as Json;

describe.skipIf(codex === null)("issue 14 on real codex", () => {
  let stub: StubModel;
  let sb: Sandbox;
  let feed: string;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "openai" });
    sb = await createSandbox({ untrusted: true });
    const userHome = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url)).userCodexHome;
    Object.assign(sb.env, { UMBEL_CODEX_BIN: codex ?? "codex", CODEX_HOME: userHome });
    feed = join(sb.dir, "feed.txt");
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
  const notified = () =>
    existsSync(feed)
      ? readFileSync(feed, "utf8")
          .trim()
          .split("\n")
          .map((line) => line.split(" ")[1])
      : [];
  const spawn = (name: string, ...flags: string[]) =>
    ok(["spawn", name, "--provider", "codex", "--start-timeout", "60s", ...flags]);

  test("rules and --notify: an allowed escalation never reaches the caller; a denied command is refused; notify on stop", async () => {
    await spawn(
      "ca",
      "--allow",
      "Bash(touch:*)",
      "--deny",
      "Bash(rm:*)",
      "--notify",
      `printf '%s %s ' "$UMBEL_WORKER" "$UMBEL_OUTCOME" >> '${feed}'; cat >> '${feed}'; echo >> '${feed}'`,
    );
    const allowed = await turn("ca", "stub:escalate touch policy.txt");
    expect(allowed.outcome).toMatchObject({ reason: "stop", exitCode: 0 });
    expect(existsSync(join(sb.work, "policy.txt"))).toBe(true);
    writeFileSync(join(sb.work, "keep.txt"), "x");
    const denied = await turn("ca", "stub:bash rm -f keep.txt");
    expect(denied.outcome.reason).toBe("stop");
    expect(existsSync(join(sb.work, "keep.txt"))).toBe(true);
    expect((await ok(["status", "ca"])).policy).toMatchObject({ allowed: 1, denied: 1 });
    await eventually(() => notified().filter((o) => o === "stop").length >= 2, 10_000, "notify on stop");
  });

  test("issue 22: an escalated git diff --output is asked, never allowed by Bash(git diff:*); a dodged rm is denied", async () => {
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
    await spawn("cs", "--cwd", repo, "--allow", "Bash(git diff:*)", "--deny", "Bash(rm:*)");
    const asked = await turn("cs", "stub:escalate git diff --output=out.patch");
    expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    await ok(["answer", "cs", "deny"]);
    await sb.umbel(["wait", "cs", "--after", String(asked.baseline), "--timeout", "60s"]);
    expect(existsSync(join(repo, "out.patch"))).toBe(false);
    const denied = await turn("cs", "stub:bash if true; then X=1 rm -f keep.txt; fi");
    expect(denied.outcome.reason).toBe("stop");
    expect(existsSync(join(repo, "keep.txt"))).toBe(true);
    expect((await ok(["status", "cs"])).policy).toMatchObject({ allowed: 0, denied: 1 });
  });

  test("an approval no rule covers: input with an inputId (notified); answer allow; a stale id is refused (4)", async () => {
    const asked = await turn("ca", "stub:escalate mkdir approved");
    expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    const inputId = String(asked.outcome.evidence.inputId);
    await eventually(() => notified().includes("input"), 10_000, "notify on input");
    expect(await ok(["answer", "ca", "allow", "--input-id", inputId])).toMatchObject({
      inputId,
      option: { number: 1, label: "Yes, proceed" },
      keys: ["y"],
    });
    const done = await sb.umbel([
      "wait",
      "ca",
      "--after",
      String(asked.baseline),
      "--json",
      "--timeout",
      "60s",
    ]);
    expect(json(done.stdout).reason).toBe("stop");
    expect(existsSync(join(sb.work, "approved"))).toBe(true);
    const stale = await sb.umbel(["answer", "ca", "allow", "--input-id", inputId]);
    expect(stale.stderr).toContain(`no longer shows prompt ${inputId}`);
    expect(stale.code).toBe(4);
  });

  test("answer deny: nothing runs; the turn ends as a stop marked interrupted", async () => {
    const asked = await turn("ca", "stub:escalate mkdir denied");
    expect(asked.outcome.reason).toBe("input");
    expect(await ok(["answer", "ca", "deny"])).toMatchObject({ keys: ["Escape"] });
    const done = await sb.umbel([
      "wait",
      "ca",
      "--after",
      String(asked.baseline),
      "--json",
      "--timeout",
      "60s",
    ]);
    expect(json(done.stdout)).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
    expect(existsSync(join(sb.work, "denied"))).toBe(false);
  });

  test("wait --any over two real workers returns the first to finish; --all both", async () => {
    await spawn("cb");
    await ok(["send", "ca"], "stub:slow 40 100");
    await ok(["send", "cb"], "quick one");
    const any = await sb.umbel(["wait", "--any", "ca", "cb", "--json", "--timeout", "60s"]);
    expect(json(any.stdout)).toMatchObject({ name: "cb", reason: "stop", pending: ["ca"] });
    expect(any.code).toBe(0);
    const all = json((await sb.umbel(["wait", "--all", "ca", "cb", "--json", "--timeout", "60s"])).stdout);
    expect((all.outcomes as Json[]).map((o) => [o.name, o.reason])).toEqual([
      ["ca", "stop"],
      ["cb", "stop"],
    ]);
  });

  test("--worktree: the worker's work stays in its own worktree; kill keeps it while dirty", async () => {
    const repo = join(sb.work, "repo");
    mkdirSync(repo);
    const git = (...args: string[]) =>
      Bun.spawnSync(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
    git("init", "-q", "-b", "main");
    writeFileSync(join(repo, "README"), "hi\n");
    git("add", ".");
    git("commit", "-q", "-m", "first");
    const spawned = await spawn("cw", "--cwd", repo, "--worktree");
    const tree = String((spawned.worktree as Json).path);
    expect(tree).toBe(join(realpathSync(sb.root), "worktrees", "cw"));
    expect((await turn("cw", "stub:bash touch made.txt")).outcome.reason).toBe("stop");
    expect(existsSync(join(tree, "made.txt"))).toBe(true);
    expect(existsSync(join(repo, "made.txt"))).toBe(false);
    const killed = await ok(["kill", "cw"]);
    expect(killed.worktree).toMatchObject({ removed: false, branchKept: true });
    expect(existsSync(join(tree, "made.txt"))).toBe(true);
  });
});
