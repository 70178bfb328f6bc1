import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

setDefaultTimeout(30_000);

/**
 * The compiled binary is umbel, not a Bun runtime: the caller's folder must not change what it runs.
 * Bun's standalone executables autoload bunfig.toml and .env from the cwd unless told not to; a
 * bunfig `preload` ran arbitrary code in every folder umbel was started in, and a .env set umbel's
 * own variables (found while measuring start-up: the binary opened ./bunfig.toml at each start).
 */
let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
  await writeFile(join(sb.work, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
  await writeFile(join(sb.work, "preload.ts"), 'process.stderr.write("PRELOAD RAN\\n");\n');
  await writeFile(join(sb.work, ".env"), "UMBEL_TRACE=1\nUMBEL_HOME=/nonexistent/elsewhere\n");
});
afterAll(async () => {
  await sb.dispose();
});

describe("start-up", () => {
  test("a bunfig.toml and a .env in the cwd are not read", async () => {
    const r = await sb.umbel(["ls", "--json"]);
    expect(r.stdout).toBe("[]\n");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const v = await sb.umbel(["--version"]);
    expect(v.stderr).toBe("");
  });
});
