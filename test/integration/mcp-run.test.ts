import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { connectMcp, errorOf } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/** umbel_run over MCP: the workflow runner behind the same schema as `umbel run`. */
let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

describe("umbel_run", () => {
  test("dry run returns the plan; a run returns the outputs", async () => {
    const file = join(sb.work, "flow.yaml");
    await Bun.write(
      file,
      "workers:\n  w: {}\nsteps:\n  - id: a\n    run: w\n    prompt: 'fake:reply alpha'\n    outputs: { said: answer }\n  - id: b\n    run: w\n    needs: [a]\n    prompt: 'fake:reply {{ steps.a.outputs.said }} beta'\n    outputs: { said: answer }\n",
    );
    const mcp = await connectMcp(sb);
    try {
      expect(await mcp.ok("umbel_run", { file, dryRun: true })).toMatchObject({ dryRun: true });
      const run = await mcp.ok<{ outputs: Record<string, Record<string, string>> }>("umbel_run", { file });
      expect(run).toMatchObject({ dryRun: false, exitCode: 0, status: "done" });
      expect(run.outputs.b?.said).toBe("alpha beta");
      const bad = await mcp.call("umbel_run", { file: join(sb.work, "missing.yaml") });
      expect(bad.isError).toBe(true);
    } finally {
      await mcp.close();
    }
  }, 60_000);

  test("a file that is not a workflow is refused in one line that quotes none of it", async () => {
    const file = join(sb.work, "passwd");
    await Bun.write(
      file,
      Array.from({ length: 30 }, (_, i) => `user${i}:x:${i}:${i}:SECRET-GECOS-${i}:/home/u:/bin/sh`).join(
        "\n",
      ),
    );
    const mcp = await connectMcp(sb);
    try {
      const error = errorOf(await mcp.call("umbel_run", { file, dryRun: true }));
      expect(error).toMatchObject({ code: "usage", exitCode: 2 });
      expect(error.message).toMatch(new RegExp(`^${file}:1:1: not a umbel workflow: `));
      expect(error.message).not.toContain("\n");
      expect(JSON.stringify(error)).not.toContain("SECRET");
    } finally {
      await mcp.close();
    }
  }, 60_000);
});
