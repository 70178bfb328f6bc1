import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { connectMcp, type McpHarness, textOf } from "../helpers/mcp-client.ts";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

// Real workers take seconds; bun's default is 5 s, and a preload's setDefaultTimeout reaches only
// the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** Every umbel_wait outcome as data, progress notifications, cancellation, keys and logs -f. */

let sb: Sandbox;
let mcp: McpHarness;
beforeAll(async () => {
  sb = await createSandbox();
  mcp = await connectMcp(sb);
});
afterAll(async () => {
  await mcp.close();
  await sb.dispose();
});

type Outcome = { reason: string; exitCode: number; baseline: number; evidence: Record<string, unknown> };

async function send(name: string, prompt: string): Promise<number> {
  return (await mcp.ok<{ baseline: number }>("umbel_send", { name, prompt })).baseline;
}

async function waitFor(name: string, after: number, extra: Record<string, unknown> = {}) {
  const result = await mcp.call("umbel_wait", { name, after, ...extra });
  expect(result.isError).toBeUndefined(); // outcomes are data, never errors
  return { outcome: result.structuredContent as Outcome, text: textOf(result) };
}

describe("wait outcomes are data", () => {
  test("stop carries the turn's own telemetry, the statusline claude rewrote after Stop; umbel_status agrees", async () => {
    await mcp.ok("umbel_spawn", { name: "tel" });
    const after = await send("tel", "fake:reply counted");
    const { outcome } = await waitFor("tel", after);
    const telemetry = (outcome as Outcome & { telemetry: Record<string, unknown> }).telemetry;
    expect(telemetry).toMatchObject({ settled: true, turns: 1, lastTurn: { input: 10, output: 5 } });
    expect(telemetry.costUsd).toBeGreaterThan(0);
    const { settled: _, ...numbers } = telemetry;
    expect((await mcp.ok<{ telemetry: unknown }>("umbel_status", { name: "tel" })).telemetry).toEqual(
      numbers,
    );
  });

  test("input (126): keys 1 approves and the same wait then ends in stop", async () => {
    await mcp.ok("umbel_spawn", { name: "perm", permissionMode: "manual" });
    const after = await send("perm", "fake:permission");
    const { outcome, text } = await waitFor("perm", after);
    expect(outcome).toMatchObject({ reason: "input", exitCode: 126 });
    expect(String(outcome.evidence.prompt)).toContain("echo hi > x.txt");
    expect(String(outcome.evidence.screen)).toContain("Do you want to proceed?");
    expect(text).toContain('umbel_keys {name: "perm", keys: ["1"]}');
    expect(await mcp.ok("umbel_status", { name: "perm" })).toMatchObject({ state: "needs-input" });
    expect(await mcp.ok("umbel_keys", { name: "perm", keys: ["1"] })).toEqual({ name: "perm", sent: ["1"] });
    expect((await waitFor("perm", after)).outcome.reason).toBe("stop");
    expect(await mcp.ok("umbel_read", { name: "perm", after })).toMatchObject({ text: "FAKE-APPROVED" });
    expect(existsSync(join(sb.work, "x.txt"))).toBe(true);
  });

  test("provider-error (122), and read returns the error text", async () => {
    await mcp.ok("umbel_spawn", { name: "errs" });
    const after = await send("errs", "fake:error");
    const { outcome } = await waitFor("errs", after);
    expect(outcome).toMatchObject({
      reason: "provider-error",
      exitCode: 122,
      evidence: { error: "server_error" },
    });
    const read = await mcp.ok<{ text: string; isError: boolean }>("umbel_read", { name: "errs" });
    expect(read.isError).toBe(true);
    expect(read.text).toContain("API Error: 500");
  });

  test("dead (125) with the exit status and the last screen", async () => {
    await mcp.ok("umbel_spawn", { name: "die" });
    const { outcome, text } = await waitFor("die", await send("die", "fake:die 3"));
    expect(outcome).toMatchObject({ reason: "dead", exitCode: 125, evidence: { exit: { exitCode: 3 } } });
    expect(typeof outcome.evidence.screen).toBe("string");
    expect(text).toContain("the worker exited");
    expect(await mcp.ok("umbel_status", { name: "die" })).toMatchObject({
      state: "dead",
      exit: { exitCode: 3 },
    });
  });

  test("timeout (124), then idle (123) on the same turn", async () => {
    await mcp.ok("umbel_spawn", { name: "hang" });
    const after = await send("hang", "fake:hang");
    const timed = await waitFor("hang", after, { timeout: "1s" });
    expect(timed.outcome).toMatchObject({ reason: "timeout", exitCode: 124, evidence: { timeoutMs: 1000 } });
    const idle = await waitFor("hang", after, { idleTimeout: "1500ms" });
    expect(idle.outcome).toMatchObject({ reason: "idle", exitCode: 123 });
  });
});

