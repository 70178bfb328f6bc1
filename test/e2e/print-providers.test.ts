import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * `umbel -p` is one face for every provider: the same flags give the same data in claude -p's
 * shapes. Each case runs on the fake claude, codex, gemini and opencode side by side and compares the key
 * sets and line types with claude's (the real tier proves claude's equal real `claude -p`'s).
 */

const PROVIDERS = ["claude", "codex", "gemini", "opencode"] as const;
type Provider = (typeof PROVIDERS)[number];
type Json = Record<string, unknown>;

const lines = (stdout: string) =>
  stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Json);
const kinds = (messages: Json[]) => messages.map((m) => (m.subtype === "init" ? "init" : String(m.type)));
const keys = (value: unknown) => Object.keys((value ?? {}) as object).sort();
/** null stays null, arrays are "array": what "compared by type" means for values that must differ. */
const typeOf = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ env: { GEMINI_API_KEY: "fake-key" } });
});
afterAll(async () => {
  await sb.dispose();
});

/** The same `umbel -p` on the three providers at once. */
async function onEach(args: string[], stdin?: string) {
  const runs = await Promise.all(
    PROVIDERS.map((provider) =>
      sb.umbel(["-p", "--provider", provider, ...args], stdin === undefined ? {} : { stdin }),
    ),
  );
  return Object.fromEntries(PROVIDERS.map((p, i) => [p, runs[i]])) as Record<
    Provider,
    { stdout: string; stderr: string; code: number }
  >;
}

/** These are known from every provider's transcript: they must be filled, with claude's types. */
const FILLED = [
  "type",
  "subtype",
  "is_error",
  "result",
  "session_id",
  "duration_ms",
  "num_turns",
  "stop_reason",
  "usage",
  "modelUsage",
  "permission_denials",
  "umbel",
] as const;

