import { describe, expect, test } from "bun:test";
import { mcpCapabilities, planMcpServers } from "../../../src/core/acp/mcp.ts";
import { choiceOf, permissionOptions } from "../../../src/core/acp/permission.ts";
import { decidePromptEnd, UMBEL_ERROR_CODE } from "../../../src/core/acp/stop.ts";
import { DEFAULT_MEANINGS } from "../../../src/core/fleet/answer.ts";
import type { Outcome } from "../../../src/core/wait/outcome.ts";

describe("a permission prompt's menu as ACP options, by meaning", () => {
  test("claude's three options: allow once, allow always, reject", () => {
    const menu = [
      { number: 1, label: "Yes", key: null },
      { number: 2, label: "Yes, and don't ask again for echo commands", key: null },
      { number: 3, label: "No, and tell Claude what to do differently", key: "esc" },
    ];
    expect(permissionOptions(menu, DEFAULT_MEANINGS)).toEqual([
      { optionId: "allow", name: "Yes", kind: "allow_once" },
      { optionId: "always", name: "Yes, and don't ask again for echo commands", kind: "allow_always" },
      { optionId: "deny", name: "No, and tell Claude what to do differently", kind: "reject_once" },
    ]);
  });

  test("a menu without always or no: reject stays (Escape denies)", () => {
    expect(permissionOptions([{ number: 1, label: "Allow once", key: null }], DEFAULT_MEANINGS)).toEqual([
      { optionId: "allow", name: "Allow once", kind: "allow_once" },
      { optionId: "deny", name: "Reject", kind: "reject_once" },
    ]);
  });

  test.each([
    [{ outcome: "selected", optionId: "allow" }, "allow"],
    [{ outcome: "selected", optionId: "always" }, "always"],
    [{ outcome: "selected", optionId: "deny" }, "deny"],
    [{ outcome: "selected", optionId: "something-else" }, "deny"],
    [{ outcome: "cancelled" }, "deny"],
  ] as const)("the client's %j is %s", (outcome, choice) => {
    expect(choiceOf(outcome)).toBe(choice);
  });
});

const outcome = (reason: Outcome["reason"], evidence: Outcome["evidence"] = {}, exitCode = 0): Outcome => ({
  reason,
  exitCode,
  name: "acp-1",
  baseline: 0,
  elapsedMs: 10,
  evidence,
});

describe("how a prompt ends", () => {
  const plain = { maxTurnsHit: null, cancelled: false, modelStopReason: "end_turn" };
  test.each([
    ["a stop", { ...plain, outcome: outcome("stop") }, "end_turn"],
    ["the model's refusal", { ...plain, outcome: outcome("stop"), modelStopReason: "refusal" }, "refusal"],
    ["--max-turns", { ...plain, outcome: outcome("aborted"), maxTurnsHit: 2 }, "max_turn_requests"],
    ["a cancel", { ...plain, outcome: outcome("aborted"), cancelled: true }, "cancelled"],
    [
      "a cancel of a turn that stopped meanwhile",
      { ...plain, outcome: outcome("stop"), cancelled: true },
      "cancelled",
    ],
    ["the face's own shutdown", { ...plain, outcome: outcome("aborted") }, "cancelled"],
  ] as const)("%s", (_why, input, stopReason) => {
    expect(decidePromptEnd(input)).toEqual({ kind: "stop", stopReason });
  });

  test("a usage limit is an error with its reset time", () => {
    const limit = { kind: "five_hour", resetsAt: "2026-12-03T20:00:00.000Z" } as unknown as NonNullable<
      Outcome["evidence"]["limit"]
    >;
    const end = decidePromptEnd({ ...plain, outcome: outcome("limited", { limit }, 120) });
    expect(end).toEqual({
      kind: "error",
      message: "worker acp-1 hit a usage limit; it resets at 2026-12-03T20:00:00.000Z",
      data: { code: "limited", exitCode: 120, worker: "acp-1", evidence: { limit }, limit },
    });
  });

  test.each([
    [
      "provider-error",
      { error: "server_error", message: "API Error: 500" },
      122,
      "the provider answered with an error (server_error): API Error: 500",
    ],
    ["dead", { exit: { exitCode: 3 } }, 125, "died (exit 3)"],
    ["dead", { exit: { signal: "KILL" } }, 125, "died (signal KILL)"],
    ["timeout", { timeoutMs: 60_000 }, 124, "the turn did not end within 60 s"],
    ["rejected", {}, 121, "the guardrails rejected every attempt"],
  ] as const)("%s is an error that keeps umbel's code", (reason, evidence, exitCode, words) => {
    const end = decidePromptEnd({ ...plain, outcome: outcome(reason, evidence, exitCode) });
    expect(end.kind).toBe("error");
    if (end.kind !== "error") return;
    expect(end.message).toContain(words);
    expect(end.data).toMatchObject({ code: reason, exitCode, worker: "acp-1" });
  });

  test("a dead worker is an error even after a cancel", () => {
    const end = decidePromptEnd({ ...plain, outcome: outcome("dead", {}, 125), cancelled: true });
    expect(end.kind).toBe("error");
    expect(UMBEL_ERROR_CODE).toBe(-32000);
  });
});

describe("a client's MCP servers", () => {
  const noSse = (servers: Readonly<Record<string, unknown>>) =>
    Object.values(servers).some((s) => (s as { type?: unknown }).type === "sse") ? "no SSE here" : null;

  test("in claude's config shape; those the provider cannot run are listed with why", () => {
    const plan = planMcpServers(
      [
        {
          name: "files",
          command: "/bin/mcp-files",
          args: ["--root", "/w"],
          env: [{ name: "TOKEN", value: "s3cret" }],
        },
        {
          type: "http",
          name: "docs",
          url: "https://docs.example/mcp",
          headers: [{ name: "Authorization", value: "Bearer x" }],
        },
        { type: "sse", name: "old", url: "https://old.example/sse", headers: [] },
      ],
      noSse,
    );
    expect(plan).toEqual({
      servers: {
        files: { command: "/bin/mcp-files", args: ["--root", "/w"], env: { TOKEN: "s3cret" } },
        docs: { type: "http", url: "https://docs.example/mcp", headers: { Authorization: "Bearer x" } },
      },
      passed: ["files", "docs"],
      unsupported: [{ name: "old", why: "no SSE here" }],
    });
  });

  test("the capabilities say which transports the provider takes", () => {
    expect(mcpCapabilities(noSse)).toEqual({ http: true, sse: false });
  });
});
