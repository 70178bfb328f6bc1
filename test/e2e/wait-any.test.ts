import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type CliJson, spawnOk } from "../helpers/cli.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s.
setDefaultTimeout(90_000);

/** dist/umbel: wait --any / --all over several fake claude workers, one process. */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
  await Promise.all(["wa", "wb", "wc"].map((name) => spawnOk(sb, name)));
});
afterAll(async () => {
  await sb.dispose();
});

const json = (text: string) => JSON.parse(text) as CliJson & { outcomes?: CliJson[]; pending?: string[] };
const send = async (name: string, prompt: string) => {
  const r = await sb.umbel(["send", name, prompt, "--json"]);
  expect(r.code).toBe(0);
  return json(r.stdout).baseline as number;
};

describe("wait over several workers", () => {
  test("--any returns the first turn to end, its exit code; the others keep running", async () => {
    await send("wa", "fake:slow 6000");
    await send("wb", "fake:reply quick one");
    await send("wc", "fake:slow 6000");
    const started = performance.now();
    const r = await sb.umbel(["wait", "--any", "wa", "wb", "wc", "--json", "--timeout", "30s"]);
    const ms = performance.now() - started;
    const result = json(r.stdout);
    expect(result).toMatchObject({ name: "wb", reason: "stop", evidence: { message: "quick one" } });
    expect(result.pending?.sort()).toEqual(["wa", "wc"]);
    expect(r.code).toBe(0);
    expect(ms).toBeLessThan(5000);
    console.log(`[timing] wait --any over 3 workers, first done: ${Math.round(ms)} ms`);
    // Still running: the slow ones were not touched.
    expect(json((await sb.umbel(["status", "wa", "--json"])).stdout).state).toBe("busy");
  });

  test("--all returns once every turn ended, one outcome each, in the order given", async () => {
    const r = await sb.umbel(["wait", "--all", "wa", "wb", "wc", "--json", "--timeout", "30s"]);
    const result = json(r.stdout);
    expect(result.outcomes?.map((o) => [o.name, o.reason])).toEqual([
      ["wa", "stop"],
      ["wb", "stop"],
      ["wc", "stop"],
    ]);
    expect(r.code).toBe(0);
    const text = await sb.umbel(["wait", "--all", "wa", "wb"]);
    expect(text.stdout).toContain("wa: stop (exit 0)");
    expect(text.stdout).toContain("wb: stop (exit 0)");
  });

  test("--any: an input prompt is an ending (126), with its inputId", async () => {
    await send("wa", "fake:slow 8000");
    await send("wb", "fake:permission");
    const r = await sb.umbel(["wait", "wa", "wb", "--any", "--json", "--timeout", "30s"]);
    const result = json(r.stdout);
    expect(result).toMatchObject({ name: "wb", reason: "input" });
    expect(String(result.evidence.inputId)).toMatch(/^in-/);
    expect(r.code).toBe(126);
    await sb.umbel(["answer", "wb", "deny"]);
  });

  test("several workers without --any or --all, or with --after, is a usage error (2)", async () => {
    const plain = await sb.umbel(["wait", "wa", "wb"]);
    expect(plain.stderr).toContain("say any (the first to end) or all (every one)");
    expect(plain.code).toBe(2);
    const after = await sb.umbel(["wait", "--any", "wa", "wb", "--after", "3"]);
    expect(after.stderr).toContain("after is one worker's baseline");
    expect(after.code).toBe(2);
  });
});
