import { describe, expect, test } from "bun:test";
import { answerStructuredCall, EXHAUSTED_HOLD_MS } from "../../../src/operations/guard/structured-call.ts";
import { addWorker, createFakeWorld } from "../../helpers/fake-deps.ts";

/**
 * The StructuredOutput tool's answer. claude -p ends a request at the fifth invalid call; through the
 * TUI umbel interrupts the worker then, and an answer given at once let the model make one more
 * request before the interrupt landed under load (num_turns 7 where claude -p has 6). So the call
 * that exhausts the retries is answered only once the CLI cancels it, or after a bound.
 */
describe("answerStructuredCall", () => {
  const world = () => {
    const w = createFakeWorld();
    addWorker(w, "w1");
    return w;
  };
  const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };

  test("invalid calls are answered at once until the fifth, which waits for the CLI's cancel", async () => {
    const w = world();
    await w.deps.guards.writeTurnSchema("w1", { baseline: 3, schema });
    for (let i = 0; i < 4; i++) {
      const r = await answerStructuredCall(w.deps, "w1", { answer: 1 }, new AbortController().signal);
      expect(r.ok).toBe(false);
    }
    const cancel = new AbortController();
    let answered = false;
    const fifth = answerStructuredCall(w.deps, "w1", { answer: 1 }, cancel.signal).then((r) => {
      answered = true;
      return r;
    });
    await w.clock.advance(EXHAUSTED_HOLD_MS - 100);
    expect(answered).toBe(false);
    cancel.abort();
    expect((await fifth).text).toContain("/answer: must be string");
  });

  test("the held answer goes after the bound if nothing cancels it", async () => {
    const w = world();
    await w.deps.guards.writeTurnSchema("w1", { baseline: 3, schema });
    const never = new AbortController().signal;
    for (let i = 0; i < 4; i++) await answerStructuredCall(w.deps, "w1", { answer: 1 }, never);
    const fifth = answerStructuredCall(w.deps, "w1", { answer: 1 }, never);
    await w.clock.advance(EXHAUSTED_HOLD_MS);
    expect((await fifth).ok).toBe(false);
  });

  test("a valid call is answered at once, whatever came before", async () => {
    const w = world();
    await w.deps.guards.writeTurnSchema("w1", { baseline: 3, schema });
    const never = new AbortController().signal;
    expect(await answerStructuredCall(w.deps, "w1", { answer: "yes" }, never)).toEqual({
      ok: true,
      text: "Structured output provided successfully",
    });
  });
});
