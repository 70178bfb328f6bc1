import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * `umbel -p` claude -p features through the fake claude: stream-json output and input, launch flags
 * reaching the CLI, --settings merging, session resume and continue, umbel's own outcomes as
 * is_error results. The real tier compares the same against the real claude -p.
 */

const sha12 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
const lines = (stdout: string) =>
  stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const kinds = (messages: Record<string, unknown>[]) =>
  messages.map((m) => (m.subtype === "init" ? "init" : String(m.type)));

let sb: Sandbox;
let log: string;
beforeAll(async () => {
  sb = await createSandbox();
  log = join(sb.dir, "fake.log");
});
afterAll(async () => {
  await sb.dispose();
});

describe("umbel -p output formats", () => {
  test("stream-json: init, each assistant line as written, then the result", async () => {
    const r = await sb.umbel(["-p", "fake:multi", "--output-format", "stream-json", "--verbose"]);
    const out = lines(r.stdout);
    expect(kinds(out)).toEqual(["init", "assistant", "assistant", "result"]);
    expect(out[0]).toMatchObject({
      type: "system",
      subtype: "init",
      cwd: sb.work,
      session_id: expect.any(String),
    });
    expect(out[1]).toMatchObject({
      message: { content: [{ type: "text", text: "Part one." }] },
      parent_tool_use_id: null,
    });
    expect(out[3]).toMatchObject({
      subtype: "success",
      result: "Part one.\n\nPart two.",
      num_turns: 1,
      model_usage_since_last_result: expect.any(Object),
    });
    expect(r.code).toBe(0);
  });

  test("stream-json needs --verbose, as in claude -p", async () => {
    const r = await sb.umbel(["-p", "x", "--output-format", "stream-json"]);
    expect(r.stderr).toContain("--output-format=stream-json requires --verbose");
    expect(r.code).toBe(2);
  });

  test("json --verbose: one array of every message ending with the result", async () => {
    const r = await sb.umbel(["-p", "fake:reply arr", "--output-format", "json", "--verbose"]);
    const all = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(kinds(all)).toEqual(["init", "assistant", "result"]);
    expect(all[2]).toMatchObject({ result: "arr" });
  });

  test("--input-format stream-json: one turn per stdin message, on one conversation", async () => {
    const stdin = ["fake:history", "fake:history"]
      .map((content) => JSON.stringify({ type: "user", message: { role: "user", content } }))
      .join("\n");
    const r = await sb.umbel(
      ["-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
      {
        stdin,
      },
    );
    const out = lines(r.stdout);
    expect(kinds(out)).toEqual(["init", "assistant", "result", "init", "assistant", "result"]);
    const results = out.filter((m) => m.type === "result");
    expect(results.map((m) => m.result)).toEqual([
      "HISTORY n=0 last=none",
      `HISTORY n=1 last=${sha12("fake:history")}`,
    ]);
    expect(results.map((m) => m.result_index)).toEqual([0, 1]);
    expect(r.code).toBe(0);
  });
});

describe("umbel -p launch flags", () => {
  test("system prompts, tool lists, dirs and MCP configs reach the CLI; --settings is merged into one", async () => {
    const extra = join(sb.dir, "extra");
    mkdirSync(extra, { recursive: true });
    const r = await sb.umbel([
      "-p",
      "fake:reply flags",
      "--system-prompt",
      "SYS;",
      "--append-system-prompt",
      "APPENDED",
      "--disallowedTools",
      "Bash",
      "Edit",
      "--add-dir",
      extra,
      "--mcp-config",
      '{"mcpServers":{}}',
      "--settings",
      '{"env":{"FOO":"bar"}}',
      "--model",
      "claude-sonnet-5",
      "--env",
      `FAKE_CLAUDE_LOG=${log}`,
    ]);
    expect(r.stdout).toBe("flags\n");
    const argv = readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("argv: "))
      .at(-1);
    for (const flag of [
      "--system-prompt=SYS;",
      "--append-system-prompt=APPENDED",
      "--disallowedTools=Bash,Edit",
      `--add-dir=${extra}`,
      '--mcp-config={"mcpServers":{}}',
      "--model claude-sonnet-5",
    ])
      expect(argv).toContain(flag);
    expect(argv?.match(/--settings /g)).toHaveLength(1);
    expect(argv).toContain('"env":{"FOO":"bar"}');
    expect(argv).toContain('"hooks":{');
  });

  test("--settings FILE is read (relative to the working directory); a missing one is a usage error", async () => {
    writeFileSync(join(sb.work, "s.json"), '{"env":{"FROM":"file"}}');
    const r = await sb.umbel([
      "-p",
      "fake:reply ok",
      "--settings",
      "s.json",
      "--env",
      `FAKE_CLAUDE_LOG=${log}`,
    ]);
    expect(r.code).toBe(0);
    expect(readFileSync(log, "utf8")).toContain('"env":{"FROM":"file"}');
    const missing = await sb.umbel(["-p", "x", "--settings", "nope.json"]);
    expect(missing.stderr).toContain(`Settings file not found: ${join(sb.work, "nope.json")}`);
    expect(missing.code).toBe(2);
  });

  test("launch flags given to a running worker are reported as not applied", async () => {
    await sb.umbel(["-p", "fake:reply one", "--name", "flagged", "--model", "m1"]);
    const same = await sb.umbel(["-p", "fake:reply two", "--name", "flagged", "--model", "m1"]);
    expect(same.stderr).toBe("");
    const other = await sb.umbel(["-p", "fake:reply three", "--name", "flagged", "--system-prompt", "x"]);
    expect(other.stdout).toBe("three\n");
    expect(other.stderr).toContain("ignored: --system-prompt");
    await sb.umbel(["kill", "flagged", "--purge"]);
  });
});

