import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { type CliJson, spawnOk } from "../helpers/cli.ts";
import type { ToolResult } from "../helpers/mcp-client.ts";
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// Real workers take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(90_000);

/**
 * The guardrails through dist/umbel on real tmux, with the fake CLIs: structured output through
 * umbel's StructuredOutput MCP server (each fake connects to it at launch; `fake:mcp` calls it) and
 * accept checks that fail, feed back and pass — on every face (CLI, -p, MCP).
 */

const SCHEMA = JSON.stringify({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
/** A check whose output tells the fake what to answer (the command text itself holds no directive). */
const WANTS_GOOD = `grep -q GOOD "$UMBEL_ANSWER_FILE" || { printf 'fake:%s GOOD\\n' reply; exit 1; }`;
const json = (text: string) => JSON.parse(text) as CliJson;

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ env: { GEMINI_API_KEY: "fake-key" } });
});
afterAll(async () => {
  await sb.dispose();
});

async function turn(name: string, prompt: string, flags: string[], waitFlags: string[] = []) {
  const sent = await sb.umbel(["send", name, prompt, "--json", ...flags]);
  if (sent.code !== 0) throw new Error(`send → ${sent.code}: ${sent.stderr}`);
  const baseline = String(json(sent.stdout).baseline);
  const waited = await sb.umbel(["wait", name, "--after", baseline, "--json", ...waitFlags]);
  return { baseline, outcome: json(waited.stdout), code: waited.code };
}

describe.each(["claude", "codex", "gemini"])("structured output (%s)", (provider) => {
  const name = `so-${provider}`;
  beforeAll(async () => {
    await spawnOk(sb, name, ["--provider", provider, "--structured"]);
  });

  test("a valid object: stop, the object in wait's evidence and in read", async () => {
    const t = await turn(name, 'fake:mcp StructuredOutput {"n":7}', ["--json-schema", SCHEMA]);
    expect(t.outcome).toMatchObject({ reason: "stop", exitCode: 0, evidence: { structured: { n: 7 } } });
    expect(t.code).toBe(0);
    expect(json((await sb.umbel(["read", name, "--json"])).stdout).structured).toEqual({ n: 7 });
  });

  test("an invalid call, then a valid one: one rejection in the evidence", async () => {
    const t = await turn(name, 'fake:mcp StructuredOutput {"n":"x"} fake:mcp StructuredOutput {"n":1}', [
      "--json-schema",
      SCHEMA,
    ]);
    expect(t.outcome).toMatchObject({ reason: "stop", evidence: { structured: { n: 1 } } });
    expect((t.outcome.evidence.attempts as unknown[])[0]).toMatchObject({
      structured: { ok: true, calls: 2, rejected: 1, errors: ["/n: must be number"] },
    });
  });
});

describe("a StructuredOutput call claude refused itself (claude)", () => {
  // claude 2.1.332 under load sent a turn's first request while umbel's server was still connecting
  // (pendingMcpServers in its transcript) and answered the model's call "No such tool available";
  // the server never saw it. claude -p counts every call: the fifth invalid one ends the request.
  beforeAll(async () => {
    await spawnOk(sb, "so-unloaded", ["--structured"]);
  });

  test("counts as a rejected call: five invalid calls end the attempt, as claude -p's", async () => {
    const bad = 'fake:mcp StructuredOutput {"n":"x"}';
    const prompt = ['fake:mcp unloaded:StructuredOutput {"n":"x"}', bad, bad, bad, bad].join(" ");
    const t = await turn("so-unloaded", prompt, ["--json-schema", SCHEMA]);
    expect(t.outcome.reason).toBe("rejected");
    const attempts = t.outcome.evidence.attempts as { structured?: unknown }[];
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ structured: { ok: false, calls: 5, rejected: 5 } });
  });
});

