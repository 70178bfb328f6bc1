// The real opencode 1.18.33 through dist/umbel against the stub model (Chat Completions, a custom
// provider in OPENCODE_CONFIG_CONTENT): spawn in a fresh folder, turns, a byte-exact 20 KB prompt,
// `-p` text / json / stream-json with a tool, `umbel answer` on the permission box (allow, always,
// deny, by label) and on a question, an API error,
// kill -9 → dead. One worker carries the interactive cases and one warm worker the -p ones (each
// opencode takes ~0.9 GB and 4-9 s to start). Skipped locally when `npm run setup:real` has not
// run; UMBEL_REQUIRE_REAL=1 (CI) makes that a failure.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { bash, hang, httpError, text, toolUse, write } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { requireRealOpencode, stubOpencodeEnv } from "./real-opencode.ts";

const opencode = requireRealOpencode("test/real/opencode.test.ts");
type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (s: string) => JSON.parse(s) as Json;
/**
 * An opencode start takes 4-9 s, and 22-49 s on 2 loaded cores (docs/providers.md); -p starts one per
 * new worker, so those runs give it --start-timeout 120s (-p's default is 60 s).
 */
const SLOW = 240_000;
setDefaultTimeout(SLOW);
const START = ["--start-timeout", "120s"];