describe("umbel -p never asks a person, as claude -p (issue 21)", () => {
  const argvOf = () =>
    readFileSync(log, "utf8")
      .split("\n")
      .filter((l) => l.startsWith("argv: "))
      .at(-1) ?? "";

  test("no flag: claude -p's default mode; a call that would ask is denied and reported, the model goes on", async () => {
    const file = join(sb.work, "f_u");
    const r = await sb.umbel([
      "-p",
      "fake:permission touch f_u",
      "--output-format",
      "json",
      "--env",
      `FAKE_CLAUDE_LOG=${log}`,
    ]);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      subtype: "success",
      is_error: false,
      result: "FAKE-DENIED",
      permission_denials: [
        { tool_name: "Bash", tool_use_id: expect.any(String), tool_input: { command: "touch f_u" } },
      ],
      umbel: { outcome: "stop", exitCode: 0 },
    });
    expect(existsSync(file)).toBe(false);
    expect(argvOf()).toContain("--permission-mode default");
    expect(r.code).toBe(0);
  });

  test("stream-json: init says default, and the denial is claude -p's permission_denied line", async () => {
    const r = await sb.umbel([
      "-p",
      "fake:permission touch f_s",
      "--output-format",
      "stream-json",
      "--verbose",
    ]);
    const out = lines(r.stdout);
    expect(kinds(out)).toEqual(["init", "assistant", "system", "user", "assistant", "result"]);
    expect(out[0]).toMatchObject({ permissionMode: "default" });
    expect(out[2]).toEqual({
      type: "system",
      subtype: "permission_denied",
      tool_name: "Bash",
      tool_use_id: expect.any(String),
      message: "Claude requested permissions to use Bash, but you haven't granted it yet.",
      uuid: expect.any(String),
      session_id: expect.any(String),
    });
    expect(existsSync(join(sb.work, "f_s"))).toBe(false);
    expect(r.code).toBe(0);
  });

  test.each([
    [["--permission-mode", "bypassPermissions"], "--permission-mode bypassPermissions"],
    [["--dangerously-skip-permissions"], "--permission-mode bypassPermissions"],
    [["--allowedTools", "Bash"], "--allowedTools Bash"],
  ])("%j keeps its effect: the call runs", async (flags, seen) => {
    const file = join(sb.work, "f_allowed");
    rmSync(file, { force: true });
    const r = await sb.umbel([
      "-p",
      "fake:permission touch f_allowed",
      ...flags,
      "--output-format",
      "json",
      "--env",
      `FAKE_CLAUDE_LOG=${log}`,
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: "FAKE-APPROVED", permission_denials: [] });
    expect(existsSync(file)).toBe(true);
    expect(argvOf()).toContain(seen);
    expect(r.code).toBe(0);
  });

  test("an explicit --permission-mode is the CLI's, and still never asks", async () => {
    const r = await sb.umbel([
      "-p",
      "fake:permission touch f_m",
      "--permission-mode",
      "manual",
      "--output-format",
      "json",
      "--env",
      `FAKE_CLAUDE_LOG=${log}`,
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      result: "FAKE-DENIED",
      permission_denials: [{ tool_name: "Bash" }],
    });
    expect(argvOf()).toContain("--permission-mode manual");
    expect(existsSync(join(sb.work, "f_m"))).toBe(false);
    expect(r.code).toBe(0);
  });

  test("a worker spawn made keeps its TUI's own mode: -p in it says so, and its ask is still input (126)", async () => {
    expect((await sb.umbel(["spawn", "asks"])).code).toBe(0);
    const r = await sb.umbel(["-p", "fake:permission touch f_w", "--name", "asks"]);
    expect(r.stderr).toContain("worker asks was not started by -p");
    expect(r.code).toBe(126);
    await sb.umbel(["kill", "asks", "--purge"]);
  });
});

