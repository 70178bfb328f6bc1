import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { runMain } from "../../src/entry.ts";
import { checkCase, type FuzzCase, generateCases, mayLaunch } from "../helpers/argv-fuzz.ts";
import { createSandbox, REPO, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * The argv fuzz, in-process: 2,000 seeded cases through runMain (main.ts's whole path but the
 * process), each checked by the oracle in test/helpers/argv-fuzz.ts. Every agent CLI is the
 * recorder, so a case that starts a turn it should not is seen. A sample also runs through
 * dist/umbel (test/e2e/argv-fuzz.test.ts).
 */
const SEED = 0x11a7;
const COUNT = 2000;
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
const launches = () => {
  try {
    return readFileSync(launchLog(), "utf8").split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
};
const sessions = () => {
  try {
    return readdirSync(join(sb.root, "sessions"));
  } catch {
    return [];
  }
};

async function runInProcess(c: FuzzCase) {
  let stdout = "";
  let stderr = "";
  const before = launches();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      stdout += String(chunk);
      done();
    },
  });
  const code = await runMain(c.argv, {
    env: sb.env,
    cwd: sb.work,
    signal: new AbortController().signal,
    version: "0.0.0-fuzz",
    out: (text) => {
      stdout += text;
    },
    err: (text) => {
      stderr += text;
    },
    readStdin: async () => c.stdin ?? "",
    stdinIsTty: c.stdin === null,
    stdoutIsTty: false,
    columns: 80,
    stdin: Readable.from([]), // `umbel mcp` serves until stdin ends: at once
    stdout: sink,
  });
  return { code, stdout, stderr, launches: launches() - before, sessions: sessions() };
}

describe("argv fuzz (in-process)", () => {
  test(
    `${COUNT} seeded cases: no stack trace, documented codes, clean stdout, no stray launch or worker`,
    async () => {
      writeFileSync(launchLog(), "");
      const cases = generateCases(SEED, COUNT);
      const started = performance.now();
      const codes = new Map<number, number>();
      let launched = 0;
      for (const c of cases) {
        const r = await runInProcess(c);
        checkCase(c, r);
        codes.set(r.code, (codes.get(r.code) ?? 0) + 1);
        launched += r.launches;
      }
      const ms = Math.round(performance.now() - started);
      // The mix is part of the test: usage errors dominate, and some cases reach each layer.
      expect(codes.get(2)).toBeGreaterThan(COUNT / 3);
      expect(codes.get(0)).toBeGreaterThan(20);
      expect(codes.get(3)).toBeGreaterThan(20);
      expect(cases.filter((c) => mayLaunch(c.argv)).length).toBeGreaterThan(50);
      expect(await sb.deps().tmux.listSessions()).toEqual([]);
      console.log(
        `argv fuzz: ${COUNT} cases in ${ms} ms (${(ms / COUNT).toFixed(1)} ms/case); ${launched} launches; codes ${JSON.stringify(Object.fromEntries([...codes].sort((a, b) => a[0] - b[0])))}`,
      );
    },
    { timeout: 120_000 },
  );
});
