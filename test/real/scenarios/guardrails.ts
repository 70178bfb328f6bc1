// The guardrails through dist/umbel and a REAL agent CLI against the stub model: the stub calls
// umbel's StructuredOutput tool by a part of its name (`stub:tool`), and an accept check's output
// carries the stub directive that fixes the worker's file in the feedback turn. Run by
// test/real/{claude,codex,gemini}-guardrails.test.ts on the worlds of test/real/providers/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RealWorld } from "./drive.ts";

type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
type Attempt = { attempt: number; passed: boolean; checks: { exitCode: number | null; output: string }[] };

export type GuardrailWorld = RealWorld & {
  /** Flags spawn needs for this CLI (provider, env, unattended …). */
  readonly spawnFlags: readonly string[];
};

const SCHEMA = JSON.stringify({
  type: "object",
  properties: { answer: { type: "string" } },
  required: ["answer"],
});
/** Fixes out.txt by telling the stub, through the check's output, what the worker runs next. */
const WANTS_GOOD = "grep -q good out.txt || { printf 'stub:%s echo good > out.txt\\n' bash; exit 1; }";

export function guardrailScenarios(label: string, makeWorld: () => Promise<GuardrailWorld>): void {
  describe(`${label}: guardrails through dist/umbel`, () => {
    let world: GuardrailWorld;
    const umbel = (args: string[]) => world.sb.umbel(args);
    async function turn(prompt: string, flags: string[]) {
      const sent = await umbel(["send", "g1", prompt, "--json", ...flags]);
      if (sent.code !== 0) throw new Error(`send → ${sent.code}: ${sent.stdout}${sent.stderr}`);
      const baseline = String((JSON.parse(sent.stdout) as { baseline: number }).baseline);
      const waited = await umbel(["wait", "g1", "--after", baseline, "--json", "--timeout", "90s"]);
      return { baseline, outcome: JSON.parse(waited.stdout) as Json, code: waited.code };
    }

    beforeAll(async () => {
      world = await makeWorld();
      const spawned = await umbel(["spawn", "g1", "--structured", "--unattended", ...world.spawnFlags]);
      if (spawned.code !== 0) throw new Error(`spawn → ${spawned.code}: ${spawned.stderr}`);
    });
    afterAll(async () => {
      await world?.dispose();
    });

    test("a valid structured result: stop, the object in evidence and in read", async () => {
      const t = await turn('stub:tool StructuredOutput {"answer":"yes"}', ["--json-schema", SCHEMA]);
      expect(t.outcome).toMatchObject({
        reason: "stop",
        exitCode: 0,
        evidence: { structured: { answer: "yes" } },
      });
      const read = JSON.parse((await umbel(["read", "g1", "--json"])).stdout) as { structured: unknown };
      expect(read.structured).toEqual({ answer: "yes" });
      // The model saw the tool under a name that contains StructuredOutput.
      const offered = JSON.stringify(world.stub.mainRequests().at(-1)?.body);
      expect(offered).toContain("StructuredOutput");
    });

    test("an invalid call, then a valid one: one rejection in the evidence", async () => {
      const t = await turn(
        'stub:tool StructuredOutput {"answer":1} stub:tool StructuredOutput {"answer":"ok"}',
        ["--json-schema", SCHEMA],
      );
      expect(t.outcome).toMatchObject({ reason: "stop", evidence: { structured: { answer: "ok" } } });
      expect((t.outcome.evidence.attempts as Attempt[])[0]).toMatchObject({
        structured: { ok: true, calls: 2, rejected: 1, errors: ["/answer: must be string"] },
      });
      // The validation error reached the model as the tool's error.
      const results = JSON.stringify(world.stub.mainRequests().map((r) => r.main?.toolResults));
      expect(results).toContain("Output does not match required schema: /answer: must be string");
    });

    test("an accept check fails once (the worker wrote a bad file), passes after the feedback turn", async () => {
      const t = await turn("stub:bash echo bad > out.txt", ["--accept", WANTS_GOOD]);
      expect(t.outcome).toMatchObject({ reason: "stop", exitCode: 0 });
      const attempts = t.outcome.evidence.attempts as Attempt[];
      expect(attempts.map((a) => [a.attempt, a.passed, a.checks[0]?.exitCode])).toEqual([
        [1, false, 1],
        [2, true, 0],
      ]);
      expect(readFileSync(join(world.sb.work, "out.txt"), "utf8")).toBe("good\n");
      expect(world.stub.mainRequests().some((r) => r.prompt?.startsWith("[umbel-accept]"))).toBe(true);
    });

    test("five invalid calls: rejected at once (umbel interrupts, the fifth call's answer held), no sixth request; the worker takes the next prompt", async () => {
      // Five different objects: gemini 0.61.0 stops a fifth identical call as a loop (measured).
      const bad = [1, 2, 3, 4, 5].map((n) => `stub:tool StructuredOutput {"answer":${n}}`);
      const before = world.stub.mainRequests().length;
      const t = await turn(bad.join(" "), ["--json-schema", SCHEMA]);
      expect(t.outcome).toMatchObject({ reason: "rejected", exitCode: 121 });
      expect(String(t.outcome.evidence.detail)).toStartWith(
        "Failed to provide valid structured output after 5 attempts",
      );
      // The prompt's request and one after each of the first four answers: the fifth was never answered in time.
      expect(world.stub.mainRequests().length - before).toBe(5);
      const next = await turn("stub:text still here", []);
      expect(next.outcome).toMatchObject({ reason: "stop", evidence: { message: "still here" } });
    });

    test("a check that never passes: rejected (121) after N, every attempt as evidence", async () => {
      const t = await turn("stub:text done", ["--accept", "echo not yet; exit 1", "--max-attempts", "2"]);
      expect(t.outcome).toMatchObject({ reason: "rejected", exitCode: 121 });
      expect(t.code).toBe(121);
      const attempts = t.outcome.evidence.attempts as Attempt[];
      expect(attempts.map((a) => [a.passed, a.checks[0]?.exitCode, a.checks[0]?.output])).toEqual([
        [false, 1, "not yet\n"],
        [false, 1, "not yet\n"],
      ]);
    });
  });
}
