import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDeps } from "../../src/adapters/deps.ts";
import { FileAccessError } from "../../src/core/errors.ts";
import type { Deps } from "../../src/core/ports.ts";
import { planWorktree } from "../../src/operations/fleet/worktree.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Declared here: a preload's setDefaultTimeout reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * Issue 22 ("smaller"): links planted in the state root were followed by umbel's writes — guards/,
 * worktrees/, workflows/, the StructuredOutput log. umbel writes only into what it made: each link
 * is refused with a FileAccessError naming it, and its target is untouched.
 */

let sb: Sandbox;
let deps: Deps;
let elsewhere: string;
beforeEach(async () => {
  sb = await createSandbox();
  deps = createDeps(sb.env, { cwd: sb.work });
  elsewhere = join(sb.dir, "elsewhere");
  mkdirSync(elsewhere);
  mkdirSync(join(sb.root, "sessions", "w1", "events"), { recursive: true });
});
afterEach(async () => {
  await sb.dispose();
});

async function refused(run: Promise<unknown>, path: string) {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileAccessError);
  expect((error as FileAccessError).message).toContain(`${path}: it is a symbolic link`);
  expect(readdirSync(elsewhere)).toEqual([]);
}

const record = {
  version: 1 as const,
  baseline: 3,
  accept: ["true"],
  maxAttempts: 3,
  acceptTimeoutMs: 1000,
  jsonSchema: null,
  phase: "turn" as const,
  turns: [],
  attempts: [],
  enforced: false,
};

describe("a link planted where umbel keeps its own", () => {
  test("guards/: a guard record is refused", async () => {
    const guards = join(sb.root, "sessions", "w1", "guards");
    symlinkSync(elsewhere, guards);
    await refused(deps.guards.write("w1", record as never), guards);
  });

  test("events/structured.jsonl: a StructuredOutput call is not appended through it", async () => {
    const target = join(elsewhere, "victim");
    symlinkSync(target, join(sb.root, "sessions", "w1", "events", "structured.jsonl"));
    const error = await deps.guards
      .appendStructured("w1", { baseline: 1, ok: true, object: {} } as never)
      .catch((e) => e);
    expect(error).toBeInstanceOf(FileAccessError);
    expect(existsSync(target)).toBe(false);
  });

  test("workflows/: a run is refused before anything is written", async () => {
    const workflows = join(sb.root, "workflows");
    symlinkSync(elsewhere, workflows);
    await refused(deps.runs.create("20250101-000000-abcdef", "steps: []\n"), workflows);
  });

  test("worktrees/: spawn --worktree is refused before git makes anything", async () => {
    const repo = join(sb.work, "repo");
    mkdirSync(repo);
    Bun.spawnSync(["git", "init", "-q", repo]);
    writeFileSync(join(repo, "f"), "x");
    const worktrees = join(sb.root, "worktrees");
    symlinkSync(elsewhere, worktrees);
    await refused(planWorktree(deps, "w1", repo, undefined), worktrees);
    expect(readFileSync(join(repo, "f"), "utf8")).toBe("x");
  });
});
