import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { ENFORCE_TEXT } from "../../../src/core/guard/decide.ts";
import { waitGuarded } from "../../../src/operations/guard/guard.ts";
import { streamLogs } from "../../../src/operations/worker/logs.ts";
import { readAnswer } from "../../../src/operations/worker/read.ts";
import { sendPrompt } from "../../../src/operations/worker/send.ts";
import { statusOf } from "../../../src/operations/worker/status.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { guardWorld, LIMIT_TEXT } from "../../helpers/guard-world.ts";

/** The guard loop (send → wait → checks → feedback → wait …) on in-memory ports and a virtual clock. */

const SCHEMA = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };

describe("accept checks", () => {
  test("all pass: stop after one attempt, the check ran with the caller's env, the worker and the answer", async () => {
    const world = guardWorld(() => ({ answer: "done it" }));
    const seen: Record<string, string | undefined>[] = [];
    world.onCheck = async (_command, options) => {
      seen.push({
        ...options.env,
        answer: (await world.deps.files.readText(options.env.UMBEL_ANSWER_FILE ?? "")) ?? "",
      });
      return { exitCode: 0 };
    };
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "build it", accept: ["make check"] });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome).toMatchObject({ reason: "stop", exitCode: 0, baseline: sent.baseline });
    expect(outcome.evidence.attempts).toMatchObject([
      { attempt: 1, passed: true, checks: [{ command: "make check", exitCode: 0 }] },
    ]);
    expect(world.checkRuns.map((r) => [r.command, r.options.cwd])).toEqual([["make check", "/work"]]);
    expect(seen[0]).toMatchObject({
      PATH: "/usr/bin:/bin",
      UMBEL_WORKER: "w1",
      UMBEL_ATTEMPT: "1",
      answer: "done it",
    });
  });

  test("fails once, passes after the feedback turn: stop after 2 attempts, both in evidence", async () => {
    const world = guardWorld((_p, n) => ({ answer: n === 1 ? "bad" : "good" }));
    world.onCheck = (_c, o) =>
      o.env.UMBEL_ATTEMPT === "1" ? { exitCode: 2, output: "FAIL: x.txt is wrong\n" } : {};
    const sent = await sendPrompt(world.deps, {
      name: "w1",
      prompt: "write x.txt",
      accept: ["test -f x.txt"],
    });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome.reason).toBe("stop");
    expect(outcome.evidence.attempts?.map((a) => [a.attempt, a.passed, a.checks[0]?.exitCode])).toEqual([
      [1, false, 2],
      [2, true, 0],
    ]);
    const feedback = world.prompts[1] ?? "";
    expect(feedback).toContain("`test -f x.txt`");
    expect(feedback).toContain("exited with code 2");
    expect(feedback).toContain("FAIL: x.txt is wrong");
    expect(feedback).toContain("attempt 2 of 3");
    expect(outcome.evidence.attempts?.[0]?.feedback).toBe(feedback);
    // read of the sent baseline is the answer that passed.
    expect((await readAnswer(world.deps, { name: "w1", after: sent.baseline })).text).toBe("good");
  });

  test("never passes: rejected (121) after N attempts with every attempt as evidence", async () => {
    const world = guardWorld(() => ({}));
    world.onCheck = () => ({ exitCode: 1, output: "still failing" });
    const sent = await sendPrompt(world.deps, {
      name: "w1",
      prompt: "try",
      accept: ["false"],
      maxAttempts: 2,
    });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome).toMatchObject({ reason: "rejected", exitCode: 121 });
    expect(outcome.evidence.attempts).toHaveLength(2);
    expect(outcome.evidence.detail).toContain("`false` exited with code 1 (attempt 2 of 2)");
    expect(world.prompts).toHaveLength(2);
    // A later wait for the same turn answers the same, and runs nothing again.
    const again = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(again.reason).toBe("rejected");
    expect(world.checkRuns).toHaveLength(2);
  });

  test("a second waiter on the same turn follows the first: each check runs once, both see the outcome", async () => {
    const world = guardWorld((_p, n) => ({ answer: `a${n}` }));
    world.onCheck = (_c, o) => (o.env.UMBEL_ATTEMPT === "1" ? { exitCode: 1 } : {});
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "go", accept: ["check"] });
    const [a, b] = await Promise.all([
      waitGuarded(world.deps, { name: "w1", after: sent.baseline }),
      waitGuarded(world.deps, { name: "w1", after: sent.baseline }),
    ]);
    expect([a.reason, b.reason]).toEqual(["stop", "stop"]);
    expect(world.checkRuns).toHaveLength(2);
    expect(world.prompts).toHaveLength(2);
  });

  test.each([
    ["before the feedback is sent", 0],
    ["during the feedback turn", 10_000],
  ])("the worker dies %s: the wait ends dead, with the attempts so far", async (_when, afterCheckMs) => {
    const world = guardWorld((_p, n) => (n === 1 ? {} : { never: true }));
    const die = () => {
      const session = world.sessions.get("w1");
      if (session) session.exit = { exitCode: 137, signal: "KILL" };
      Object.assign(world.tmux.panes.get("w1") ?? {}, { dead: true, deadStatus: 137 });
    };
    world.onCheck = () => {
      if (afterCheckMs === 0) die();
      else world.clock.at(world.clock.now() + afterCheckMs, die);
      return { exitCode: 1 };
    };
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "go", accept: ["check"] });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome).toMatchObject({ reason: "dead", exitCode: 125, evidence: { exit: { exitCode: 137 } } });
    expect(outcome.evidence.attempts).toHaveLength(1);
    expect(world.prompts).toHaveLength(afterCheckMs === 0 ? 1 : 2);
  });

  test("status shows the attempt while it is enforced; logs show each check at its place", async () => {
    const world = guardWorld((_p, n) => (n === 1 ? {} : { never: true }));
    world.onCheck = () => ({ exitCode: 3, output: "nope" });
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "go", accept: ["check"] });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline, timeout: 20_000 });
    expect(outcome.reason).toBe("timeout");
    expect((await statusOf(world.deps, "w1")).guard).toEqual({ attempt: 2, maxAttempts: 3, phase: "turn" });
    const names: string[] = [];
    await streamLogs(world.deps, { name: "w1" }, (e) => void names.push(e.name));
    expect(names).toEqual([
      "SessionStart",
      "UserPromptSubmit",
      "Stop",
      "umbel:check",
      "umbel:feedback",
      "UserPromptSubmit",
    ]);
  });

  test("--max-attempts and --accept-timeout need a guardrail", async () => {
    const world = guardWorld(() => ({}));
    await expect(sendPrompt(world.deps, { name: "w1", prompt: "x", maxAttempts: 2 })).rejects.toThrow(
      "--max-attempts needs --accept or --json-schema",
    );
    expect(world.prompts).toHaveLength(0);
  });
});

