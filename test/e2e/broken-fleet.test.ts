import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnOk } from "../helpers/cli.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s.
setDefaultTimeout(90_000);

/**
 * Issue 22 item 9, kept as a probe through dist/umbel on real tmux: an inconsistent meta.json, a
 * corrupt queue.json and a half-done takeover made `ls` exit 1 for everyone. Now ls and status list
 * each as broken with the file and the fix beside the healthy worker, doctor names them, prune
 * clears the one nothing runs, and kill --purge the one whose tmux session is alive.
 */

let sb: Sandbox;
const dir = (name: string) => join(sb.root, "sessions", name);
type Row = { name: string; state: string; broken?: { file: string; reason: string; fix: string } };

beforeAll(async () => {
  sb = await createSandbox();
  for (const name of ["good", "queued", "taken"]) await spawnOk(sb, name);
  // A corrupt queue.json beside a live worker.
  writeFileSync(join(dir("queued"), "queue.json"), "not json");
  // A takeover killed between renaming the spare's folder and rewriting its meta.json: its tmux
  // session already has the new name, its meta.json still the spare's, its old name a link.
  const meta = JSON.parse(readFileSync(join(dir("taken"), "meta.json"), "utf8"));
  const pool = { key: "k", size: 1, ttlMs: 60_000, state: "spare" };
  writeFileSync(join(dir("taken"), "meta.json"), JSON.stringify({ ...meta, name: "pool-0123abcd", pool }));
  symlinkSync("taken", dir("pool-0123abcd"));
  // A meta.json naming another worker, no tmux session of its name.
  mkdirSync(join(dir("renamed"), "events"), { recursive: true });
  writeFileSync(
    join(dir("renamed"), "meta.json"),
    JSON.stringify({ ...meta, name: "someone", state: "killed" }),
  );
});
afterAll(async () => {
  await sb.dispose();
});

describe("broken workers beside a healthy one", () => {
  test("ls exits 0 listing each broken worker with its file and fix beside the others", async () => {
    const r = await sb.umbel(["ls", "--json"]);
    const rows = JSON.parse(r.stdout) as Row[];
    expect(rows.map((w) => [w.name, w.state])).toEqual([
      ["good", "idle"],
      ["queued", "broken"],
      ["renamed", "broken"],
      ["taken", "broken"],
    ]);
    const by = Object.fromEntries(rows.map((w) => [w.name, w]));
    expect(by.queued?.broken).toMatchObject({ file: join(dir("queued"), "queue.json") });
    expect(by.queued?.broken?.fix).toContain("remove that file (its queued prompts are lost)");
    expect(by.renamed?.broken?.reason).toContain("names worker someone");
    expect(by.taken?.broken?.reason).toContain("a takeover of the spare pool-0123abcd that did not finish");
    expect(by.taken?.broken?.fix).toContain("umbel kill taken --purge");
    expect(r.code).toBe(0);

    const text = await sb.umbel(["ls"]);
    expect(text.stdout).toContain("taken is broken: ");
    expect(text.stdout).toContain("  fix: ");
    expect(text.code).toBe(0);
    expect((await sb.umbel(["status", "--json"])).code).toBe(0);
  });

  test("status NAME of a broken worker is the typed error (exit 1), and says how to fix it", async () => {
    const r = await sb.umbel(["status", "taken"]);
    expect(r.stderr).toContain("a takeover of the spare pool-0123abcd that did not finish");
    expect(r.stderr).toContain("umbel kill taken --purge");
    expect(r.code).toBe(1);
    expect((await sb.umbel(["status", "good"])).code).toBe(0);
  });

  test("doctor names each broken worker and its fix", async () => {
    const r = await sb.umbel(["doctor", "--json"]);
    const checks = (JSON.parse(r.stdout) as { checks: { id: string; message: string; fix?: string }[] })
      .checks;
    const workers = checks.find((c) => c.id === "workers");
    expect(workers?.message).toContain("3 broken (queued: ");
    expect(workers?.message).toContain("taken: ");
    expect(workers?.fix).toContain("taken: ");
  });

  test("prune clears the broken worker nothing runs, keeps those with a live session; kill --purge clears one", async () => {
    const r = await sb.umbel(["prune", "--json"]);
    const pruned = JSON.parse(r.stdout) as { removed: string[]; kept: string[]; broken: Row[] };
    expect(pruned.removed).toEqual(["renamed"]);
    expect(pruned.kept).toEqual(["good", "queued", "taken"]);
    expect(pruned.broken).toMatchObject([
      { name: "renamed", removed: true },
      { name: "taken", removed: false },
    ]);
    expect(r.code).toBe(0);
    expect(existsSync(dir("renamed"))).toBe(false);

    const killed = await sb.umbel(["kill", "taken", "--purge", "--json"]);
    expect(JSON.parse(killed.stdout)).toMatchObject({ name: "taken", state: "purged", wasAlive: true });
    expect(killed.code).toBe(0);
    expect(existsSync(dir("taken"))).toBe(false);
    expect(() => lstatSync(dir("pool-0123abcd"))).toThrow();

    rmSync(join(dir("queued"), "queue.json"));
    const rows = JSON.parse((await sb.umbel(["ls", "--json"])).stdout) as Row[];
    expect(rows.map((w) => [w.name, w.state])).toEqual([
      ["good", "idle"],
      ["queued", "idle"],
    ]);
  });
});
