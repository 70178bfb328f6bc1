import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { connectMcp, errorOf, type McpHarness, textOf } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Real workers take seconds; bun's default is 5 s, and a preload's setDefaultTimeout reaches only
// the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** umbel's MCP server driven by a real SDK Client in-process, on real tmux with the fake claude. */

let sb: Sandbox;
let mcp: McpHarness;
beforeAll(async () => {
  sb = await createSandbox({ env: { UMBEL_TEST_SECRET: "s3cret-value" } });
  mcp = await connectMcp(sb);
});
afterAll(async () => {
  await mcp.close();
  await sb.dispose();
});

type Status = { name: string; state: string };

async function turn(name: string, prompt: string, wait: Record<string, unknown> = {}) {
  const { baseline } = await mcp.ok<{ baseline: number }>("umbel_send", { name, prompt });
  const outcome = await mcp.ok<{ reason: string; exitCode: number; evidence: Record<string, unknown> }>(
    "umbel_wait",
    { name, after: baseline, ...wait },
  );
  return { baseline, outcome };
}

const HINTS: [string, Record<string, boolean>][] = [
  ["umbel_spawn", { readOnlyHint: false, destructiveHint: false }],
  ["umbel_send", { readOnlyHint: false, destructiveHint: true }],
  // A guarded turn's wait sends the worker feedback and runs the send's accept checks.
  ["umbel_wait", { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
  ["umbel_answer", { readOnlyHint: false, destructiveHint: true }],
  ["umbel_read", { readOnlyHint: true }],
  ["umbel_status", { readOnlyHint: true }],
  ["umbel_ls", { readOnlyHint: true }],
  ["umbel_kill", { destructiveHint: true, idempotentHint: true }],
  ["umbel_prune", { destructiveHint: true, idempotentHint: true }],
  ["umbel_capture", { readOnlyHint: true }],
  ["umbel_logs", { readOnlyHint: true }],
  ["umbel_keys", { readOnlyHint: false, destructiveHint: true }],
  ["umbel_doctor", { readOnlyHint: true }],
  ["umbel_accounts", { readOnlyHint: true }],
  // It only looks, but at other machines over ssh.
  ["umbel_hosts", { readOnlyHint: true, openWorldHint: true }],
  // warm starts agent CLIs and drain kills spares; neither touches a worker in use.
  ["umbel_pool", { readOnlyHint: false, destructiveHint: true, idempotentHint: true }],
  ["umbel_help", { readOnlyHint: true }],
  ["umbel_run", { readOnlyHint: false, destructiveHint: true, idempotentHint: false }],
];

describe("the server", () => {
  test("lists one tool per verb with schemas, a description and truthful hints", async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(HINTS.map(([name]) => name).sort());
    for (const [name, hints] of HINTS) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?.description?.length).toBeGreaterThan(40);
      expect(tool?.outputSchema?.type).toBe("object");
      expect(tool?.annotations).toMatchObject(hints);
    }
    const spawn = tools.find((t) => t.name === "umbel_spawn")?.inputSchema as Record<string, unknown>;
    expect(spawn).toMatchObject({ required: ["name"], additionalProperties: false });
    expect(JSON.stringify(spawn)).toContain("fromEnv");
    const read = tools.find((t) => t.name === "umbel_read")?.inputSchema.properties ?? {};
    expect(Object.keys(read)).toEqual(["name", "after", "mode", "maxChars", "maxLines", "section"]);
  });

  test("instructions give the lifecycle; umbel_help serves every topic", async () => {
    expect(mcp.client.getInstructions()).toContain("umbel_spawn");
    expect(mcp.client.getInstructions()?.length).toBeLessThan(1500);
    const overview = await mcp.ok<{ topic: string; topics: string[] }>("umbel_help");
    expect(overview.topic).toBe("overview");
    for (const topic of overview.topics) {
      const help = await mcp.ok<{ text: string }>("umbel_help", { topic });
      expect(help.text.length).toBeGreaterThan(200);
    }
    expect(textOf(await mcp.call("umbel_help", { topic: "nope" }))).toContain("Input validation error");
  });
});

