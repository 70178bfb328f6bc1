import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { spawnOk } from "../helpers/cli.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/** `umbel status` with no NAME is what a person types first: the fleet, exactly as `ls` shows it. */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

type Row = { name: string; state: string; provider: string };

describe("status without a name", () => {
  test("no workers: prints nothing and exits 0; --json is an empty list", async () => {
    const text = await sb.umbel(["status"]);
    expect(text.stderr).toBe("");
    expect(text.stdout).toBe("");
    expect(text.code).toBe(0);
    const json = await sb.umbel(["status", "--json"]);
    expect(json.stdout).toBe("[]\n");
    expect(json.code).toBe(0);
  });

  test("the fleet: the same table and the same JSON as ls", async () => {
    await spawnOk(sb, "one");
    await spawnOk(sb, "two");
    const status = await sb.umbel(["status"]);
    const ls = await sb.umbel(["ls"]);
    expect(status.stderr).toBe("");
    expect(status.stdout).toBe(ls.stdout);
    expect(status.stdout).toMatch(/^NAME +STATE +PROVIDER +CWD\none +idle +claude +/);
    expect(status.code).toBe(0);

    const rows = JSON.parse((await sb.umbel(["status", "--json"])).stdout) as Row[];
    const lsRows = JSON.parse((await sb.umbel(["ls", "--json"])).stdout) as Row[];
    expect(rows).toEqual(lsRows);
    expect(rows.map((r) => [r.name, r.state, r.provider])).toEqual([
      ["one", "idle", "claude"],
      ["two", "idle", "claude"],
    ]);
  });

  test("a name still shows that one worker", async () => {
    const one = await sb.umbel(["status", "one"]);
    expect(one.stdout).toContain("name:     one\nstate:    idle\n");
    expect(one.code).toBe(0);
  });
});
