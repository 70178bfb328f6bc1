// `umbel -p --provider codex|gemini` with the real CLIs against the stub model: stream-json follows
// the real transcripts (a tool call, its result, the answer), the json result's transcript fields
// are filled, and --max-turns stops the turn after the Nth model turn's tools, as claude -p does
// (claude's own comparison with the real `claude -p` is print-parity.test.ts; the fake tier,
// test/e2e/print-providers.test.ts, compares the three providers' key sets line by line).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { seedCodexWorld, stubProviderToml } from "../helpers/codex-world.ts";
import { STUB_KEY } from "../helpers/gemini-world.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";
import { bash, text } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import type { StubReply } from "../stub-model/types.ts";
import { requireRealCodex } from "./real-codex.ts";
import { requireRealGemini } from "./real-gemini.ts";

// The real CLI on real tmux takes seconds a test, minutes a file; bun's default is 5 s (declared
// here: a preload's setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(120_000);

type Json = Record<string, unknown>;
const lines = (stdout: string) =>
  stdout
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Json);
const kinds = (messages: Json[]) => messages.map((m) => (m.subtype === "init" ? "init" : String(m.type)));
const blocks = (messages: Json[]) =>
  messages.flatMap((m) => ((m.message as Json | undefined)?.content as Json[] | undefined) ?? []);

/** A reply that takes `delayMs` to start, like a real model thinking before it answers. */
const slow = (reply: StubReply, delayMs: number): StubReply => ({ ...reply, delayMs }) as StubReply;

const REAL = {
  codex: {
    bin: requireRealCodex("test/real/print-providers.test.ts"),
    dialect: "openai",
    tool: "exec_command",
  },
  gemini: {
    bin: requireRealGemini("test/real/print-providers.test.ts"),
    dialect: "gemini",
    tool: "run_shell_command",
  },
} as const;

for (const provider of ["codex", "gemini"] as const) {
  const real = REAL[provider];
  describe.skipIf(real.bin === null)(`umbel -p --provider ${provider} (real ${provider})`, () => {
    let stub: StubModel;
    let sb: Sandbox;
    beforeAll(async () => {
      stub = await startStubModel({ dialect: real.dialect });
      sb = await createSandbox({ untrusted: true });
      if (provider === "codex") {
        const home = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url)).userCodexHome;
        Object.assign(sb.env, { UMBEL_CODEX_BIN: real.bin ?? "codex", CODEX_HOME: home });
      } else {
        Object.assign(sb.env, {
          UMBEL_GEMINI_BIN: real.bin ?? "gemini",
          GEMINI_API_KEY: STUB_KEY,
          GOOGLE_GEMINI_BASE_URL: stub.url,
        });
      }
    });
    afterAll(async () => {
      await sb?.dispose();
      await stub?.stop();
    });
    const print = (...args: string[]) =>
      sb.umbel(["-p", "--provider", provider, "--dangerously-skip-permissions", ...args]);

    test("stream-json: init, the tool call, its result, the answer, the result; one session id", async () => {
      stub.script(bash("echo hi", text("done after the tool")));
      const r = await print("--output-format", "stream-json", "--verbose", "use a tool");
      const out = lines(r.stdout);
      expect(kinds(out)).toEqual(["init", "assistant", "user", "assistant", "result"]);
      const [call, result, answer] = blocks(out);
      expect(call).toMatchObject({ type: "tool_use", name: real.tool });
      expect(result).toMatchObject({ type: "tool_result", tool_use_id: call?.id, is_error: false });
      expect(String(result?.content)).toContain("hi");
      expect(answer).toEqual({ type: "text", text: "done after the tool" });
      expect(new Set(out.map((l) => l.session_id)).size).toBe(1);
      expect(out[0]?.session_id).toEqual(expect.any(String));
      const final = out.at(-1) ?? {};
      expect(final).toMatchObject({
        subtype: "success",
        is_error: false,
        result: "done after the tool",
        num_turns: 2,
        stop_reason: "end_turn",
        duration_api_ms: expect.any(Number),
      });
      const usage = final.usage as Json;
      expect(usage.input_tokens).toBeGreaterThan(0);
      expect(usage.output_tokens).toBeGreaterThan(0);
      expect(Object.keys(final.modelUsage as Json)).toHaveLength(1);
      expect(r.code).toBe(0);
    });

    test("--max-turns 1: the first call runs, the second never does; error_max_turns, exit 1", async () => {
      // The second call is slow to come, as from a real model: the stop must land before it.
      stub.script(bash("touch one.txt", slow(bash("touch two.txt", text("never")), 1500)));
      const r = await print("--max-turns", "1", "--output-format", "stream-json", "--verbose", "two tools");
      const out = lines(r.stdout);
      expect(kinds(out)).toEqual(["init", "assistant", "user", "result"]);
      expect(out.at(-1)).toMatchObject({
        subtype: "error_max_turns",
        is_error: true,
        num_turns: 2,
        errors: ["Reached maximum number of turns (1)"],
      });
      expect(r.code).toBe(1);
      expect(existsSync(join(sb.work, "one.txt"))).toBe(true);
      expect(existsSync(join(sb.work, "two.txt"))).toBe(false);
    });

    test("--max-turns on a warm worker: stopped, then the next turn on it answers", async () => {
      stub.script(bash("echo first", slow(bash("echo second", text("never")), 1500)), text("warm and well"));
      const halted = await print("--name", "mt", "--max-turns", "1", "--output-format", "json", "go");
      expect(JSON.parse(halted.stdout)).toMatchObject({ subtype: "error_max_turns" });
      // At once: gemini's spinner outlives its stop line by 0.2-0.9 s, and a send in that window
      // found the worker busy (exit 4, nothing on stdout) while its halted turn read as running.
      const next = await sb.umbel(["-p", "--provider", provider, "--name", "mt", "again"]);
      expect(next).toMatchObject({ stdout: "warm and well\n", code: 0 });
      expect((await sb.umbel(["kill", "mt", "--purge"])).code).toBe(0);
    });
  });
}