describe("a worker's life over MCP", () => {
  test("spawn → send → wait (stop) → read → status/ls/capture/logs → kill → prune", async () => {
    const spawned = await mcp.ok("umbel_spawn", { name: "life", startTimeout: "30s" });
    expect(spawned).toMatchObject({ name: "life", provider: "claude", state: "ready", cwd: sb.work });
    expect(existsSync(join(sb.root, "sessions", "life"))).toBe(true); // the server's UMBEL_HOME

    const { baseline, outcome } = await turn("life", "fake:reply hello over mcp");
    expect(outcome).toMatchObject({ reason: "stop", exitCode: 0 });
    const read = await mcp.call("umbel_read", { name: "life", after: baseline });
    expect(read.structuredContent).toMatchObject({ text: "hello over mcp", bound: { truncated: false } });
    expect(textOf(read)).toBe("hello over mcp");

    expect(await mcp.ok<Status>("umbel_status", { name: "life" })).toMatchObject({ state: "idle" });
    const ls = await mcp.ok<{ workers: Status[] }>("umbel_ls");
    expect(ls.workers.map((w) => w.name)).toEqual(["life"]);
    expect(await mcp.ok("umbel_capture", { name: "life" })).toMatchObject({ source: "live" });
    const logs = await mcp.ok<{ events: { event: string }[] }>("umbel_logs", { name: "life" });
    expect(logs.events.map((e) => e.event)).toContain("Stop");

    expect(await mcp.ok("umbel_kill", { name: "life" })).toMatchObject({ state: "killed", wasAlive: true });
    expect(await mcp.ok("umbel_kill", { name: "life" })).toMatchObject({ state: "killed", wasAlive: false });
    expect(await mcp.ok("umbel_capture", { name: "life" })).toMatchObject({ source: "tombstone" });
    expect(await mcp.ok("umbel_prune")).toMatchObject({ removed: ["life"] });
  });

  test("read bounds a long answer and says what it cut", async () => {
    await mcp.ok("umbel_spawn", { name: "long" });
    const answer = Array.from({ length: 5000 }, (_, i) => `w${i}`).join(" ");
    await turn("long", `fake:reply ${answer}`);
    const head = await mcp.call("umbel_read", { name: "long" });
    expect(head.structuredContent).toMatchObject({
      bound: { mode: "head", truncated: true, totalChars: answer.length, shownChars: 20_000 },
    });
    expect(textOf(head)).toContain(`[umbel: showed the first 20000 of ${answer.length} characters`);
    const tail = await mcp.ok<{ text: string }>("umbel_read", { name: "long", mode: "tail", maxChars: 10 });
    expect(tail.text).toBe(answer.slice(-10));
    const full = await mcp.ok<{ text: string }>("umbel_read", { name: "long", mode: "full" });
    expect(full.text).toBe(answer);
    const section = await mcp.ok<{ bound: { note: string } }>("umbel_read", { name: "long", section: "x" });
    expect(section.bound.note).toContain("no markdown headings");
    expect(errorOf(await mcp.call("umbel_read", { name: "long", mode: "full", maxChars: 5 })).code).toBe(
      "usage",
    );
  });

  test("env {fromEnv} is resolved against the server's own environment", async () => {
    await mcp.ok("umbel_spawn", { name: "envy", env: { SECRET_X: { fromEnv: "UMBEL_TEST_SECRET" } } });
    const { baseline } = await turn("envy", "fake:env SECRET_X");
    expect((await mcp.ok<{ text: string }>("umbel_read", { name: "envy", after: baseline })).text).toBe(
      "ENV SECRET_X=s3cret-value",
    );
  });

  test("umbel_status without a name is the fleet, as umbel_ls gives it", async () => {
    const status = await mcp.call("umbel_status", {});
    const ls = await mcp.call("umbel_ls", {});
    expect(status.isError).toBeUndefined();
    expect(status.structuredContent).toEqual(ls.structuredContent ?? {});
    expect((status.structuredContent as { workers: Status[] }).workers.map((w) => w.name)).toEqual([
      "envy",
      "long",
    ]);
    expect(textOf(status)).toBe(textOf(ls));
    expect(textOf(status)).toMatch(/^NAME +STATE/);
  });
});

describe("errors", () => {
  test("umbel errors keep code, class and exit code", async () => {
    const missing = await mcp.call("umbel_status", { name: "nobody" });
    expect(errorOf(missing)).toMatchObject({ code: "not-found", class: "WorkerNotFoundError", exitCode: 3 });
    expect(missing.content[0]?.text).toBe("WorkerNotFoundError (not-found, exit 3): no worker named nobody");
    const unset = await mcp.call("umbel_spawn", { name: "x", env: { A: { fromEnv: "NOT_SET_ANYWHERE" } } });
    expect(errorOf(unset)).toMatchObject({ code: "usage", class: "UsageError", exitCode: 2 });
    expect(existsSync(join(sb.root, "sessions", "x"))).toBe(false);
    const taken = await mcp.call("umbel_spawn", { name: "envy" });
    expect(errorOf(taken)).toMatchObject({ code: "name-taken", exitCode: 4 });
  });

  test("spawn account auto: the placement in the result and its text; umbel_accounts' rows carry lastLimit", async () => {
    const spawned = await mcp.call("umbel_spawn", { name: "placed", account: "auto" });
    expect(spawned.structuredContent).toMatchObject({ placement: { account: null } });
    expect(textOf(spawned)).toContain("Placed by account auto: the default sign-in");
    await mcp.ok("umbel_kill", { name: "placed", purge: true });
    const { accounts } = await mcp.ok<{ accounts: { windows: unknown; lastLimit: unknown }[] }>(
      "umbel_accounts",
    );
    expect(accounts[0]).toMatchObject({ lastLimit: null });
  });

  test("send to a busy worker is error busy; the turn is unharmed", async () => {
    const { baseline } = await mcp.ok<{ baseline: number }>("umbel_send", {
      name: "envy",
      prompt: "fake:slow 1500",
    });
    expect(errorOf(await mcp.call("umbel_send", { name: "envy", prompt: "too soon" })).code).toBe("busy");
    expect(await mcp.ok("umbel_wait", { name: "envy", after: baseline })).toMatchObject({ reason: "stop" });
  });

  test.each([
    ["umbel_spawn", { name: "Bad_Name" }, "a worker name is 1-63"],
    ["umbel_spawn", { name: "ok", bogus: 1 }, "Unrecognized key"],
    ["umbel_wait", { name: "envy", timeout: "soon" }, "not a duration"],
    ["umbel_keys", { name: "envy", keys: [] }, "give at least one key"],
  ])("%s %j → the zod message", async (tool, args, message) => {
    const r = await mcp.call(tool, args);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(message);
  });
});
