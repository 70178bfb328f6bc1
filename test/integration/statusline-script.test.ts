import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Declared here: a preload's setDefaultTimeout reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(30_000);

/**
 * hooks/statusline.sh, which claude runs after every statusline update (its turn's end among them:
 * `wait` holds for that update, so the script's own run is on the hook → wait path): it keeps stdin
 * whole at $1, 0600, through a temp file and a rename, and in the common case runs only the two
 * programs that needs (cat, mv), each program start being ~1.5 ms on 2 cores.
 */
const SCRIPT = join(import.meta.dir, "..", "..", "hooks", "statusline.sh");

let dir: string;
let shims: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "umbel-statusline-"));
  shims = join(dir, "shims");
  await mkdir(join(dir, "events"));
  await mkdir(shims);
  // Each program the script starts, logged by name, then run for real.
  for (const tool of ["cat", "mv", "rm", "tr", "head"]) {
    const path = join(shims, tool);
    writeFileSync(
      path,
      `#!/bin/sh\necho ${tool} >> "${join(dir, "ran")}"\nexec /usr/bin/env -S PATH=/usr/bin:/bin ${tool} "$@"\n`,
    );
    chmodSync(path, 0o755);
  }
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(json: string): Promise<number> {
  const child = Bun.spawn(["sh", SCRIPT, join(dir, "events", "statusline.json")], {
    stdin: new Blob([json]),
    stdout: "pipe",
    env: { PATH: `${shims}:/usr/bin:/bin` },
  });
  expect(await new Response(child.stdout).text()).toBe("");
  return child.exited;
}

describe("hooks/statusline.sh", () => {
  test("keeps the JSON whole, 0600, with no temp file left, running only cat and mv", async () => {
    const json = JSON.stringify({
      prompt_id: "p1",
      cost: { total_cost_usd: 0.5 },
      text: "x".repeat(200_000),
    });
    expect(await run(json)).toBe(0);
    const out = join(dir, "events", "statusline.json");
    expect(readFileSync(out, "utf8")).toBe(json);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, "events"))).toEqual(["statusline.json"]);
    expect(readFileSync(join(dir, "ran"), "utf8").trim().split("\n")).toEqual(["cat", "mv"]);
  });

  test("a later update replaces the earlier one", async () => {
    expect(await run('{"n":1}')).toBe(0);
    expect(await run('{"n":2}')).toBe(0);
    expect(readFileSync(join(dir, "events", "statusline.json"), "utf8")).toBe('{"n":2}');
    expect(readdirSync(join(dir, "events"))).toEqual(["statusline.json"]);
  });

  test("a link planted at its temp name is never written through, and no temp is left", async () => {
    const victim = join(dir, "victim");
    writeFileSync(victim, "keep");
    const out = join(dir, "events", "statusline.json");
    const child = Bun.spawn(["sh", SCRIPT, out], {
      stdin: "pipe",
      stdout: "pipe",
      env: { PATH: "/usr/bin:/bin" },
    });
    symlinkSync(victim, `${out}.${child.pid}.tmp`);
    child.stdin.write('{"n":1}');
    await child.stdin.end();
    expect(await child.exited).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("keep");
    expect(readdirSync(join(dir, "events")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});
