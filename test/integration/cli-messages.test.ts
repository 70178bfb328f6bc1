import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runInProcess } from "../helpers/run-main.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * Usage errors as a person reads them (issue 21, item 6), through runMain in-process: a positional
 * is named as the synopsis names it (NAME, not --name), an enum value or a verb that is a near miss
 * gets "did you mean", and `umbel help VERB` is that verb's help. None of these reaches tmux.
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const run = (argv: string[], stdin: string | null = null) => runInProcess(sb, argv, { stdin });

describe("positionals are named as the synopsis names them", () => {
  test.each([
    [["spawn", "W1"], "umbel: NAME: a worker name is 1-63 of a-z 0-9 - and starts with a letter or digit\n"],
    [["send", "w1", " "], "umbel: PROMPT: the prompt is empty\n"],
    [["keys", "w1", "Up", "Nope"], 'umbel: KEYS: unknown key name "Nope"'],
    [["wait"], "umbel: NAME: give a worker name"],
    [["pool", "frob"], 'umbel: ACTION: "frob" is not one of warm, ls, drain\n'],
    [["pool", "warn"], 'umbel: ACTION: "warn" is not one of warm, ls, drain; did you mean warm?\n'],
  ])("%j", async (argv, message) => {
    const r = await run(argv);
    expect(r.stderr).toStartWith(message);
    expect(r.stderr).not.toContain("--name:");
    expect(r.code).toBe(2);
  });
});

describe("an enum value that is a near miss gets did you mean", () => {
  test.each([
    [
      ["spawn", "w1", "--provider", "claud"],
      'umbel: --provider: "claud" is not one of claude, codex, gemini, opencode; did you mean claude?\n',
    ],
    [
      ["spawn", "w1", "--permission-mode", "acceptedits"],
      'umbel: --permission-mode: "acceptedits" is not one of default, manual, auto, acceptEdits, plan, bypassPermissions, dontAsk; did you mean acceptEdits?\n',
    ],
    [
      ["-p", "--output-format", "yaml", "hi"],
      'umbel: --output-format: "yaml" is not one of text, json, stream-json\n',
    ],
    [
      ["-p", "--output-format", "jsn", "hi"],
      'umbel: --output-format: "jsn" is not one of text, json, stream-json; did you mean json?\n',
    ],
  ])("%j", async (argv, message) => {
    const r = await run(argv);
    expect(r.stderr).toBe(message);
    expect(r.code).toBe(2);
  });

  test("a workflow's provider: names file:line:col and the near miss", async () => {
    const file = join(sb.work, "typo.yaml");
    writeFileSync(file, "workers:\n  a: { provider: claud }\nsteps:\n  - { id: s, run: a, prompt: hi }\n");
    const r = await run(["run", file, "--dry-run"]);
    expect(r.stderr).toContain(
      'typo.yaml:2:18: workers.a.provider: "claud" is not one of claude, codex, gemini, opencode; did you mean claude?',
    );
    expect(r.code).toBe(2);
  });
});

describe("commands", () => {
  test.each([
    [["spwan", "w1"], "umbel: unknown command: spwan; did you mean spawn? (see umbel --help)\n"],
    [["stauts"], "umbel: unknown command: stauts; did you mean status? (see umbel --help)\n"],
    [["bogus"], "umbel: unknown command: bogus (see umbel --help)\n"],
    [
      ["spawn", "w1", "--provder", "codex"],
      "umbel: unknown flag --provder; did you mean --provider? (see --help)\n",
    ],
    [["spawn", "w1", "--bogus"], "umbel: unknown flag --bogus (see --help)\n"],
    [
      ["spawn", "w1", "--permissionmode", "plan"],
      "umbel: unknown flag --permissionmode; did you mean --permission-mode? (see --help)\n",
    ],
    [["help", "spwan"], "umbel: unknown command: spwan; did you mean spawn? (see umbel --help)\n"],
  ])("%j", async (argv, message) => {
    const r = await run(argv);
    expect(r.stderr).toBe(message);
    expect(r.code).toBe(2);
  });

  test.each([["spawn"], ["pool"], ["run"], ["exec"], ["mcp"]])(
    "umbel help %s is umbel %s --help",
    async (command) => {
      const help = await run(["help", command]);
      const own = await run([command, "--help"]);
      expect(help.stderr).toBe("");
      expect(help.stdout).toBe(own.stdout);
      expect(help.stdout).toContain("Usage");
      expect(help.code).toBe(0);
    },
  );

  test("umbel help alone is the top-level help", async () => {
    const r = await run(["help"]);
    expect(r.stdout).toBe((await run(["--help"])).stdout);
    expect(r.stdout).toContain("Commands:");
    expect(r.code).toBe(0);
  });
});
