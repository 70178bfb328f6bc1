import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WorkflowEvent } from "../../src/core/workflow/state.ts";
import { runWorkflow } from "../../src/operations/workflow/run.ts";
import { jobPodSpec } from "../helpers/kubernetes.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

setDefaultTimeout(60_000);

/**
 * deploy/kubernetes/shards.yaml's pod reads its shard's summary.jsonl to skip a done run and resume
 * one that is not: here it reads the lines the real runner writes (`umbel run --json` prints each
 * event as JSON.stringify does), from a run of the fake claude that finishes and one that fails.
 */

const DIR = join(import.meta.dir, "..", "..", "deploy", "kubernetes");
type Container = { name: string; args: string[] };
const script =
  jobPodSpec<{ containers: Container[] }>(DIR, "shards.yaml")
    .containers.find((c) => c.name === "umbel")
    ?.args.at(-1) ?? "";

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await createSandbox();
  dir = mkdtempSync(join(tmpdir(), "umbel-shards-"));
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "umbel"), `#!/bin/sh\necho "$*" >>'${join(dir, "umbel.log")}'\n`);
  chmodSync(join(dir, "bin", "umbel"), 0o755);
  writeFileSync(join(dir, "token"), "sk-ant-oat01-shard");
});
afterAll(async () => {
  await sb.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** The --json lines of a real run of `steps` on the fake claude. */
async function jsonLines(name: string, step: string): Promise<{ runId: string; lines: string }> {
  writeFileSync(join(sb.work, name), `workers:\n  a: {}\nsteps:\n  - id: one\n    run: a\n${step}`);
  const events: WorkflowEvent[] = [];
  const summary = await runWorkflow({ ...sb.deps(), env: sb.env }, { file: name }, (e) => events.push(e));
  return {
    runId: (summary as { runId: string }).runId,
    lines: events.map((e) => `${JSON.stringify(e)}\n`).join(""),
  };
}

function pod(summaryJsonl: string): string {
  const results = mkdtempSync(join(dir, "results-"));
  writeFileSync(join(results, "summary.jsonl"), summaryJsonl);
  rmSync(join(dir, "umbel.log"), { force: true });
  const run = Bun.spawnSync(["sh", "-c", script], {
    cwd: results,
    env: {
      PATH: `${join(dir, "bin")}:${process.env.PATH}`,
      TOKEN_FILE: join(dir, "token"),
      JOB_COMPLETION_INDEX: "0",
    },
  });
  expect(run.exitCode).toBe(0);
  try {
    return readFileSync(join(dir, "umbel.log"), "utf8");
  } catch {
    return "";
  }
}

describe("shards.yaml's pod on a real run's --json lines", () => {
  test("a run that finished is not run again", async () => {
    const { lines } = await jsonLines("done.yaml", '    prompt: "fake:reply done"\n');
    expect(lines).toContain('"status":"done"');
    expect(pod(lines)).toBe("");
  });

  test("a run that failed is resumed by its id", async () => {
    const { runId, lines } = await jsonLines(
      "failed.yaml",
      '    prompt: "fake:reply no file"\n    outputs: { x: "file:missing.txt" }\n',
    );
    expect(lines).toContain('"status":"failed"');
    expect(pod(lines)).toBe(`run --resume ${runId} --json\n`);
  });
});
