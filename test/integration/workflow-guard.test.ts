import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RunSummary } from "../../src/core/workflow/state.ts";
import { runWorkflow } from "../../src/operations/workflow/run.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds (a preload's setDefaultTimeout reaches only the first file).
setDefaultTimeout(90_000);

/**
 * A workflow's steps with guardrails, on real tmux with the fake claude (the operations, not the
 * binary): `schema:` with structured.PATH outputs (the worker is made --structured because a step
 * of it has a schema), and `accept:` checks that feed back until they pass, or fail the run (121).
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

async function run(yaml: string): Promise<RunSummary> {
  writeFileSync(join(sb.work, "wf.yaml"), yaml);
  return (await runWorkflow(sb.deps(), { file: "wf.yaml" }, () => undefined)) as RunSummary;
}

const WANTS_GOOD = `grep -q GOOD "$UMBEL_ANSWER_FILE" || { printf 'fake:%s GOOD\\n' reply; exit 1; }`;

test("schema: outputs name paths in the object; accept: the feedback turn makes the step pass", async () => {
  const summary = await run(`workers: { a: {} }
steps:
  - id: plan
    run: a
    prompt: 'fake:mcp StructuredOutput {"plan":"p1","n":2}'
    schema: { type: object, properties: { plan: { type: string }, n: { type: number } }, required: [plan] }
    outputs: { plan: structured.plan, n: structured.n, all: structured }
  - id: build
    run: a
    needs: [plan]
    prompt: "build {{ steps.plan.outputs.plan }}"
    accept: ${JSON.stringify(WANTS_GOOD)}
    outputs: { text: answer }
`);
  expect(summary).toMatchObject({ status: "done", exitCode: 0 });
  expect(summary.outputs).toEqual({
    plan: { plan: "p1", n: "2", all: '{"plan":"p1","n":2}' },
    build: { text: "GOOD" },
  });
});

test("a check that never passes fails the run: rejected (121), every attempt in the failure's evidence", async () => {
  const summary = await run(`workers: { a: {} }
steps:
  - id: only
    run: a
    prompt: try
    accept: "echo still wrong; exit 1"
    maxAttempts: 2
`);
  expect(summary).toMatchObject({
    status: "failed",
    exitCode: 121,
    failure: { step: "only", outcome: "rejected", exitCode: 121 },
  });
  expect(summary.failure?.evidence.attempts).toHaveLength(2);
});