describe("structured output", () => {
  test("a valid object: stop with the object in evidence and in read", async () => {
    const world = guardWorld(() => ({ calls: [{ n: 7 }] }), { structured: true });
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "count", jsonSchema: SCHEMA });
    expect(world.prompts[0]).toContain("StructuredOutput");
    expect(world.prompts[0]).toContain(JSON.stringify(SCHEMA));
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome).toMatchObject({ reason: "stop", evidence: { structured: { n: 7 } } });
    expect((await readAnswer(world.deps, { name: "w1" })).structured).toEqual({ n: 7 });
  });

  test("an invalid call then a valid one: one rejection in evidence, stop", async () => {
    const world = guardWorld(() => ({ calls: [{ n: "x" }, { n: 1 }] }), { structured: true });
    const sent = await sendPrompt(world.deps, {
      name: "w1",
      prompt: "count",
      jsonSchema: JSON.stringify(SCHEMA),
    });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome.reason).toBe("stop");
    expect(outcome.evidence.attempts?.[0]?.structured).toEqual({
      ok: true,
      calls: 2,
      rejected: 1,
      errors: ["/n: must be number"],
    });
  });

  test("no call: claude's enforce message once, then the object", async () => {
    const world = guardWorld((_p, n) => (n === 1 ? {} : { calls: [{ n: 2 }] }), { structured: true });
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "count", jsonSchema: SCHEMA });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(world.prompts[1]).toBe(ENFORCE_TEXT);
    expect(outcome).toMatchObject({ reason: "stop", evidence: { structured: { n: 2 } } });
  });

  test("no call after the enforce message either: rejected", async () => {
    const world = guardWorld(() => ({}), { structured: true });
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "count", jsonSchema: SCHEMA });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome).toMatchObject({ reason: "rejected", exitCode: 121 });
    expect(outcome.evidence.detail).toBe("the turn ended without calling StructuredOutput");
    expect(world.prompts).toHaveLength(2);
  });

  test("five invalid calls: the worker is interrupted and the wait is rejected in claude's words", async () => {
    const bad = Array.from({ length: 5 }, () => ({ n: "x" }));
    const world = guardWorld(() => ({ calls: bad }), { structured: true });
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "count", jsonSchema: SCHEMA });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome).toMatchObject({ reason: "rejected", evidence: { errors: ["/n: must be number"] } });
    expect(outcome.evidence.detail).toBe(
      "Failed to provide valid structured output after 5 attempts — last StructuredOutput error: Output does not match required schema: /n: must be number",
    );
  });

  test("five invalid calls: the wait ends once umbel's interrupt has stopped the turn, so the next send finds the worker idle", async () => {
    const bad = Array.from({ length: 5 }, () => ({ n: "x" }));
    const world = guardWorld(() => ({ calls: bad, held: true }), { structured: true, escapeMs: 3000 });
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "count", jsonSchema: SCHEMA });
    const before = world.clock.now();
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome).toMatchObject({ reason: "rejected" });
    expect(world.tmux.panes.get("w1")?.screen).toBe(IDLE);
    // The turn's end was seen once the Escape took (3 s) and the screen stayed idle, not at the 15 s bound.
    expect(world.clock.now() - before).toBeLessThan(15_000);
    const next = await sendPrompt(world.deps, { name: "w1", prompt: "next" });
    expect(next.baseline).toBeGreaterThan(sent.baseline);
  });

  test("accept checks run once the object is valid, and read it as the answer", async () => {
    const world = guardWorld(() => ({ calls: [{ n: 3 }], answer: "prose" }), { structured: true });
    let answer = "";
    world.onCheck = async (_c, o) => {
      answer = (await world.deps.files.readText(o.env.UMBEL_ANSWER_FILE ?? "")) ?? "";
      return {};
    };
    const sent = await sendPrompt(world.deps, {
      name: "w1",
      prompt: "count",
      jsonSchema: SCHEMA,
      accept: ["jq"],
    });
    expect((await waitGuarded(world.deps, { name: "w1", after: sent.baseline })).reason).toBe("stop");
    expect(answer).toBe('{"n":3}');
  });

  test("--json-schema to a worker spawned without --structured is a usage error naming the flag", async () => {
    const world = guardWorld(() => ({}));
    const error = await sendPrompt(world.deps, { name: "w1", prompt: "x", jsonSchema: SCHEMA }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain("--structured");
    expect(world.prompts).toHaveLength(0);
  });

  test("a schema that is not a JSON Schema is a usage error in claude's words, before anything is typed", async () => {
    const world = guardWorld(() => ({}), { structured: true });
    await expect(
      sendPrompt(world.deps, { name: "w1", prompt: "x", jsonSchema: { type: "nope" } }),
    ).rejects.toThrow(
      "--json-schema is not a valid JSON Schema: data/type must be equal to one of the allowed values",
    );
    expect(world.prompts).toHaveLength(0);
  });
});

