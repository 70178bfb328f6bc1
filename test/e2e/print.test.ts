import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** `umbel -p` through the fake claude: argv/stdin prompts, text/json, warm sessions, cleanup. */

const sha12 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
const sessions = (sb: Sandbox) => {
  try {
    return readdirSync(join(sb.root, "sessions"));
  } catch {
    return [];
  }
};

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

describe("umbel -p", () => {
  test("text: prints the answer and purges the anonymous worker", async () => {
    const r = await sb.umbel(["-p", "hello from -p"]);
    expect(r.stdout).toBe(`FAKE-REPLY len=13 sha=${sha12("hello from -p")} head=hello from -p\n`);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(sessions(sb)).toEqual([]);
  });

  test("json: claude's result keys plus umbel's", async () => {
    const r = await sb.umbel(["-p", "fake:reply json answer", "--output-format", "json"]);
    const result = JSON.parse(r.stdout);
    expect(Object.keys(result)).toEqual(
      expect.arrayContaining([
        "type",
        "subtype",
        "is_error",
        "result",
        "session_id",
        "duration_ms",
        "duration_api_ms",
        "num_turns",
        "usage",
        "modelUsage",
        "total_cost_usd",
        "permission_denials",
        "stop_reason",
        "terminal_reason",
        "uuid",
        "umbel",
      ]),
    );
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "json answer",
      num_turns: 1,
      stop_reason: "end_turn",
      terminal_reason: "completed",
      // claude's statusline cost (issue 13): the fake prices its 10 in / 5 out at 5 / 25 µ$ a token
      total_cost_usd: 0.000175,
      // the fake writes usage {input_tokens: 10, output_tokens: 5} on each assistant line
      usage: { input_tokens: 10, output_tokens: 5 },
    });
    expect(typeof result.session_id).toBe("string");
    expect(result.umbel).toMatchObject({ provider: "claude", outcome: "stop", exitCode: 0 });
    expect(r.code).toBe(0);
  });

  test("the prompt from stdin, and argv then stdin", async () => {
    const piped = await sb.umbel(["-p"], { stdin: "from stdin\n" });
    expect(piped.stdout).toContain(`sha=${sha12("from stdin")}`);
    const both = await sb.umbel(["-p", "from argv"], { stdin: "and stdin" });
    expect(both.stdout).toContain(`sha=${sha12("from argv\nand stdin")}`);
  });

  test("no prompt, an unknown flag, a claude flag umbel does not mirror: usage errors", async () => {
    const none = await sb.umbel(["-p"]);
    expect(none.stderr).toContain("no prompt");
    expect(none.code).toBe(2);
    const unknown = await sb.umbel(["-p", "x", "--bogus"]);
    expect(unknown.stderr).toContain("unknown option '--bogus'");
    expect(unknown.code).toBe(2);
    const help = await sb.umbel(["-p", "--help"]);
    expect(help.stdout).toContain("--output-format text|json|stream-json");
    expect(help.code).toBe(0);
    const effort = await sb.umbel(["-p", "x", "--effort", "high"]);
    expect(effort.stderr).toContain("does not support claude's --effort");
    expect(effort.code).toBe(2);
  });

  test("an API error is claude -p's: the error as the result, is_error, exit 1", async () => {
    const json = await sb.umbel(["-p", "fake:error", "--output-format", "json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      is_error: true,
      subtype: "success",
      api_error_status: 500,
      terminal_reason: "api_error",
      umbel: { outcome: "provider-error", exitCode: 1 },
    });
    expect(json.stderr).toBe("");
    expect(json.code).toBe(1);
    const text = await sb.umbel(["-p", "fake:error"]);
    expect(text.stdout).toStartWith("API Error: 500");
    expect(text.code).toBe(1);
    expect(sessions(sb)).toEqual([]);
  });

  test("--name keeps a warm worker that remembers; --resume continues it", async () => {
    const first = await sb.umbel(["-p", "fake:history", "--name", "warm"]);
    expect(first.stdout).toBe("HISTORY n=0 last=none\n");
    const second = await sb.umbel(["-p", "fake:history", "--resume", "warm"]);
    expect(second.stdout).toBe(`HISTORY n=1 last=${sha12("fake:history")}\n`);
    expect(sessions(sb)).toContain("warm");
    const missing = await sb.umbel(["-p", "x", "--resume", "missing"]);
    expect(missing.stderr).toContain("no worker or claude session named missing");
    expect(missing.code).toBe(3);
    await sb.umbel(["kill", "warm"]);
    const dead = await sb.umbel(["-p", "again", "--name", "warm", "--output-format", "json"]);
    expect(JSON.parse(dead.stdout)).toMatchObject({
      is_error: true,
      subtype: "error_during_execution",
      errors: [expect.stringContaining("worker warm is killed")],
      umbel: { worker: "warm", outcome: "dead", exitCode: 125, evidence: { screen: expect.any(String) } },
    });
    expect(dead.stderr).toContain("killed");
    expect(dead.code).toBe(125);
    await sb.umbel(["kill", "warm", "--purge"]);
  });

  test("SIGINT aborts with 130 and leaves no worker", async () => {
    const child = Bun.spawn([UMBEL, "-p", "fake:hang"], {
      cwd: sb.work,
      env: sb.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    await eventually(
      () =>
        sessions(sb).length > 0 &&
        readdirSync(join(sb.root, "sessions", sessions(sb)[0] ?? "")).includes("meta.json"),
    );
    await eventually(
      async () => (await sb.umbel(["ls", "--json"])).stdout.includes('"state":"busy"'),
      10_000,
      "busy",
    );
    child.kill("SIGINT");
    expect(await child.exited).toBe(130);
    expect(sessions(sb)).toEqual([]);
  });
});
