import { describe, expect, test } from "bun:test";
import { PrintInput, spawnOfPrint } from "../../../src/core/print/input.ts";
import { SpawnInput } from "../../../src/core/spawn/input.ts";

/** -p's flags that are spawn options are SpawnInput's fields, passed on by name (core/print/input.ts). */

const parse = (raw: Record<string, unknown>): PrintInput => ({
  ...PrintInput.parse({ prompt: "hi", ...raw }),
  provider: "claude",
});

describe("spawnOfPrint", () => {
  test("a bare -p makes a non-interactive worker and nothing more", () => {
    expect(spawnOfPrint(parse({}), "p-1", {})).toEqual({
      name: "p-1",
      provider: "claude",
      nonInteractive: true,
    });
  });

  test.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ["model", { model: "opus" }, { model: "opus" }],
    ["permissionMode", { permissionMode: "plan" }, { permissionMode: "plan" }],
    ["allowedTools", { allowedTools: ["Read"] }, { allowedTools: ["Read"] }],
    ["disallowedTools", { disallowedTools: ["Bash"] }, { disallowedTools: ["Bash"] }],
    ["systemPrompt", { systemPrompt: "s" }, { systemPrompt: "s" }],
    ["appendSystemPrompt", { appendSystemPrompt: "a" }, { appendSystemPrompt: "a" }],
    ["addDir", { addDir: ["d"] }, { addDir: ["d"] }],
    ["settings", { settings: "{}" }, { settings: "{}" }],
    ["mcpConfig", { mcpConfig: ["{}"] }, { mcpConfig: ["{}"] }],
    ["onLimit", { onLimit: "stop" }, { onLimit: "stop" }],
    ["account", { account: "work" }, { account: "work" }],
    ["cwd", { cwd: "sub" }, { cwd: "sub" }],
    ["env", { env: { A: "1" } }, { env: { A: "1" } }],
    ["startTimeout (parsed once, as spawn's)", { startTimeout: "90s" }, { startTimeout: 90_000 }],
    ["--json-schema starts the StructuredOutput tool", { jsonSchema: "{}" }, { structured: true }],
  ])("%s", (_flag, raw, expected) => {
    const spawn = spawnOfPrint(parse(raw), "p-1", {});
    expect(spawn).toMatchObject(expected);
    // Every key is one of spawn's own fields.
    expect(Object.keys(spawn).filter((key) => !(key in SpawnInput.shape))).toEqual([]);
  });

  test.each<[Record<string, unknown>, Record<string, unknown>]>([
    [{ resumeSession: "sid-1" }, { resumeSession: "sid-1" }],
    [{ continueSession: true }, { continueSession: true }],
  ])("how the conversation starts: %p", (how, expected) => {
    expect(spawnOfPrint(parse({}), "p-1", how)).toMatchObject(expected);
  });

  test.each([["timeout"], ["idleTimeout"], ["maxTurns"], ["maxTokens"], ["verbose"]])(
    "%s is the turn's, not the worker's",
    (flag) => {
      const raw = { timeout: "1m", idleTimeout: "1m", maxTurns: 2, maxTokens: 5, verbose: true };
      expect(Object.keys(spawnOfPrint(parse(raw), "p-1", {}))).not.toContain(flag);
    },
  );
});