describe("accept checks (claude)", () => {
  beforeAll(async () => {
    await spawnOk(sb, "acc");
  });

  test("fails once, passes after the feedback turn: stop after 2 attempts; logs show each check", async () => {
    const t = await turn("acc", "first try", ["--accept", WANTS_GOOD]);
    expect(t.outcome.reason).toBe("stop");
    const attempts = t.outcome.evidence.attempts as {
      passed: boolean;
      checks: { exitCode: number; output: string }[];
    }[];
    expect(attempts.map((a) => [a.passed, a.checks[0]?.exitCode])).toEqual([
      [false, 1],
      [true, 0],
    ]);
    expect(attempts[0]?.checks[0]?.output).toBe("fake:reply GOOD\n");
    expect((await sb.umbel(["read", "acc", "--after", t.baseline])).stdout).toBe("GOOD\n");
    const logs = (await sb.umbel(["logs", "acc"])).stdout;
    expect(logs).toContain("umbel:check attempt 1:");
    expect(logs).toContain("→ exit 1");
    expect(logs).toContain("umbel:feedback attempt 1: feedback sent for attempt 2");
  });

  test("never passes: rejected (121) after --max-attempts, with every attempt as evidence", async () => {
    const t = await turn("acc", "again", ["--accept", "echo nope; exit 4", "--max-attempts", "2"]);
    expect(t.outcome).toMatchObject({ reason: "rejected", exitCode: 121 });
    expect(t.code).toBe(121);
    expect((t.outcome.evidence.attempts as unknown[]).length).toBe(2);
    expect(String(t.outcome.evidence.detail)).toContain("exited with code 4 (attempt 2 of 2)");
    const text = await sb.umbel(["wait", "acc", "--after", t.baseline]);
    expect(text.stdout).toStartWith("rejected (exit 121)");
  });

  test("status shows the attempt while its check runs", async () => {
    const marker = join(sb.dir, "check-started");
    const sent = await sb.umbel(["send", "acc", "slow check", "--accept", `touch ${marker}; sleep 3`]);
    const waiting = sb.umbel(["wait", "acc", "--after", sent.stdout.trim()]);
    await eventually(() => Bun.file(marker).exists(), 20_000, "the check to start");
    const status = json((await sb.umbel(["status", "acc", "--json"])).stdout);
    expect(status.guard).toEqual({ attempt: 1, maxAttempts: 3, phase: "checking" });
    expect((await sb.umbel(["status", "acc"])).stdout).toContain("guard:    attempt 1/3, checking");
    expect((await waiting).code).toBe(0);
    expect(json((await sb.umbel(["status", "acc", "--json"])).stdout).guard).toBeNull();
  });

  test("--json-schema to a worker spawned without --structured: usage error (2) naming the flag", async () => {
    const r = await sb.umbel(["send", "acc", "x", "--json-schema", SCHEMA]);
    expect(r.stderr).toContain("--structured");
    expect(r.code).toBe(2);
  });

  test("a schema file, relative to the caller's directory", async () => {
    writeFileSync(join(sb.work, "schema.json"), SCHEMA);
    await spawnOk(sb, "acc-s", ["--structured"]);
    const t = await turn("acc-s", 'fake:mcp StructuredOutput {"n":3}', ["--json-schema", "schema.json"]);
    expect(t.outcome.evidence.structured).toEqual({ n: 3 });
  });
});

