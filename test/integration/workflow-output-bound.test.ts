import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { OUTPUT_INLINE_BYTES } from "../../src/core/common/log-bounds.ts";
import type { RunSummary, StepEvent, WorkflowEvent } from "../../src/core/workflow/state.ts";
import { runWorkflow } from "../../src/operations/workflow/run.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Declared here: a preload's setDefaultTimeout reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * Issue 22 item 15: a 30 MB `file:` output was copied whole into state.json and twice into the
 * --json events. An output is kept (and passed to later prompts) up to OUTPUT_INLINE_BYTES, with a
 * line saying it was cut and where the whole file is, its size and its sha256.
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

describe("a big file output", () => {
  test("is kept as its head plus a line naming the file, its size and sha256; state.json stays small", async () => {
    const cwd = join(sb.work, "big");
    mkdirSync(cwd);
    const body = Buffer.alloc(30_000_000, "z");
    writeFileSync(join(cwd, "big.md"), body);
    const sha = createHash("sha256").update(body).digest("hex");
    writeFileSync(
      join(sb.work, "big.yaml"),
      `workers: { a: { cwd: ./big } }\nsteps:\n  - { id: s, run: a, prompt: "fake:reply ok", outputs: { f: "file:big.md", t: answer } }\n`,
    );
    const events: WorkflowEvent[] = [];
    const result = (await runWorkflow(sb.deps(), { file: "big.yaml" }, (e) => events.push(e))) as RunSummary;
    expect(result).toMatchObject({ status: "done", exitCode: 0 });
    const f = result.outputs.s?.f ?? "";
    const path = realpathSync(join(cwd, "big.md"));
    expect(f.startsWith("z".repeat(1000))).toBe(true);
    expect(f).toEndWith(
      `\n[umbel: output f is cut here: ${path} has 30000000 bytes (sha256 ${sha}); the first ${OUTPUT_INLINE_BYTES} are above]`,
    );
    expect(Buffer.byteLength(f)).toBeLessThan(OUTPUT_INLINE_BYTES + 300);
    expect(result.outputs.s?.t).toBe("ok");
    const done = events.find((e): e is StepEvent => e.event === "step" && e.status === "done");
    expect(done?.cut).toEqual({ f: { bytes: 30_000_000, sha256: sha, path } });
    expect(statSync(join(result.stateDir, "state.json")).size).toBeLessThan(2 * OUTPUT_INLINE_BYTES);
    expect(readFileSync(join(result.stateDir, "state.json"), "utf8")).toContain(sha);
  }, 60_000);
});