describe.skipIf(opencode === null)("real opencode through dist/umbel", () => {
  let stub: StubModel;
  let sb: Sandbox;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "openai-chat" });
    sb = await createSandbox();
    Object.assign(sb.env, { UMBEL_OPENCODE_BIN: opencode ?? "opencode" }, stubOpencodeEnv(stub.url));
  });
  afterAll(async () => {
    await sb?.dispose();
    await stub?.stop();
  });

  async function ok(args: string[], stdin?: string): Promise<Json> {
    const r = await sb.umbel([...args, "--json"], stdin === undefined ? {} : { stdin });
    if (r.code !== 0) throw new Error(`umbel ${args.join(" ")} → ${r.code}\n${r.stdout}${r.stderr}`);
    return json(r.stdout);
  }

  const waitAfter = (name: string, baseline: number) =>
    sb.umbel(["wait", name, "--after", String(baseline), "--json", "--timeout", "60s"]);

  async function turn(name: string, prompt: string) {
    const sent = await ok(["send", name], prompt);
    const after = String(sent.baseline);
    const waited = await sb.umbel(["wait", name, "--after", after, "--json", "--timeout", "60s"]);
    return { baseline: sent.baseline as number, outcome: json(waited.stdout), code: waited.code };
  }

  describe("one worker", () => {
    test(
      "spawn in a fresh folder is ready; send → wait (stop) → read; nothing in the project",
      async () => {
        const spawned = await ok(["spawn", "ro", "--provider", "opencode", ...START]);
        expect(spawned.state).toBe("ready");
        // opencode 1.18.33 has no trust question (nor any first-run dialog): nothing to answer or say.
        expect(spawned.dialogs).toEqual([]);
        stub.script(text("hello from the stub"));
        const t = await turn("ro", "say hello");
        expect(t.outcome).toMatchObject({
          reason: "stop",
          exitCode: 0,
          evidence: { message: "hello from the stub" },
        });
        expect(t.code).toBe(0);
        expect((await sb.umbel(["read", "ro"])).stdout).toBe("hello from the stub\n");
        expect(readdirSync(sb.work)).toEqual([]);
        // opencode's record is its own database; umbel only reads it.
        const read = await ok(["read", "ro"]);
        expect(String(read.transcriptPath)).toBe(
          join(sb.dir, "home", ".local", "share", "opencode", "opencode.db"),
        );
        expect(String(read.sessionId)).toMatch(/^ses_/);
      },
      SLOW,
    );

    test(
      "a multi-line and a 20 KB prompt arrive byte-exact; a leading `/` is text",
      async () => {
        const multi = "first line\n  second, indented\n\n\"dq\" 'sq' $HOME `tick` \\back\n日本語 🎉 end?";
        const big = Array.from({ length: 400 }, (_, i) => `${i}: ${"x".repeat(45)}`).join("\n");
        expect(big.length).toBeGreaterThan(20_000);
        for (const prompt of [multi, big]) {
          const t = await turn("ro", prompt);
          expect(t.outcome.reason).toBe("stop");
          expect(stub.mainRequests().at(-1)?.prompt).toBe(prompt);
          expect((await sb.umbel(["read", "ro"])).stdout).toBe(`${renderPromptEcho(prompt)}\n`);
        }
        const slash = await turn("ro", "/review is a path here");
        expect(slash.outcome.reason).toBe("stop");
        expect(stub.mainRequests().at(-1)?.prompt).toEndWith("/review is a path here");
      },
      SLOW,
    );

    test(
      "two consecutive turns: read returns the second answer; --after the first returns the first",
      async () => {
        stub.script(text("first answer"), text("second answer"));
        const first = await turn("ro", "one");
        const second = await turn("ro", "two");
        expect([first.outcome.reason, second.outcome.reason]).toEqual(["stop", "stop"]);
        expect((await sb.umbel(["read", "ro"])).stdout).toBe("second answer\n");
        const earlier = await sb.umbel(["read", "ro", "--after", String(first.baseline)]);
        expect(earlier.stdout).toBe("first answer\n");
      },
      SLOW,
    );

    test(
      "a permission: wait says input (126) with the box; answer allow --input-id (Allow once) approves it",
      async () => {
        const outside = join(sb.dir, "outside");
        stub.script(write(join(outside, "approved.txt"), "approved", text("done after approval")));
        const asked = await turn("ro", "please write it");
        expect(asked.outcome).toMatchObject({
          reason: "input",
          exitCode: 126,
          evidence: { detail: "permission" },
        });
        expect(asked.outcome.evidence.prompt).toBe(`external_directory: ${outside} (${outside}/*)`);
        expect(String(asked.outcome.evidence.screen)).toContain("Permission required");
        expect(asked.code).toBe(126);
        expect((await ok(["status", "ro"])).state).toBe("needs-input");

        const inputId = String(asked.outcome.evidence.inputId);
        const answered = await ok(["answer", "ro", "allow", "--input-id", inputId]);
        expect(answered).toMatchObject({
          inputId,
          option: { number: 1, label: "Allow once" },
          keys: ["Enter"],
        });
        expect(json((await waitAfter("ro", asked.baseline)).stdout).reason).toBe("stop");
        expect((await sb.umbel(["read", "ro"])).stdout).toBe("done after approval\n");
        expect(readFileSync(join(outside, "approved.txt"), "utf8")).toBe("approved");
      },
      SLOW,
    );

    test(
      "answer always: Allow always, then its Confirm; the same folder is not asked again",
      async () => {
        const outside = join(sb.dir, "always");
        stub.script(write(join(outside, "a.txt"), "a", text("granted")));
        const asked = await turn("ro", "write a");
        expect(asked.outcome.reason).toBe("input");
        const answered = await ok(["answer", "ro", "always"]);
        expect(answered).toMatchObject({
          option: { label: "Allow always" },
          keys: ["Right", "Enter", "Enter"],
        });
        expect(json((await waitAfter("ro", asked.baseline)).stdout).reason).toBe("stop");
        expect(readFileSync(join(outside, "a.txt"), "utf8")).toBe("a");
        stub.script(write(join(outside, "b.txt"), "b", text("not asked")));
        const again = await turn("ro", "write b");
        expect(again.outcome).toMatchObject({ reason: "stop", evidence: { message: "not asked" } });
      },
      SLOW,
    );

    test(
      "answer by label from a moved highlight, and deny: Reject ends the turn with no answer, nothing written",
      async () => {
        const outside = join(sb.dir, "denied");
        stub.script(write(join(outside, "d.txt"), "d", text("never")));
        const asked = await turn("ro", "write d");
        expect(asked.outcome.reason).toBe("input");
        expect((await sb.umbel(["keys", "ro", "Right"])).code).toBe(0);
        const wrong = await sb.umbel(["answer", "ro", "maybe"]);
        expect(wrong.stderr).toContain("(options: 1. Allow once; 2. Allow always; 3. Reject)");
        expect(wrong.code).toBe(2);
        const denied = await ok(["answer", "ro", "deny"]);
        expect(denied).toMatchObject({ option: { number: 3, label: "Reject" }, keys: ["Right", "Enter"] });
        const rejected = json((await waitAfter("ro", asked.baseline)).stdout);
        expect(rejected).toMatchObject({ reason: "stop", evidence: { message: null } });
        // The plugin's own idle ended it (measured on 1.18.33): opencode's screen never ends a turn.
        expect(rejected.evidence).not.toHaveProperty("interrupted");
        expect(existsSync(join(outside, "d.txt"))).toBe(false);

        stub.script(write(join(outside, "e.txt"), "e", text("by label")));
        const next = await turn("ro", "write e");
        expect(next.outcome.reason).toBe("input");
        expect(await ok(["answer", "ro", "Allow once"])).toMatchObject({ keys: ["Enter"] });
        expect(json((await waitAfter("ro", next.baseline)).stdout).reason).toBe("stop");
        expect(readFileSync(join(outside, "e.txt"), "utf8")).toBe("e");
      },
      SLOW,
    );

    test(
      "a question: answer by its label (a digit picks and submits)",
      async () => {
        const questions = [
          {
            question: "Which color?",
            header: "Color",
            options: [
              { label: "Red", description: "warm" },
              { label: "Blue", description: "cool" },
            ],
          },
        ];
        stub.script(toolUse("question", { questions }, text("picked")));
        const asked = await turn("ro", "ask me");
        expect(asked.outcome).toMatchObject({
          reason: "input",
          evidence: { prompt: "Which color? [Red | Blue]" },
        });
        expect(await ok(["answer", "ro", "Blue"])).toMatchObject({
          option: { number: 2, label: "Blue" },
          keys: ["2"],
        });
        expect(json((await waitAfter("ro", asked.baseline)).stdout).reason).toBe("stop");
        expect(stub.mainRequests().at(-1)?.main?.toolResults[0]?.text).toContain('"Which color?"="Blue"');
      },
      SLOW,
    );

    test(
      "an API error (401) is provider-error (122) with the error; the worker stays usable",
      async () => {
        stub.script(httpError(401));
        const t = await turn("ro", "this one fails");
        expect(t.outcome).toMatchObject({
          reason: "provider-error",
          exitCode: 122,
          evidence: { error: "APIError", message: "stub error 401" },
        });
        expect(t.code).toBe(122);
        stub.script(text("after the error"));
        expect((await turn("ro", "again")).outcome.reason).toBe("stop");
        expect((await sb.umbel(["read", "ro"])).stdout).toBe("after the error\n");
      },
      SLOW,
    );

    test(
      "kill -9 of opencode mid-turn is dead (125); kill; prune",
      async () => {
        stub.script(hang());
        const sent = await ok(["send", "ro"], "never answered");
        await stub.waitForRequest((r) => r.kind === "main" && r.answered === "hang");
        const { pid } = await ok(["status", "ro"]);
        // The pane runs launch.sh's sh; opencode is its child.
        const child = Bun.spawnSync(["pgrep", "-P", String(pid)])
          .stdout.toString()
          .trim();
        expect(child).toMatch(/^\d+$/);
        process.kill(Number(child), "SIGKILL");
        const waited = await sb.umbel([
          "wait",
          "ro",
          "--after",
          String(sent.baseline),
          "--json",
          "--timeout",
          "30s",
        ]);
        const outcome = json(waited.stdout);
        expect(outcome).toMatchObject({ reason: "dead", exitCode: 125 });
        expect(outcome.evidence.exit).toEqual({ exitCode: 137, signal: "KILL" });
        expect(waited.code).toBe(125);
        expect((await sb.umbel(["kill", "ro"])).code).toBe(0);
        expect((await ok(["prune"])).removed).toEqual(["ro"]);
        expect(existsSync(join(sb.work, ".opencode"))).toBe(false);
      },
      SLOW,
    );
  });

  describe("umbel -p --provider opencode", () => {
    test(
      "text on an anonymous worker, which is removed after",
      async () => {
        stub.script(text("printed answer"));
        const r = await sb.umbel(["-p", "--provider", "opencode", ...START, "print it"]);
        expect(r.stdout).toBe("printed answer\n");
        expect(r.code).toBe(0);
        expect((await sb.umbel(["ls"])).stdout).not.toContain("p-");
      },
      SLOW,
    );

    test(
      "a write outside the project asks in the TUI; -p never asks: rejected as opencode run does, the model goes on",
      async () => {
        const outside = join(sb.dir, "outside-p");
        stub.script(write(join(outside, "refused.txt"), "no", text("went on after the refusal")));
        const r = await sb.umbel([
          "-p",
          "--provider",
          "opencode",
          ...START,
          "--output-format",
          "json",
          "write it",
        ]);
        expect(JSON.parse(r.stdout)).toMatchObject({
          subtype: "success",
          result: "went on after the refusal",
          permission_denials: [
            { tool_name: "write", tool_input: { filePath: join(outside, "refused.txt") } },
          ],
          umbel: { outcome: "stop" },
        });
        expect(existsSync(join(outside, "refused.txt"))).toBe(false);
        expect(stub.mainRequests().at(-1)?.main?.toolResults[0]?.text).toBe(
          "The user rejected permission to use this specific tool call.",
        );
        // opencode run offers no question tool; nor does a non-interactive worker.
        const body = (stub.mainRequests().at(-1)?.body ?? {}) as {
          tools?: { function?: { name?: string } }[];
        };
        expect(body.tools?.map((t) => t.function?.name)).not.toContain("question");
        expect(r.code).toBe(0);
      },
      SLOW,
    );

    test(
      "json with a tool on a warm worker: claude's keys, usage and num_turns from the record",
      async () => {
        stub.script(bash("echo hi from the tool", text("json answer")));
        const j = await sb.umbel([
          "-p",
          "--provider",
          "opencode",
          ...START,
          "--name",
          "warm",
          "--output-format",
          "json",
          "use the tool",
        ]);
        expect(j.code).toBe(0);
        const result = JSON.parse(j.stdout);
        expect(result).toMatchObject({
          type: "result",
          subtype: "success",
          is_error: false,
          result: "json answer",
          num_turns: 2,
        });
        expect(result.session_id).toMatch(/^ses_/);
        expect(result.usage.input_tokens).toBeGreaterThan(0);
        expect(Object.keys(result.modelUsage)).toEqual(["stub-model"]);
        expect(stub.mainRequests().at(-1)?.main?.toolResults[0]?.text).toBe("hi from the tool\n");
      },
      SLOW,
    );

    test(
      "stream-json with a tool on the warm worker: tool_use, tool_result, the answer, the result",
      async () => {
        stub.script(bash("echo streamed", text("stream answer")));
        const s = await sb.umbel([
          "-p",
          "--provider",
          "opencode",
          "--name",
          "warm",
          "--output-format",
          "stream-json",
          "--verbose",
          "stream it",
        ]);
        expect(s.code).toBe(0);
        const lines = s.stdout
          .trimEnd()
          .split("\n")
          .map((l) => JSON.parse(l));
        expect(lines.map((l) => (l.subtype === "init" ? "init" : l.type))).toEqual([
          "init",
          "assistant",
          "user",
          "assistant",
          "result",
        ]);
        expect(lines[1].message.content[0]).toMatchObject({
          type: "tool_use",
          name: "bash",
          input: { command: "echo streamed" },
        });
        expect(lines[2].message.content[0]).toMatchObject({ type: "tool_result", content: "streamed\n" });
        expect(lines[3].message.content[0]).toEqual({ type: "text", text: "stream answer" });
        expect(lines[4]).toMatchObject({ subtype: "success", result: "stream answer", num_turns: 2 });
      },
      SLOW,
    );

    test(
      "--max-turns 1 on the warm worker: the first call's tool runs, then error_max_turns; the worker answers next",
      async () => {
        stub.script(bash("echo step1", bash("echo step2", text("never reached"))));
        const j = await sb.umbel([
          "-p",
          "--provider",
          "opencode",
          "--name",
          "warm",
          "--max-turns",
          "1",
          "--output-format",
          "json",
          "two steps",
        ]);
        expect(JSON.parse(j.stdout)).toMatchObject({ subtype: "error_max_turns", is_error: true });
        expect(j.code).toBe(1);
        expect(stub.mainRequests().some((r) => r.main?.toolResults[0]?.text === "step2\n")).toBe(false);
        stub.reset();
        stub.script(text("still here"));
        const next = await sb.umbel(["-p", "--provider", "opencode", "--name", "warm", "again"]);
        expect(next.stdout).toBe("still here\n");
        await sb.umbel(["kill", "warm", "--purge"]);
      },
      SLOW,
    );
  });
});
