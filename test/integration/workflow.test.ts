import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { UsageError } from "../../src/core/errors.ts";
import { WORKFLOW_LIMITS } from "../../src/core/workflow/bounds.ts";
import type { WorkflowPlan } from "../../src/core/workflow/describe.ts";
import type { RunState, RunSummary, StepEvent, WorkflowEvent } from "../../src/core/workflow/state.ts";
import { statusOf } from "../../src/operations/worker/status.ts";
import { runWorkflow } from "../../src/operations/workflow/run.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * The workflow runner on real tmux with the fake claude: the operations, not the binary. Timeouts are
 * explicit: bun's default is 5 s, and a preload's setDefaultTimeout reaches only the first file.
 */

const sha12 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

function write(name: string, text: string): string {
  writeFileSync(join(sb.work, name), text);
  return name;
}

async function run(input: Parameters<typeof runWorkflow>[1], env: Record<string, string> = {}) {
  const events: WorkflowEvent[] = [];
  const deps = { ...sb.deps(), env: { ...sb.env, ...env } };
  const result = await runWorkflow(deps, input, (e) => events.push(e));
  const steps = events.filter((e): e is StepEvent => e.event === "step");
  return { result: result as RunSummary, events, steps };
}

function readState(summary: RunSummary): RunState {
  return JSON.parse(readFileSync(join(summary.stateDir, "state.json"), "utf8")) as RunState;
}

async function expectAllKilled(state: RunState) {
  expect(state.sessions.length).toBeGreaterThan(0);
  for (const name of state.sessions) expect((await statusOf(sb.deps(), name)).state).toBe("killed");
}

