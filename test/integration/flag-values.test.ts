import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { runInProcess } from "../helpers/run-main.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Declared here: a preload's setDefaultTimeout reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * Issue 22 ("smaller"): `spawn --base -h` and `--base --help` printed spawn's help and exited 0,
 * spawning nothing while the caller asked for a spawn. A flag's value that looks like a flag is a
 * usage error saying how to give it (`--base=-h`); -h and --help count only as flags, never as a
 * value or after `--`.
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const run = (argv: string[]) => runInProcess(sb, argv);

describe("a flag's value that looks like a flag", () => {
  test.each([
    [["spawn", "w1", "--worktree", "--base", "-h"], "--base"],
    [["spawn", "w1", "--worktree", "--base", "--help"], "--base"],
    [["spawn", "w1", "--model", "-h"], "--model"],
    [["send", "w1", "--accept", "--help"], "--accept"],
    [["run", "flow.yaml", "--resume", "-h"], "--resume"],
  ])("%j is a usage error naming %s, no help, nothing spawned", async (argv, flag) => {
    const r = await run(argv);
    expect(r.stdout).not.toContain("Usage:");
    expect(r.stderr).toContain(`${flag} takes a value`);
    expect(r.stderr).toContain(`${flag}=`);
    expect(r.code).toBe(2);
    expect(existsSync(join(sb.root, "sessions", "w1"))).toBe(false);
  });

  test("the value given with = is taken as it is", async () => {
    const r = await run(["spawn", "w1", "--worktree", "--base=-h"]);
    expect(r.stdout).not.toContain("Usage:");
    expect(r.stderr).toContain("is not in a git repository");
    expect(r.code).toBe(2);
  });

  test("a negative number and - stay values", async () => {
    const r = await run(["capture", "w1", "--lines", "-5"]);
    expect(r.stderr).not.toContain("takes a value");
  });

  test("--help and -h as flags still print the verb's help", async () => {
    for (const argv of [
      ["spawn", "--help"],
      ["spawn", "w1", "-h"],
      ["spawn", "w1", "--model", "x", "--help"],
    ]) {
      const r = await run(argv);
      expect(r.stdout).toStartWith("Usage: umbel spawn");
      expect(r.code).toBe(0);
    }
  });

  test("after --, -h is a positional, not a request for help", async () => {
    const r = await run(["send", "w1", "--", "-h"]);
    expect(r.stdout).not.toContain("Usage:");
    expect(r.stderr).toContain("no worker named w1");
    expect(r.code).toBe(3);
  });
});