describe("progress and cancellation", () => {
  test("a long wait sends progress (elapsed of the timeout, turn state) when asked", async () => {
    const after = await send("errs", "fake:slow 2500");
    const progress: Progress[] = [];
    const result = await mcp.call(
      "umbel_wait",
      { name: "errs", after, timeout: "1m" },
      {
        onprogress: (p) => progress.push(p),
      },
    );
    expect(result.structuredContent).toMatchObject({ reason: "stop" });
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (const [i, p] of progress.entries()) {
      expect(p.total).toBe(60_000);
      expect(p.message).toContain("busy");
      if (i > 0) expect(p.progress).toBeGreaterThan(progress[i - 1]?.progress ?? 0);
    }
  });

  test("no progressToken, no progress: the wait still answers", async () => {
    const after = await send("errs", "fake:reply quiet");
    expect((await waitFor("errs", after)).outcome.reason).toBe("stop");
  });

  test("a client cancel ends the wait as aborted and leaves the worker alone", async () => {
    const status = await mcp.ok<{ state: string }>("umbel_status", { name: "hang" });
    expect(status.state).toBe("busy"); // still in the fake:hang turn
    const controller = new AbortController();
    const progress: Progress[] = [];
    const pending = mcp.call(
      "umbel_wait",
      { name: "hang" },
      {
        signal: controller.signal,
        onprogress: (p) => progress.push(p),
      },
    );
    await eventually(() => progress.length > 0, 10_000, "a progress notification");
    const [call] = [...mcp.inflight];
    controller.abort();
    await expect(pending).rejects.toThrow();
    // The SDK sends nothing for a cancelled request; the server's own result says what happened.
    const result = (await call) as { structuredContent: Outcome };
    expect(result.structuredContent).toMatchObject({ reason: "aborted", exitCode: 130 });
    expect(mcp.inflight.size).toBe(0);
    expect(await mcp.ok("umbel_status", { name: "hang" })).toMatchObject({ state: "busy" });
    await mcp.ok("umbel_keys", { name: "hang", keys: ["Escape"] });
  });
});

describe("logs", () => {
  test("follow reports each new event as progress and returns when the worker is gone", async () => {
    await mcp.ok("umbel_spawn", { name: "tail" });
    const progress: Progress[] = [];
    const following = mcp.call(
      "umbel_logs",
      { name: "tail", follow: true },
      {
        onprogress: (p) => progress.push(p),
        timeout: 60_000,
      },
    );
    const after = await send("tail", "fake:reply followed");
    await eventually(() => progress.some((p) => p.message?.includes("Stop")), 10_000, "Stop in progress");
    expect(progress.map((p) => p.message).join("\n")).toContain("UserPromptSubmit");
    expect((await waitFor("tail", after)).outcome.reason).toBe("stop");
    await mcp.ok("umbel_kill", { name: "tail" });
    const logs = (await following).structuredContent as { events: { event: string }[] };
    expect(logs.events.map((e) => e.event)).toEqual(expect.arrayContaining(["SessionStart", "Stop"]));
  });
});
