import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

/** `umbel -p` through the fake claude: argv/stdin prompts, text/json, warm sessions, cleanup. */

const sha12 = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12);
const sessions = (sb: Sandbox) => {
  try {
    return readdirSync(join(sb.root, "sessions"));
  } catch {
    return [];
  }
};

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

describe("umbel -p", () => {
  test("text: prints the answer and purges the anonymous worker", async () => {
    const r = await sb.umbel(["-p", "hello from -p"]);
    expect(r.stdout).toBe(`FAKE-REPLY len=13 sha=${sha12("hello from -p")} head=hello from -p\n`);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(sessions(sb)).toEqual([]);
  });

  test("json: claude's result keys plus umbel's", async () => {
    const r = await sb.umbel(["-p", "fake:reply json answer", "--output-format", "json"]);
    const result = JSON.parse(r.stdout);
    expect(Object.keys(result).sort()).toEqual(
      ["duration_ms", "is_error", "num_turns", "result", "session_id", "subtype", "type", "umbel"].sort(),
    );
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "json answer",
    });
    expect(typeof result.session_id).toBe("string");
    expect(result.num_turns).toBeGreaterThanOrEqual(1);
    expect(result.umbel).toMatchObject({ provider: "claude", outcome: "stop", exitCode: 0 });
    expect(r.code).toBe(0);
  });

  test("the prompt from stdin, and argv then stdin", async () => {
    const piped = await sb.umbel(["-p"], { stdin: "from stdin\n" });
    expect(piped.stdout).toContain(`sha=${sha12("from stdin")}`);
    const both = await sb.umbel(["-p", "from argv"], { stdin: "and stdin" });
    expect(both.stdout).toContain(`sha=${sha12("from argv\nand stdin")}`);
  });

  test("no prompt is a usage error", async () => {
    const r = await sb.umbel(["-p"]);
    expect(r.stderr).toContain("no prompt");
    expect(r.code).toBe(2);
  });

  test("a provider error: exit 122, one line on stderr, is_error in json", async () => {
    const r = await sb.umbel(["-p", "fake:error", "--output-format", "json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({ is_error: true, subtype: "error_during_execution" });
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("API Error: 500");
    expect(r.code).toBe(122);
    expect(sessions(sb)).toEqual([]);
  });

  test("--name keeps a warm worker that remembers; --resume continues it", async () => {
    const first = await sb.umbel(["-p", "fake:history", "--name", "warm"]);
    expect(first.stdout).toBe("HISTORY n=0 last=none\n");
    const second = await sb.umbel(["-p", "fake:history", "--resume", "warm"]);
    expect(second.stdout).toBe(`HISTORY n=1 last=${sha12("fake:history")}\n`);
    expect(sessions(sb)).toContain("warm");
    expect((await sb.umbel(["-p", "x", "--resume", "missing"])).code).toBe(3);
    await sb.umbel(["kill", "warm"]);
    const dead = await sb.umbel(["-p", "again", "--name", "warm"]);
    expect(dead.stderr).toContain("killed");
    expect(dead.code).toBe(125);
    await sb.umbel(["kill", "warm", "--purge"]);
  });

  test("SIGINT aborts with 130 and leaves no worker", async () => {
    const child = Bun.spawn([UMBEL, "-p", "fake:hang"], {
      cwd: sb.work,
      env: sb.env,
      stdout: "pipe",
      stderr: "pipe",
    });
    await eventually(
      () =>
        sessions(sb).length > 0 &&
        readdirSync(join(sb.root, "sessions", sessions(sb)[0] ?? "")).includes("meta.json"),
    );
    await eventually(
      async () => (await sb.umbel(["ls", "--json"])).stdout.includes('"state":"busy"'),
      10_000,
      "busy",
    );
    child.kill("SIGINT");
    expect(await child.exited).toBe(130);
    expect(sessions(sb)).toEqual([]);
  });
});