describe("umbel run (operations)", () => {
  test("fan-out and fan-in, a worker keeps its conversation, fresh starts anew, answer and file outputs", async () => {
    mkdirSync(join(sb.work, "a"));
    writeFileSync(join(sb.work, "a", "notes.txt"), "NOTES-1");
    const file = write(
      "dag.yaml",
      `workers:
  a: { cwd: ./a }
  b: {}
steps:
  - id: first
    run: a
    prompt: "fake:reply alpha"
    outputs: { text: answer, notes: "file:notes.txt" }
  - id: left
    run: a
    needs: [first]
    prompt: "fake:history"
    outputs: { h: answer }
  - id: right
    run: b
    needs: [first]
    prompt: "fake:reply right saw {{ steps.first.outputs.text }} and {{ steps.first.outputs.notes }}"
    outputs: { text: answer }
  - id: again
    run: a
    needs: [left]
    fresh: true
    prompt: "fake:history"
    outputs: { h: answer }
  - id: join
    run: b
    needs: [left, right, again]
    prompt: "fake:reply joined {{ steps.left.outputs.h }} + {{ steps.right.outputs.text }} + {{ steps.again.outputs.h }}"
    outputs: { text: answer }
`,
    );
    const { result, steps } = await run({ file, keep: true });
    const remembered = `HISTORY n=1 last=${sha12("fake:reply alpha")}`;
    expect(result.outputs).toEqual({
      first: { text: "alpha", notes: "NOTES-1" },
      left: { h: remembered },
      right: { text: "right saw alpha and NOTES-1" },
      again: { h: "HISTORY n=0 last=none" },
      join: { text: `joined ${remembered} + right saw alpha and NOTES-1 + HISTORY n=0 last=none` },
    });
    expect(result).toMatchObject({ status: "done", exitCode: 0, attempt: 1 });
    // left and right ran side by side: right started before left finished.
    const at = (step: string, status: string) =>
      steps.findIndex((e) => e.step === step && e.status === status);
    expect(at("right", "starting")).toBeLessThan(at("left", "done"));
    expect(at("join", "starting")).toBeGreaterThan(
      Math.max(at("left", "done"), at("right", "done"), at("again", "done")),
    );
    // a: first+left share one session, again got a fresh one; b ran right and join.
    const session = (step: string) => steps.find((e) => e.step === step && e.status === "done")?.session;
    expect(session("left")).toBe(session("first"));
    expect(session("again")).not.toBe(session("first"));
    expect(session("join")).toBe(session("right"));
    const state = readState(result);
    expect(state.status).toBe("done");
    expect(state.sessions).toHaveLength(3);
    expect(readFileSync(join(result.stateDir, "workflow.yaml"), "utf8")).toBe(
      readFileSync(join(sb.work, file), "utf8"),
    );
    await expectAllKilled(state);
  }, 60_000);

  test("a failing step stops the run with its evidence; --resume finishes only what did not", async () => {
    const file = write(
      "fail.yaml",
      `workers:
  a: {}
  b: {}
steps:
  - { id: ok, run: a, prompt: "fake:reply fine", outputs: { t: answer } }
  - { id: bad, run: a, needs: [ok], prompt: "{{ env.MODE }}", outputs: { t: answer } }
  - { id: slow, run: b, prompt: "{{ env.SLOW }}" }
  - id: last
    run: b
    needs: [bad, slow]
    prompt: "fake:reply {{ steps.ok.outputs.t }}/{{ steps.bad.outputs.t }}"
    outputs: { t: answer }
`,
    );
    const first = await run({ file }, { MODE: "fake:error", SLOW: "fake:hang" });
    expect(first.result).toMatchObject({
      status: "failed",
      exitCode: 122,
      steps: { ok: "done", bad: "failed", slow: "stopped", last: "pending" },
      failure: { step: "bad", worker: "a", outcome: "provider-error", exitCode: 122 },
    });
    expect(first.result.failure?.message).toContain("API Error");
    expect(first.result.failure?.evidence).toMatchObject({
      error: "server_error",
      screen: expect.any(String),
    });
    expect(first.steps.some((e) => e.step === "last")).toBe(false);
    await expectAllKilled(readState(first.result));

    const resumed = await run(
      { resume: first.result.runId, maxParallel: 1, keep: true },
      { MODE: "fake:reply mended", SLOW: "fake:reply slow" },
    );
    expect(resumed.result).toMatchObject({ status: "done", exitCode: 0, attempt: 2 });
    expect(resumed.result.outputs).toEqual({
      ok: { t: "fine" },
      bad: { t: "mended" },
      slow: {},
      last: { t: "fine/mended" },
    });
    expect(resumed.steps.some((e) => e.step === "ok")).toBe(false);
    const state = readState(resumed.result);
    expect(state.steps.ok?.attempt).toBe(1);
    expect(state.steps.last?.attempt).toBe(2);
    // --max-parallel 1: never two steps under way at once.
    const active = new Set<string>();
    let most = 0;
    for (const e of resumed.steps) {
      if (e.status === "starting") active.add(e.step);
      if (["done", "failed", "stopped"].includes(e.status)) active.delete(e.step);
      most = Math.max(most, active.size);
    }
    expect(most).toBe(1);
    await expectAllKilled(state);
  }, 60_000);

  test("a successful run purges the workers it made; a failed one keeps them; keep keeps them", async () => {
    const file = write(
      "purge.yaml",
      `workers: { a: {}, b: {} }\nsteps:\n  - { id: x, run: a, prompt: "fake:reply x" }\n  - { id: y, run: b, prompt: "{{ env.MODE }}" }\n`,
    );
    const before = await sb.deps().store.listNames();
    const done = await run({ file }, { MODE: "fake:reply y" });
    expect(done.result).toMatchObject({ status: "done", exitCode: 0 });
    const made = readState(done.result).sessions;
    expect(made).toHaveLength(2);
    expect(done.result.purged?.sort()).toEqual([...made].sort());
    expect(await sb.deps().store.listNames()).toEqual(before);

    const failed = await run({ file }, { MODE: "fake:error" });
    expect(failed.result).toMatchObject({ status: "failed" });
    expect(failed.result.purged).toBeUndefined();
    await expectAllKilled(readState(failed.result));
    // Resumed to success: every worker of the run goes, the failed attempt's evidence too.
    const resumed = await run({ resume: failed.result.runId }, { MODE: "fake:reply mended" });
    expect(resumed.result).toMatchObject({ status: "done", exitCode: 0 });
    expect(await sb.deps().store.listNames()).toEqual(before);

    const kept = await run({ file, keep: true }, { MODE: "fake:reply y" });
    expect(kept.result.purged).toBeUndefined();
    await expectAllKilled(readState(kept.result));
  }, 90_000);

  test("a declared file output that was not written fails the step", async () => {
    const file = write(
      "missing.yaml",
      `workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: hi, outputs: { f: "file:nope.md" } }\n`,
    );
    const { result } = await run({ file });
    expect(result).toMatchObject({
      status: "failed",
      exitCode: 1,
      failure: { step: "s", outcome: "missing-output" },
    });
    expect(result.failure?.message).toContain(join(sb.work, "nope.md"));
  }, 60_000);

  test("a file output that resolves outside the worker's cwd (a symlink) fails the step; one inside is read", async () => {
    const cwd = join(sb.work, "links");
    mkdirSync(cwd);
    writeFileSync(join(sb.work, "secret.txt"), "SECRET");
    writeFileSync(join(cwd, "real.txt"), "REAL");
    symlinkSync(join(sb.work, "secret.txt"), join(cwd, "out.txt"));
    symlinkSync(join(cwd, "real.txt"), join(cwd, "in.txt"));
    symlinkSync(cwd, join(sb.work, "links-alias"));
    const file = write(
      "escape.yaml",
      `workers: { a: { cwd: ./links-alias } }
steps:
  - { id: ok, run: a, prompt: hi, outputs: { f: "file:in.txt" } }
  - { id: s, run: a, needs: [ok], prompt: "{{ steps.ok.outputs.f }}", outputs: { f: "file:out.txt" } }
`,
    );
    const { result } = await run({ file });
    expect(result.outputs).toEqual({ ok: { f: "REAL" } });
    expect(result).toMatchObject({
      status: "failed",
      exitCode: 1,
      failure: { step: "s", outcome: "output-outside-cwd" },
    });
    expect(result.failure?.message).toBe(
      `output f: file:out.txt is ${realpathSync(join(sb.work, "secret.txt"))}, outside the worker's cwd ${realpathSync(cwd)}; a file output must stay inside it`,
    );
    expect(JSON.stringify(result)).not.toContain("SECRET");
  }, 60_000);

  test("a workflow file over the size limit is refused before it is read", async () => {
    const file = write("huge.yaml", `# ${"x".repeat(WORKFLOW_LIMITS.bytes)}\n`);
    const error = await runWorkflow(sb.deps(), { file, dryRun: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      `huge.yaml:1:1: the file is larger than ${WORKFLOW_LIMITS.bytes} bytes, the limit for a workflow (docs/workflows.md#limits)`,
    );
    const endless = await runWorkflow(sb.deps(), { file: "/dev/zero", dryRun: true }).catch(
      (e: unknown) => e,
    );
    expect((endless as Error).message).toStartWith("/dev/zero:1:1: the file is larger than");
  }, 60_000);

  test("--dry-run validates and plans without spawning anything or writing run state", async () => {
    const file = write(
      "plan.yaml",
      `workers: { a: {}, b: { cwd: . } }\nsteps:\n  - { id: x, run: a, prompt: "hi {{ env.WHO }}", outputs: { o: answer } }\n  - { id: y, run: b, needs: [x], prompt: "{{ steps.x.outputs.o }}" }\n`,
    );
    const sessions = await sb.deps().store.listNames();
    const runs = existsSync(join(sb.root, "workflows")) ? readdirSync(join(sb.root, "workflows")) : [];
    const plan = (await runWorkflow(
      { ...sb.deps(), env: { ...sb.env, WHO: "you" } },
      { file, dryRun: true },
    )) as WorkflowPlan;
    expect(plan.dryRun).toBe(true);
    expect(plan.waves.map((w) => w.map((s) => [s.id, s.prompt]))).toEqual([
      [["x", "hi you"]],
      [["y", "{{ steps.x.outputs.o }}"]],
    ]);
    expect(plan.workers.b?.cwd).toBe(sb.work);
    expect(await sb.deps().store.listNames()).toEqual(sessions);
    expect(existsSync(join(sb.root, "workflows")) ? readdirSync(join(sb.root, "workflows")) : []).toEqual(
      runs,
    );
  }, 60_000);

  test("a missing cwd or env variable is a positioned error before anything is spawned", async () => {
    const file = write(
      "bad-env.yaml",
      `workers:\n  a: { cwd: ./nowhere }\nsteps:\n  - { id: x, run: a, prompt: "{{ env.UNSET_X }}" }\n`,
    );
    const error = await runWorkflow(sb.deps(), { file }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(
      "bad-env.yaml:4:31: steps[0].prompt: {{ env.UNSET_X }}: UNSET_X is not set",
    );
    const again = await runWorkflow({ ...sb.deps(), env: { ...sb.env, UNSET_X: "1" } }, { file }).catch(
      (e: unknown) => e,
    );
    expect((again as Error).message).toBe(
      `bad-env.yaml:2:13: workers.a.cwd: ${join(sb.work, "nowhere")} is not a directory`,
    );
  }, 60_000);
});