describe("a usage limit inside a guarded turn", () => {
  test("the first attempt is limited: the guard loop ends limited (120), no check runs, the guard stays open", async () => {
    const world = guardWorld(() => ({ limit: true }));
    world.onCheck = () => ({ exitCode: 1 });
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "build it", accept: ["make check"] });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome).toMatchObject({
      reason: "limited",
      exitCode: 120,
      evidence: { limit: { window: "five_hour", message: LIMIT_TEXT }, attempts: [] },
    });
    // A provider stop, not a failed check: nothing ran, no feedback was sent.
    expect(world.checkRuns).toHaveLength(0);
    expect(world.prompts).toHaveLength(1);
    expect((await statusOf(world.deps, "w1")).guard).toEqual({ attempt: 1, maxAttempts: 3, phase: "turn" });
  });

  test("a feedback turn is limited: limited with the attempts so far, never rejected", async () => {
    const world = guardWorld((_p, n) => (n === 1 ? { answer: "bad" } : { limit: true }), {
      structured: true,
    });
    world.onCheck = () => ({ exitCode: 2, output: "FAIL" });
    const sent = await sendPrompt(world.deps, {
      name: "w1",
      prompt: "count",
      accept: ["check"],
      maxAttempts: 2,
    });
    const outcome = await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(outcome.reason).toBe("limited");
    expect(outcome.evidence.limit?.window).toBe("five_hour");
    expect(outcome.evidence.attempts?.map((a) => [a.attempt, a.passed])).toEqual([[1, false]]);
    expect(world.checkRuns).toHaveLength(1);
    expect(world.prompts).toHaveLength(2);
  });
});
