// `umbel -p` that meets a prompt needing a person (126) is never a dead end: the message says how
// to answer it (a --name worker is kept) or how to keep the worker next time (an anonymous one is
// removed as -p exits).
import { describe, expect, test } from "bun:test";
import { describeInputEnding } from "../../../src/core/print/print.ts";
import type { Outcome } from "../../../src/core/wait/outcome.ts";

const asking: Outcome = {
  reason: "input",
  exitCode: 126,
  name: "fix",
  baseline: 3,
  elapsedMs: 10,
  evidence: { prompt: "Bash: rm -rf build", inputId: "in-0123456789ab", detail: "permission" },
};

describe("-p ending in input", () => {
  test("a --name worker is kept: answer it by its inputId, then wait for the same turn and read it", () => {
    expect(describeInputEnding(asking, { name: "fix", anonymous: false })).toBe(
      "worker fix needs input: Bash: rm -rf build; it is kept, so answer it: `umbel answer fix allow --input-id in-0123456789ab` (or always, deny, an option), then `umbel wait fix` follows the same turn to its end and `umbel read fix` prints its answer",
    );
  });

  test("an anonymous worker was removed: say so, and how to keep it (--name)", () => {
    expect(describeInputEnding(asking, { name: "p-1a2b3c4d", anonymous: true })).toBe(
      "the worker needs input: Bash: rm -rf build; an anonymous -p worker is removed as -p exits, so nothing is left to answer: run it again with --name NAME to keep the worker, then `umbel answer NAME allow --input-id ID` and `umbel wait NAME`",
    );
  });

  test("a prompt no hook announced (no inputId): answer without one", () => {
    const unannounced = { ...asking, evidence: { prompt: "a prompt is on screen" } };
    expect(describeInputEnding(unannounced, { name: "fix", anonymous: false })).toContain(
      "`umbel answer fix allow` (or always",
    );
  });
});
