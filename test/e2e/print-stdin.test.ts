import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

setDefaultTimeout(60_000);

/**
 * `producer | umbel -p`: while a producer is still writing stdin, an anonymous worker's TUI boots
 * (its start overlaps the producer's); a prompt that turns out blank unwinds it, exit 2 as ever.
 */
let sb: Sandbox;
beforeAll(async () => {
  // Every dialect on claude's worker (a dialect's own default provider: default-provider.test.ts).
  sb = await createSandbox({ env: { UMBEL_PROVIDER: "claude" } });
});
afterAll(async () => {
  await sb.dispose();
});

/** umbel -p whose stdin arrives `delayMs` after the start, through a pipe. */
async function slowStdin(args: string[], text: string, delayMs: number) {
  const child = Bun.spawn([UMBEL, ...args], {
    cwd: sb.work,
    env: { ...sb.env, UMBEL_TRACE: "1" },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const writing = (async () => {
    await Bun.sleep(delayMs); // the producer is slow on purpose
    child.stdin.write(text);
    await child.stdin.end();
  })();
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
    writing,
  ]);
  return { stdout, stderr, code };
}

const sessions = () => readdirSync(join(sb.root, "sessions"));

describe("umbel -p with a slow stdin", () => {
  test("the worker starts while stdin is still coming; the turn is stdin's", async () => {
    const r = await slowStdin(["-p"], "fake:reply from a slow producer\n", 1500);
    expect(r.stdout).toBe("from a slow producer\n");
    const marks = r.stderr.split("\n");
    const started = marks.findIndex((m) => m.includes("new-session"));
    const read = marks.findIndex((m) => m.includes("stdin: 32 chars, read while the worker started"));
    expect(started).toBeGreaterThan(-1);
    expect(read).toBeGreaterThan(started);
    expect(r.code).toBe(0);
    expect(sessions()).toEqual([]);
  });

  test("a blank prompt that comes late: exit 2 with the usual message, the worker unwound", async () => {
    const r = await slowStdin(["-p"], "   \n", 1000);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("no prompt: give it as an argument or on stdin");
    expect(r.code).toBe(2);
    expect(sessions()).toEqual([]);
  });
});

describe("every dialect overlaps a slow stdin with the worker's start", () => {
  test.each([
    [
      "gemini -p",
      ["-p", "--dialect", "gemini"],
      "fake:reply gemini's slow producer\n",
      "gemini's slow producer\n",
    ],
    ["codex exec", ["exec"], "fake:reply codex's slow producer\n", "codex's slow producer\n"],
  ])("%s", async (_dialect, args, text, answer) => {
    const r = await slowStdin(args, text, 1500);
    expect(r.stdout).toBe(answer);
    const marks = r.stderr.split("\n");
    const started = marks.findIndex((m) => m.includes("new-session"));
    const read = marks.findIndex((m) => m.includes("read while the worker started"));
    expect(started).toBeGreaterThan(-1);
    expect(read).toBeGreaterThan(started);
    expect(r.code).toBe(0);
    expect(sessions()).toEqual([]);
  });

  test("codex exec: a blank prompt that comes late is exit 2, the worker unwound", async () => {
    const r = await slowStdin(["exec"], "  \n", 1000);
    expect(r.stdout).toBe("");
    expect(r.code).toBe(2);
    expect(sessions()).toEqual([]);
  });
});
