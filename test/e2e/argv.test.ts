import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnOk } from "../helpers/cli.ts";
import { createSandbox, REPO, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * What adversarial argv found (issue 11), through dist/umbel: -p anywhere made any verb a billed
 * turn; huge durations overflowed Bun's timers; a blank prompt failed only after 4.7 s; unknown key
 * names were typed as text; bare `umbel` said nothing on stderr.
 */

const RECORDER = join(REPO, "test", "fixtures", "fake-recorder.sh");

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
  await spawnOk(sb, "w1");
});
afterAll(async () => {
  await sb.dispose();
});

/** Runs umbel with every agent CLI replaced by the recorder; returns the result and its launches. */
async function recorded(args: string[], stdin?: string) {
  const log = join(sb.env.HOME ?? "", "umbel-launches.log");
  writeFileSync(log, "");
  const bins = { UMBEL_CLAUDE_BIN: RECORDER, UMBEL_CODEX_BIN: RECORDER, UMBEL_GEMINI_BIN: RECORDER };
  const r = await sb.umbel(args, { env: bins, ...(stdin === undefined ? {} : { stdin }) });
  const launches = readFileSync(log, "utf8").split("\n").filter(Boolean);
  return { ...r, launches };
}

/** A usage error: one line on stderr, nothing on stdout, exit 2. */
function expectUsage(r: { code: number; stdout: string; stderr: string }, message: string) {
  expect(r.stdout).toBe("");
  expect(r.stderr).toContain(message);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(r.code).toBe(2);
}

describe("-p is a face only before any command", () => {
  test.each([
    [["kill", "w9", "--print"], "unknown flag --print"],
    [["send", "w9", "-p"], "unknown flag -p"],
    [["keys", "w9", "Enter", "-p"], "unknown flag -p"],
  ])("%j is the verb's usage error, and starts no turn", async (args, message) => {
    const r = await recorded(args);
    expectUsage(r, message);
    expect(r.launches).toEqual([]);
  });

  test("`send w9 -- -p` sends the prompt -p (to no worker: exit 3), and starts no turn", async () => {
    const r = await recorded(["send", "w9", "--", "-p"]);
    expect(r.stderr).toBe("umbel: no worker named w9\n");
    expect(r.code).toBe(3);
    expect(r.launches).toEqual([]);
  });

  test("`spawn x --model -p` is spawn's business, never a -p turn", async () => {
    const r = await recorded(["spawn", "x", "--model", "-p"]);
    expect(r.launches.every((argv) => !argv.includes("spawn x"))).toBe(true);
    expect(r.code).toBe(2);
  });

  test("flags before -p are claude -p's: `--model sonnet -p hi` is a -p turn", async () => {
    const r = await recorded(["--model", "sonnet", "-p", "hi"]);
    expect(r.launches).toHaveLength(1);
    expect(r.launches[0]).toContain("--model sonnet");
    expect(r.code).toBe(1); // the recorder exits at once: spawn failed
  });

  test("`--model -p hi`: -p taken as --model's value is no print flag", async () => {
    const r = await recorded(["--model", "-p", "hi"]);
    expectUsage(r, "-p/--print");
    expect(r.launches).toEqual([]);
  });
});

describe("bad input is a usage error at once", () => {
  test("bare umbel: why, on stderr; stdout carries only results", async () => {
    const r = await sb.umbel([]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("umbel: no command given (see umbel --help)\n");
    expect(r.code).toBe(2);
  });

  test.each([
    [["wait", "w1", "--timeout", "99999999h"]],
    [["wait", "w1", "--idle-timeout", "2147484s"]],
    [["spawn", "w2", "--start-timeout", "1e400s"]],
    [["wait", "w1", "--timeout", "9".repeat(400)]],
    [["-p", "hi", "--timeout", "2147484s"]],
  ])("%j: a duration past the maximum", async (args) => {
    const r = await recorded(args);
    expect(r.stderr).not.toContain("TimeoutOverflowWarning");
    expect(r.stderr).toMatch(/at most 168h \(7 days\)|not a duration/);
    expectUsage(r, "umbel: ");
    expect(r.launches).toEqual([]);
  });

  test.each([["\t"], [""], ["  \n "]])(
    "send w1 %j: a blank prompt, refused before anything is typed",
    async (prompt) => {
      const started = Date.now();
      const r = await sb.umbel(["send", "w1", prompt]);
      expectUsage(r, "the prompt is empty");
      expect(Date.now() - started).toBeLessThan(2000); // it used to fail after 4.7 s of re-Enters
    },
  );

  test("send w1 with a blank stdin", async () => {
    expectUsage(await sb.umbel(["send", "w1"], { stdin: " \n\t\n" }), "the prompt is empty");
  });

  test("-p with a blank prompt", async () => {
    const r = await recorded(["-p", "\t"]);
    expectUsage(r, "no prompt: give it as an argument or on stdin");
    expect(r.launches).toEqual([]);
  });

  test("a workflow step with a blank prompt", async () => {
    const file = join(sb.work, "blank.yaml");
    writeFileSync(file, 'workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: " " }\n');
    const r = await recorded(["run", file, "--dry-run"]);
    expect(r.stderr).toContain("steps[0].prompt: the prompt is empty");
    expect(r.code).toBe(2);
    expect(r.launches).toEqual([]);
  });

  test("keys: an unknown key name is refused (nothing typed), the names are listed", async () => {
    const r = await sb.umbel(["keys", "w1", "NoSuchKey"]);
    expectUsage(r, 'unknown key name "NoSuchKey"');
    expect(r.stderr).toContain("Enter, Escape");
    expect(r.stderr).toContain("--literal");
    expect((await sb.umbel(["capture", "w1"])).stdout).not.toContain("NoSuchKey");
    const sent = await sb.umbel(["send", "w1", "fake:reply still fine"]);
    expect(sent.stderr).toBe("");
    expect(sent.code).toBe(0);
  });

  test.each([
    [["keys", "w1", "Enter", "--bogus=1"], "unknown flag --bogus"],
    [["logs", "w1", "--bogus"], "unknown flag --bogus"],
    [["logs", "w1", "--follow=2"], "--follow takes no value"],
  ])("%j: an unknown flag", async (args, message) => {
    expectUsage(await sb.umbel(args), message);
  });
});
