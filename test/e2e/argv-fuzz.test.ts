import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkCase, generateCases } from "../helpers/argv-fuzz.ts";
import { createSandbox, REPO, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * The argv fuzz through the real binary: every 25th of the in-process cases
 * (test/integration/argv-fuzz.test.ts), so what only a process shows (Bun's own warnings on stderr,
 * an uncaught error, the exit status) is checked by the same oracle.
 */
const SEED = 0x11a7;
const COUNT = 2000;
const EVERY = 25;
const RECORDER = join(REPO, "test", "fixtures", "fake-recorder.sh");

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({
    env: { UMBEL_CLAUDE_BIN: RECORDER, UMBEL_CODEX_BIN: RECORDER, UMBEL_GEMINI_BIN: RECORDER },
  });
});
afterAll(async () => {
  await sb.dispose();
});

const launchLog = () => join(sb.env.HOME ?? "", "umbel-launches.log");
const launches = () => readFileSync(launchLog(), "utf8").split("\n").filter(Boolean).length;
const sessions = () => {
  try {
    return readdirSync(join(sb.root, "sessions"));
  } catch {
    return [];
  }
};

describe("argv fuzz (dist/umbel)", () => {
  test(
    `every ${EVERY}th of ${COUNT} seeded cases through the binary`,
    async () => {
      writeFileSync(launchLog(), "");
      const sample = generateCases(SEED, COUNT).filter((_, i) => i % EVERY === 0);
      const started = performance.now();
      for (const c of sample) {
        const before = launches();
        const r = await sb.umbel([...c.argv], c.stdin === null ? {} : { stdin: c.stdin });
        checkCase(c, { ...r, launches: launches() - before, sessions: sessions() });
      }
      const ms = Math.round(performance.now() - started);
      expect(await sb.deps().tmux.listSessions()).toEqual([]);
      console.log(
        `argv fuzz: ${sample.length} cases through dist/umbel in ${ms} ms (${Math.round(ms / sample.length)} ms/case)`,
      );
    },
    { timeout: 120_000 },
  );
});
