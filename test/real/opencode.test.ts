// The real opencode 1.18.33 through dist/umbel against the stub model (Chat Completions, a custom
// provider in OPENCODE_CONFIG_CONTENT): the shared one-worker scenarios (scenarios/worker.ts,
// opencode's profile in providers/opencode.ts: spawn in a fresh folder, turns, a byte-exact 20 KB
// prompt, `umbel answer` on the permission box, an API error, kill -9 → dead), then what only opencode
// has: a leading `/`, answer always, deny and by label, a question, and `-p` text / json /
// stream-json with a tool. One worker carries the interactive cases and one warm worker the -p ones
// (each opencode takes ~0.9 GB and 4-9 s to start). Skipped locally when `npm run setup:real` has not
// run; UMBEL_REQUIRE_REAL=1 (CI) makes that a failure.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bash, text, toolUse, write } from "../stub-model/replies.ts";
import { opencodeWorkerProfile, OPENCODE_START as START } from "./providers/opencode.ts";
import { requireRealOpencode } from "./real-opencode.ts";
import { json } from "./scenarios/drive.ts";
import { workerScenarios } from "./scenarios/worker.ts";

const opencode = requireRealOpencode("test/real/opencode.test.ts");
/** An opencode start takes 4-9 s, and 22-49 s on 2 loaded cores (docs/providers.md). */
const SLOW = 240_000;
setDefaultTimeout(SLOW);

workerScenarios(opencodeWorkerProfile(opencode), {
  live({ world, ok, turn, waitAfter }) {
    test("a leading `/` is text", async () => {
      const slash = await turn("ro", "/review is a path here");
      expect(slash.outcome.reason).toBe("stop");
      expect(world().stub.mainRequests().at(-1)?.prompt).toEndWith("/review is a path here");
    });

    test(
      "answer always: Allow always, then its Confirm; the same folder is not asked again",
      async () => {
        const { sb, stub } = world();
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
        const { sb, stub } = world();
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
        const { stub } = world();
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
  },
  after({ world }) {
    describe("umbel -p --provider opencode", () => {
      test(
        "text on an anonymous worker, which is removed after",
        async () => {
          const { sb, stub } = world();
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
          const { sb, stub } = world();
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
          const { sb, stub } = world();
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
          const { sb, stub } = world();
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
          const { sb, stub } = world();
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
  },
});
