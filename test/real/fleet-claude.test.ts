// Issue 14 on the REAL Claude Code TUI (the pinned binary from `npm run setup:real`) through
// dist/umbel against the stub model: answer allow / deny on a real permission prompt, a stale
// --input-id refused, a policy-allowed command that never reaches the caller (and a denied one),
// wait --any over two real workers, --notify on stop and on input, a worktree kept while dirty.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";
import { matchingToolUse, text, toolUse } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { seedClaudeHome } from "./claude-home.ts";
import { requireRealClaude } from "./real-bin.ts";

// Real workers take seconds a turn; the file declares its own timeout (oven-sh/bun#43787).
setDefaultTimeout(120_000);

const claude = requireRealClaude("test/real/fleet-claude.test.ts");
const API_KEY = "sk-ant-test-umbel-real-0123456789abcdefghij";
const KEY = ["--env", "ANTHROPIC_API_KEY"];
type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (text: string) => JSON.parse(text) as Json;
const timing = (what: string, ms: number) => console.log(`[timing] ${what}: ${Math.round(ms)} ms`);

describe.skipIf(claude === null)("issue 14 on real claude", () => {
  let stub: StubModel;
  let sb: Sandbox;
  let dir: string;
  let feed: string;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "anthropic" });
    dir = await mkdtemp(join(tmpdir(), "umbel-fleet-"));
    const home = seedClaudeHome(dir, { apiKey: API_KEY });
    sb = await createSandbox({
      untrusted: true,
      env: {
        HOME: home.home,
        CLAUDE_CONFIG_DIR: home.configDir,
        TMPDIR: home.tmpDir,
        DISABLE_AUTOUPDATER: "1",
        ANTHROPIC_BASE_URL: stub.url,
        ANTHROPIC_API_KEY: API_KEY,
        CLAUDE_CODE_MAX_RETRIES: "0",
        UMBEL_CLAUDE_BIN: claude ?? "claude",
      },
    });
    feed = join(sb.dir, "feed.txt");
  });
  afterAll(async () => {
    await sb?.dispose();
    await stub?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  async function ok(args: string[], stdin?: string): Promise<Json> {
    const r = await sb.umbel([...args, "--json"], stdin === undefined ? {} : { stdin });
    if (r.code !== 0) {
      // Both streams, labelled (a failed send's stdout JSON holds the screen it left), and the logs.
      const name = args[1] ?? "";
      const logs = args[0] === "send" ? (await sb.umbel(["logs", name, "--json"])).stdout.slice(-4000) : "";
      throw new Error(
        `umbel ${args.join(" ")} → ${r.code}\nstdout: ${r.stdout || "(empty)"}\nstderr: ${r.stderr || "(empty)"}${logs ? `\nlogs (tail): ${logs}` : ""}`,
      );
    }
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
      "40s",
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

  test("spawn with rules and --notify: an allowed command never reaches the caller; a denied one is refused; notify on stop", async () => {
    await ok([
      "spawn",
      "fa",
      ...KEY,
      "--permission-mode",
      "manual",
      "--allow",
      "Bash(touch:*)",
      "--deny",
      "Bash(rm:*)",
      "--notify",
      `printf '%s %s ' "$UMBEL_WORKER" "$UMBEL_OUTCOME" >> '${feed}'; cat >> '${feed}'; echo >> '${feed}'`,
    ]);
    const allowed = await turn("fa", "stub:bash touch policy.txt");
    expect(allowed.outcome).toMatchObject({ reason: "stop", exitCode: 0 });
    expect(existsSync(join(sb.work, "policy.txt"))).toBe(true);
    writeFileSync(join(sb.work, "keep.txt"), "x");
    const denied = await turn("fa", "stub:bash rm -f keep.txt");
    expect(denied.outcome.reason).toBe("stop");
    expect(existsSync(join(sb.work, "keep.txt"))).toBe(true);
    expect((await ok(["status", "fa"])).policy).toMatchObject({ allowed: 1, denied: 1 });
    const logs = (await sb.umbel(["logs", "fa"])).stdout;
    expect(logs).toContain("[umbel policy: allow Bash(touch:*)]");
    expect(logs).toContain("[umbel policy: deny Bash(rm:*)]");
    await eventually(() => notified().filter((o) => o === "stop").length >= 2, 10_000, "notify on stop");
  });

  test("issue 22: an MCP call whose arguments say tool_name Read, git diff --output and a dodged rm are never let through", async () => {
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
    const server = {
      command: process.execPath,
      args: [join(import.meta.dir, "..", "fixtures", "write-mcp.ts")],
    };
    await ok([
      "spawn",
      "fs",
      ...KEY,
      // claude 2.1.332 defers MCP tools behind ToolSearch (docs/providers.md): offer them directly.
      "--env",
      "ENABLE_TOOL_SEARCH=false",
      "--cwd",
      repo,
      "--permission-mode",
      "manual",
      "--allow",
      "Read",
      "--allow",
      "Bash(git diff:*)",
      "--deny",
      "Bash(rm:*)",
      "--mcp-config",
      JSON.stringify({ mcpServers: { evil: server } }),
    ]);
    const refuse = async (asked: { baseline: number; outcome: Json }) => {
      expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
      await ok(["answer", "fs", "deny", "--input-id", String(asked.outcome.evidence.inputId)]);
      await sb.umbel(["wait", "fs", "--after", String(asked.baseline), "--timeout", "40s"]);
    };
    // claude connects its MCP servers in the background: a turn's request lists the tool once it has.
    const offered = () => {
      const body = stub.mainRequests().at(-1)?.body as { tools?: { name?: string }[] } | undefined;
      return (body?.tools ?? []).some((t) => t.name === "mcp__evil__write");
    };
    await eventually(
      async () => (await turn("fs", "hello")).outcome.reason === "stop" && offered(),
      30_000,
      "the MCP tool",
    );
    // The spoof (no reply scripted after it: a denied call ends the turn, and a queued one would
    // answer the next): the MCP tool's own arguments hold "tool_name":"Read" (and a command the allow rule names).
    const spoof = join(repo, "spoof.txt");
    stub.script(
      matchingToolUse("write", {
        path: spoof,
        text: "pwned",
        tool_name: "Read",
        file_path: "/etc/hostname",
        command: "git diff",
      }),
    );
    await refuse(await turn("fs", "use the write tool"));
    expect(existsSync(spoof)).toBe(false);
    // An option that writes a file is never part of an allowed command.
    await refuse(await turn("fs", "stub:bash git diff --output=out.patch"));
    expect(existsSync(join(repo, "out.patch"))).toBe(false);
    // A deny rule sees through keywords and assignments.
    const denied = await turn("fs", "stub:bash if true; then X=1 rm -f keep.txt; fi");
    expect(denied.outcome.reason).toBe("stop");
    expect(existsSync(join(repo, "keep.txt"))).toBe(true);
    const logs = (await sb.umbel(["logs", "fs"])).stdout;
    expect(logs).toContain("[umbel policy: deny Bash(rm:*)]");
    expect(logs).not.toContain("[umbel policy: allow");
    // What the rule does name still runs with no prompt.
    expect((await turn("fs", "stub:bash git diff --stat")).outcome.reason).toBe("stop");
  });

  test("a prompt no rule covers is input with an inputId (notified); answer allow approves; a stale id is refused (4)", async () => {
    const asked = await turn("fa", "stub:bash echo approved > approved.txt");
    expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    const inputId = String(asked.outcome.evidence.inputId);
    await eventually(() => notified().includes("input"), 10_000, "notify on input");
    // claude announces the same prompt again (Notification permission_prompt, 1-7 s later): the id
    // wait gave still answers it (issue 22: it was refused as another prompt).
    await eventually(
      async () =>
        (await sb.umbel(["logs", "fa", "--json"])).stdout.includes('"notification_type":"permission_prompt"'),
      20_000,
      "the permission_prompt Notification",
    );
    const started = performance.now();
    const answered = await ok(["answer", "fa", "allow", "--input-id", inputId]);
    timing("answer allow (settle, key, screen reacted)", performance.now() - started);
    expect(answered).toMatchObject({ inputId, option: { number: 1, label: "Yes" }, keys: ["1"] });
    const done = await sb.umbel([
      "wait",
      "fa",
      "--after",
      String(asked.baseline),
      "--json",
      "--timeout",
      "40s",
    ]);
    expect(json(done.stdout).reason).toBe("stop");
    expect(readFileSync(join(sb.work, "approved.txt"), "utf8")).toBe("approved\n");
    const stale = await sb.umbel(["answer", "fa", "allow", "--input-id", inputId]);
    expect(stale.stderr).toContain(`no longer shows prompt ${inputId}`);
    expect(stale.code).toBe(4);
  });

  test("answer deny: nothing runs; the turn ends as a stop marked interrupted", async () => {
    const asked = await turn("fa", "stub:bash echo no > denied.txt");
    expect(asked.outcome.reason).toBe("input");
    expect(
      await ok(["answer", "fa", "deny", "--input-id", String(asked.outcome.evidence.inputId)]),
    ).toMatchObject({
      option: { label: "No" },
    });
    const done = await sb.umbel([
      "wait",
      "fa",
      "--after",
      String(asked.baseline),
      "--json",
      "--timeout",
      "40s",
    ]);
    expect(json(done.stdout)).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
    expect(existsSync(join(sb.work, "denied.txt"))).toBe(false);
  });

  // A -p worker never asks (it is --non-interactive, as claude -p); a --name worker that spawn made
  // keeps its TUI's mode, so its prompt reaches the caller.
  test("-p --name (a worker spawn made) that meets a prompt: exit 126, the worker kept; the reported inputId still answers it after claude's permission_prompt notification", async () => {
    await ok(["spawn", "pn", ...KEY, "--permission-mode", "manual"]);
    const r = await sb.umbel([
      "-p",
      "--name",
      "pn",
      "--output-format",
      "json",
      "stub:bash echo kept > kept.txt",
    ]);
    expect(r.code).toBe(126);
    const result = JSON.parse(r.stdout);
    const inputId = String(result.umbel.evidence.inputId);
    expect(result.errors[0]).toContain(`\`umbel answer pn allow --input-id ${inputId}\``);
    // claude 2.1.332 fires Notification permission_prompt ~1 s after its PermissionRequest.
    await eventually(
      async () => (await sb.umbel(["logs", "pn"])).stdout.includes("Notification"),
      15_000,
      "the permission_prompt notification",
    );
    expect((await ok(["status", "pn"])).inputId).toBe(inputId);
    expect(await ok(["answer", "pn", "allow", "--input-id", inputId])).toMatchObject({ inputId });
    expect(json((await sb.umbel(["wait", "pn", "--json", "--timeout", "40s"])).stdout).reason).toBe("stop");
    expect(readFileSync(join(sb.work, "kept.txt"), "utf8")).toBe("kept\n");
    await sb.umbel(["kill", "pn", "--purge"]);
  });

  test("wait --any over two real workers returns the first to finish; --all both", async () => {
    await ok(["spawn", "fb", ...KEY]);
    await ok(["send", "fa"], "stub:slow 40 100");
    await ok(["send", "fb"], "quick one");
    const started = performance.now();
    const any = await sb.umbel(["wait", "--any", "fa", "fb", "--json", "--timeout", "40s"]);
    timing("wait --any, the quick worker", performance.now() - started);
    expect(json(any.stdout)).toMatchObject({ name: "fb", reason: "stop", pending: ["fa"] });
    expect(any.code).toBe(0);
    const all = json((await sb.umbel(["wait", "--all", "fa", "fb", "--json", "--timeout", "40s"])).stdout);
    expect((all.outcomes as Json[]).map((o) => [o.name, o.reason])).toEqual([
      ["fa", "stop"],
      ["fb", "stop"],
    ]);
  });

  test("a question with options (AskUserQuestion): input with the question; answer by label; the turn goes on", async () => {
    const question = "Which colour should the button be?";
    const options = [
      { label: "Red", description: "warm" },
      { label: "Blue", description: "cool" },
    ];
    stub.script(
      toolUse(
        "AskUserQuestion",
        { questions: [{ question, header: "Colour", options, multiSelect: false }] },
        text("ok, noted"),
      ),
    );
    const asked = await turn("fb", "ask me");
    expect(asked.outcome).toMatchObject({
      reason: "input",
      evidence: { prompt: `AskUserQuestion: ${question}` },
    });
    expect(String(asked.outcome.evidence.screen)).toContain("Enter to select");
    const answered = await ok(["answer", "fb", "Blue", "--input-id", String(asked.outcome.evidence.inputId)]);
    expect(answered).toMatchObject({ option: { number: 2, label: "Blue" }, keys: ["2"] });
    const done = await sb.umbel([
      "wait",
      "fb",
      "--after",
      String(asked.baseline),
      "--json",
      "--timeout",
      "40s",
    ]);
    expect(json(done.stdout)).toMatchObject({ reason: "stop", evidence: { message: "ok, noted" } });
    expect(JSON.stringify(stub.mainRequests().at(-1)?.body)).toContain('\\"Blue\\"');
  });

  test("--worktree: the worker writes in its own worktree; kill keeps it while dirty and says where", async () => {
    const repo = join(sb.work, "repo");
    mkdirSync(repo);
    const git = (...args: string[]) =>
      Bun.spawnSync(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
    git("init", "-q", "-b", "main");
    writeFileSync(join(repo, "README"), "hi\n");
    git("add", ".");
    git("commit", "-q", "-m", "first");
    const spawned = await ok([
      "spawn",
      "fw",
      ...KEY,
      "--cwd",
      repo,
      "--worktree",
      "--allow",
      "Bash(touch:*)",
    ]);
    const tree = String((spawned.worktree as Json).path);
    expect(tree).toBe(join(realpathSync(sb.root), "worktrees", "fw"));
    expect(spawned.dialogsAnswered).toEqual(["trust"]);
    expect((await turn("fw", "stub:bash touch made.txt")).outcome.reason).toBe("stop");
    expect(existsSync(join(tree, "made.txt"))).toBe(true);
    expect(existsSync(join(repo, "made.txt"))).toBe(false);
    expect((await ok(["status", "fw"])).worktree).toMatchObject({ branch: "umbel/fw", dirty: true });
    const killed = await ok(["kill", "fw"]);
    expect(killed.worktree).toMatchObject({ removed: false, branchKept: true });
    expect(String((killed.worktree as Json).note)).toContain(`kept ${tree}`);
    expect(existsSync(join(tree, "made.txt"))).toBe(true);
  });
});