describe("umbel -p conversations", () => {
  test("--resume <session id> of an earlier anonymous run continues that conversation", async () => {
    const first = JSON.parse((await sb.umbel(["-p", "fake:history", "--output-format", "json"])).stdout);
    const again = await sb.umbel([
      "-p",
      "fake:history",
      "--resume",
      first.session_id,
      "--output-format",
      "json",
    ]);
    expect(JSON.parse(again.stdout)).toMatchObject({
      result: `HISTORY n=1 last=${sha12("fake:history")}`,
      session_id: first.session_id,
    });
  });

  test("--resume of a session id the CLI does not know: its refusal at startup, exit 1 (as claude -p)", async () => {
    const r = await sb.umbel(["-p", "hi", "--resume", "123e4567-e89b-12d3-a456-426614174000"]);
    expect(r.stderr).toContain("No conversation found with session ID: 123e4567-e89b-12d3-a456-426614174000");
    expect(r.stdout).toBe("");
    expect(r.code).toBe(1);
    expect((await sb.umbel(["ls"])).stdout).not.toContain("p-");
  });

  test("--continue picks the live worker of this directory used last", async () => {
    await sb.umbel(["-p", "fake:history", "--name", "recent"]);
    const r = await sb.umbel(["-p", "fake:history", "-c", "--output-format", "json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      result: `HISTORY n=1 last=${sha12("fake:history")}`,
      umbel: { worker: "recent" },
    });
    await sb.umbel(["kill", "recent", "--purge"]);
  });
});

describe("umbel -p outcomes claude -p has no equivalent for", () => {
  test.each([
    [["fake:hang", "--timeout", "1s"], 124, "timeout", "timed out after 1s"],
    [["fake:die 3"], 125, "dead", "the worker died (exit 3)"],
  ])("%j → exit %d, error_during_execution", async (args, code, outcome, message) => {
    const r = await sb.umbel(["-p", ...args, "--output-format", "json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      type: "result",
      subtype: "error_during_execution",
      is_error: true,
      errors: [expect.stringContaining(message)],
      terminal_reason: outcome,
      umbel: { outcome, exitCode: code, evidence: expect.any(Object) },
    });
    expect(r.stderr).toContain(message);
    expect(r.code).toBe(code);
  });
});

describe("umbel -p that needs a person is never a dead end", () => {
  // A -p worker never asks where the vendor's -p would refuse (docs/cli-reference.md#permissions-the-vendors-non-interactive-mode);
  // what still asks: a gemini tool allowed for some arguments only (its other calls ask in the TUI,
  // the known gap), and a --name worker that `spawn` made (its TUI's own mode).
  test("anonymous: the worker is gone, and the message says how to keep it (--name)", async () => {
    const r = await sb.umbel(
      ["-p", "fake:permission", "--provider", "gemini", "--env", "GEMINI_API_KEY"].concat([
        "--allowedTools",
        "run_shell_command(git diff)",
      ]),
      { env: { GEMINI_API_KEY: "fake-key" } },
    );
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("the worker needs input: Shell: touch fake-approved.txt");
    expect(r.stderr).toContain("run it again with --name NAME to keep the worker");
    expect(r.code).toBe(126);
    expect((await sb.umbel(["ls"])).stdout).not.toContain("p-");
  });

  test("--name N (a worker spawn made): kept and answerable by the reported inputId (after claude's permission_prompt too); wait follows the same turn", async () => {
    expect((await sb.umbel(["spawn", "asker", "--permission-mode", "manual"])).code).toBe(0);
    const r = await sb.umbel(["-p", "--name", "asker", "fake:permission", "--output-format", "json"]);
    expect(r.stderr).toContain("worker asker was not started by -p");
    expect(r.code).toBe(126);
    const result = JSON.parse(r.stdout);
    const inputId = String(result.umbel.evidence.inputId);
    expect(inputId).toMatch(/^in-[0-9a-f]{12}$/);
    expect(result.errors[0]).toContain(`\`umbel answer asker allow --input-id ${inputId}\``);
    expect(result.errors[0]).toContain("`umbel wait asker`");
    // The fake fires claude's permission_prompt Notification 1 s after the PermissionRequest: the
    // same prompt, so the same id.
    await eventually(
      async () => (await sb.umbel(["logs", "asker"])).stdout.includes("Notification"),
      10_000,
      "the permission_prompt notification",
    );
    expect(JSON.parse((await sb.umbel(["status", "asker", "--json"])).stdout).inputId).toBe(inputId);
    const answered = await sb.umbel(["answer", "asker", "allow", "--input-id", inputId]);
    expect(answered.code).toBe(0);
    const waited = await sb.umbel(["wait", "asker", "--json", "--timeout", "20s"]);
    expect(JSON.parse(waited.stdout)).toMatchObject({ reason: "stop" });
    expect((await sb.umbel(["read", "asker"])).stdout).toBe("FAKE-APPROVED\n");
    await sb.umbel(["kill", "asker", "--purge"]);
  });
});

describe("umbel -p --start-timeout", () => {
  test("bounds a new worker's start (default 60 s): a CLI slower than it fails the run, nothing left", async () => {
    const slow = ["--env", "FAKE_OPENCODE_READY_MS=30000"];
    const r = await sb.umbel(["-p", "hi", "--provider", "opencode", "--start-timeout", "1s", ...slow]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("opencode was not ready within 1000 ms");
    expect(r.code).toBe(1);
    expect(JSON.parse((await sb.umbel(["ls", "--json"])).stdout)).toEqual([]);
  });

  test("is a duration like spawn's: a bad one is a usage error", async () => {
    const r = await sb.umbel(["-p", "hi", "--start-timeout", "soon"]);
    expect(r.stderr).toContain("--start-timeout");
    expect(r.code).toBe(2);
  });
});