describe("umbel -p", () => {
  test("--json-schema: the object as result and structured_output; text mode prints its JSON", async () => {
    const r = await sb.umbel([
      "-p",
      'fake:mcp StructuredOutput {"n":5}',
      "--json-schema",
      SCHEMA,
      "--output-format",
      "json",
    ]);
    expect(json(r.stdout)).toMatchObject({
      subtype: "success",
      is_error: false,
      result: '{"n":5}',
      structured_output: { n: 5 },
      stop_reason: "tool_use",
      umbel: { attempts: [{ attempt: 1, passed: true }] },
    });
    expect(r.code).toBe(0);
    const text = await sb.umbel(["-p", 'fake:mcp StructuredOutput {"n":6}', "--json-schema", SCHEMA]);
    expect(text.stdout).toBe('{"n":6}\n');
  });

  test("--accept that never passes: is_error, umbel.attempts, exit 121", async () => {
    const r = await sb.umbel([
      "-p",
      "x",
      "--accept",
      "false",
      "--max-attempts",
      "2",
      "--output-format",
      "json",
    ]);
    expect(json(r.stdout)).toMatchObject({
      is_error: true,
      subtype: "error_during_execution",
      terminal_reason: "rejected",
      umbel: { outcome: "rejected", exitCode: 121 },
    });
    expect((json(r.stdout).umbel as { attempts: unknown[] }).attempts).toHaveLength(2);
    expect(r.code).toBe(121);
  });

  test("stream-json prints the feedback turn as the user message it is", async () => {
    const r = await sb.umbel([
      "-p",
      "once more",
      "--accept",
      WANTS_GOOD,
      "--output-format",
      "stream-json",
      "--verbose",
    ]);
    const lines = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const user = lines.find((l) => l.type === "user") as { message: { content: { text: string }[] } };
    expect(user.message.content[0]?.text).toStartWith("[umbel-accept] Your last turn did not pass");
    expect(lines.at(-1)).toMatchObject({ type: "result", result: "GOOD", is_error: false });
    expect(r.code).toBe(0);
  });

  test("a schema that is not a JSON Schema: claude's message, exit 2, no worker made", async () => {
    const before = readdirSync(join(sb.root, "sessions")).sort();
    const r = await sb.umbel(["-p", "x", "--json-schema", '{"type":"nope"}']);
    expect(r.stderr).toContain("--json-schema is not a valid JSON Schema: data/type must be");
    expect(r.code).toBe(2);
    expect(readdirSync(join(sb.root, "sessions")).sort()).toEqual(before);
  });
});

describe("MCP (dist/umbel mcp)", () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: "umbel-e2e", version: "0" });
    await client.connect(
      new StdioClientTransport({ command: UMBEL, args: ["mcp"], env: sb.env, cwd: sb.work, stderr: "pipe" }),
    );
    await client.listTools();
  });
  afterAll(async () => {
    await client.close();
  });
  const call = async (name: string, args: Record<string, unknown>, onprogress?: (p: Progress) => void) =>
    (await client.callTool(
      { name, arguments: args },
      undefined,
      onprogress ? { onprogress } : {},
    )) as ToolResult;

  test("umbel_send jsonSchema + accept; umbel_wait reports each attempt; umbel_read returns the object", async () => {
    await call("umbel_spawn", { name: "m1", structured: true });
    const sent = await call("umbel_send", {
      name: "m1",
      prompt: 'fake:mcp StructuredOutput {"n":9}',
      jsonSchema: JSON.parse(SCHEMA),
      // The second attempt must return the object again: the check's output tells the fake to.
      accept: [`test "$UMBEL_ATTEMPT" = 2 || { printf 'fake:%s StructuredOutput {"n":10}\n' mcp; exit 1; }`],
    });
    expect(sent.isError).toBeFalsy();
    const progress: string[] = [];
    const waited = await call("umbel_wait", { name: "m1", after: sent.structuredContent?.baseline }, (p) =>
      progress.push(p.message ?? ""),
    );
    expect(waited.structuredContent).toMatchObject({ reason: "stop", evidence: { structured: { n: 10 } } });
    const evidence = (waited.structuredContent?.evidence ?? {}) as { attempts?: unknown[] };
    expect(evidence.attempts).toHaveLength(2);
    expect(progress.some((m) => m.startsWith("attempt 1/3 · "))).toBe(true);
    expect(progress.some((m) => m.startsWith("attempt 2/3 · "))).toBe(true);
    const read = await call("umbel_read", { name: "m1", after: sent.structuredContent?.baseline });
    expect(read.structuredContent?.structured).toEqual({ n: 10 });
  });
});