describe("umbel -p gives claude -p's data for every provider", () => {
  test("json: the same keys, the filled ones with claude's types, the same answer", async () => {
    const runs = await onEach(["--output-format", "json", "fake:reply the same answer"]);
    const claude = JSON.parse(runs.claude.stdout) as Json;
    for (const provider of PROVIDERS) {
      const run = runs[provider];
      const result = JSON.parse(run.stdout) as Json;
      expect({ provider, keys: keys(result) }).toEqual({ provider, keys: keys(claude) });
      for (const key of FILLED)
        expect({ provider, key, type: typeOf(result[key]) }).toMatchObject({ type: typeOf(claude[key]) });
      expect(result).toMatchObject({
        subtype: "success",
        is_error: false,
        result: "the same answer",
        num_turns: 1,
      });
      expect(keys(result.usage)).toEqual(keys(claude.usage));
      expect((result.usage as Json).output_tokens).toBeGreaterThan(0);
      expect(Object.keys(result.modelUsage as Json)).toHaveLength(1);
      expect(result.umbel).toMatchObject({ provider, outcome: "stop", exitCode: 0 });
      expect(run.code).toBe(0);
    }
  });

  test("stream-json: init, each tool call and result as it lands, the answer, the result", async () => {
    const runs = await onEach(["--output-format", "stream-json", "--verbose", "fake:tools 2"]);
    const claude = lines(runs.claude.stdout);
    expect(kinds(claude)).toEqual(["init", "assistant", "user", "assistant", "user", "assistant", "result"]);
    for (const provider of PROVIDERS) {
      const out = lines(runs[provider].stdout);
      expect({ provider, kinds: kinds(out) }).toEqual({ provider, kinds: kinds(claude) });
      out.forEach((line, i) => {
        expect({ provider, i, keys: keys(line) }).toEqual({ provider, i, keys: keys(claude[i]) });
        if (line.type === "assistant")
          expect({ provider, i, keys: keys(line.message) }).toEqual({
            provider,
            i,
            keys: keys(claude[i]?.message),
          });
      });
      const blocks = out.flatMap(
        (l) => ((l.message as Json | undefined)?.content as Json[] | undefined) ?? [],
      );
      expect(blocks.map((b) => b.type)).toEqual([
        "tool_use",
        "tool_result",
        "tool_use",
        "tool_result",
        "text",
      ]);
      const [call, result] = blocks;
      expect(result?.tool_use_id).toBe(call?.id);
      expect(String(result?.content)).toContain("step1");
      expect(out.at(-1)).toMatchObject({ subtype: "success", result: "FAKE-TOOLS-DONE n=2", num_turns: 3 });
      const sessions = new Set(out.map((line) => line.session_id));
      expect({ provider, sessions: [...sessions] }).toEqual({ provider, sessions: [expect.any(String)] });
      expect(runs[provider].code).toBe(0);
    }
  });

  test("--max-turns: the tools of the Nth turn run, then error_max_turns (exit 1)", async () => {
    const text = await onEach(["--max-turns", "1", "fake:tools 3"]);
    const json = await onEach(["--max-turns", "1", "--output-format", "json", "fake:tools 3"]);
    for (const provider of PROVIDERS) {
      expect({ provider, stdout: text[provider].stdout }).toEqual({
        provider,
        stdout: "Error: Reached max turns (1)",
      });
      expect(text[provider].code).toBe(1);
      const result = JSON.parse(json[provider].stdout) as Json;
      expect(result).toMatchObject({
        subtype: "error_max_turns",
        is_error: true,
        num_turns: 2,
        errors: ["Reached maximum number of turns (1)"],
        umbel: { provider, outcome: "max-turns", exitCode: 1 },
      });
      expect(json[provider].code).toBe(1);
    }
    // claude -p prints the Nth call and its result, then the result line; the N+1th never runs.
    const stream = await onEach([
      "--max-turns",
      "1",
      "--output-format",
      "stream-json",
      "--verbose",
      "fake:tools 3",
    ]);
    for (const provider of PROVIDERS) {
      const out = lines(stream[provider].stdout);
      expect({ provider, kinds: kinds(out) }).toEqual({
        provider,
        kinds: ["init", "assistant", "user", "result"],
      });
      expect(out.at(-1)).toMatchObject({ subtype: "error_max_turns" });
    }
  });

  test("--max-turns on a warm worker leaves it idle: the next turn on it answers at once", async () => {
    // The next -p follows its own provider's halted one at once (gemini's spinner outlives its stop
    // line: a send in that window found the worker busy, exit 4 with nothing on stdout).
    const runs = await Promise.all(
      PROVIDERS.map(async (p) => {
        const args = ["--name", `mt-${p}`, "--max-turns", "2", "--output-format", "json", "fake:tools 5"];
        const first = await sb.umbel(["-p", "--provider", p, ...args]);
        const next = await sb.umbel(["-p", "--provider", p, "--name", `mt-${p}`, "fake:reply still here"]);
        return { first, next };
      }),
    );
    for (const [i, provider] of PROVIDERS.entries()) {
      const { first, next } = runs[i] ?? {};
      expect(JSON.parse(first?.stdout ?? "")).toMatchObject({ subtype: "error_max_turns", num_turns: 3 });
      expect({ provider, next }).toMatchObject({ provider, next: { stdout: "still here\n", code: 0 } });
    }
  });

  test("an API error: claude -p's result (subtype success, is_error, the error as result), exit 1", async () => {
    const runs = await onEach(["--output-format", "json", "fake:error"]);
    const claude = JSON.parse(runs.claude.stdout) as Json;
    for (const provider of PROVIDERS) {
      const result = JSON.parse(runs[provider].stdout) as Json;
      expect({ provider, keys: keys(result) }).toEqual({ provider, keys: keys(claude) });
      expect(result).toMatchObject({
        subtype: "success",
        is_error: true,
        umbel: { outcome: "provider-error" },
      });
      expect(String(result.result)).not.toBe("");
      expect(runs[provider].code).toBe(1);
    }
  });

  test("--input-format stream-json: a turn per message on one conversation", async () => {
    const input = [
      '{"type":"user","message":{"role":"user","content":"fake:reply one"}}',
      '{"type":"user","message":{"role":"user","content":"fake:reply two"}}',
      "",
    ].join("\n");
    const runs = await onEach(
      ["--input-format", "stream-json", "--output-format", "stream-json", "--verbose"],
      input,
    );
    for (const provider of PROVIDERS) {
      const results = lines(runs[provider].stdout).filter((l) => l.type === "result");
      expect(results.map((r) => [r.result, r.result_index])).toEqual([
        ["one", 0],
        ["two", 1],
      ]);
      expect(runs[provider].code).toBe(0);
    }
  });
});
