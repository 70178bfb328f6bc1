import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";
import { seeded } from "../helpers/seeded.ts";

setDefaultTimeout(90_000);

/**
 * The warm pool's races through dist/umbel, as the probes of issue 22 ran them, in a bounded number
 * of rounds: concurrent warms of one spawn, a claim racing `pool drain` (item 6: drain killed a
 * worker just handed out, 2 of 195; a -p failed mid-turn, 1 of 70), `spawn NAME` killed with
 * SIGKILL at seeded random moments (item 6: ls broke fleet-wide, 2 of 72, or a live TUI no verb
 * could see, 2 of 30), and a pool.key umbel did not make.
 */
type Row = { name: string; state: string; pid: number | null };
let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const ls = async (): Promise<Row[]> => {
  const r = await sb.umbel(["ls", "--json"]);
  expect({ ls: r.code, stderr: r.stderr }).toEqual({ ls: 0, stderr: "" });
  return JSON.parse(r.stdout) as Row[];
};
const spares = async () =>
  (JSON.parse((await sb.umbel(["pool", "ls", "--json"])).stdout) as { spares: Row[] }).spares;
const sessions = () =>
  createTmux({ socket: deriveSocket(sb.root, undefined), hostEnv: sb.env }).listSessions();

/** What every round must leave: ls works, and every live tmux session is a worker ls shows running. */
async function expectConsistent(): Promise<Row[]> {
  const list = await ls();
  const running = new Set(list.filter((w) => w.pid !== null).map((w) => w.name));
  for (const session of await sessions())
    expect({ session, visible: running.has(session) }).toEqual({ session, visible: true });
  const pruned = await sb.umbel(["prune", "--json"]);
  expect(pruned.code).toBe(0);
  return list;
}

/**
 * The detached refills (`umbel pool warm N` a claim starts) of this sandbox still running: read from
 * /proc, by their argv and their UMBEL_HOME (other tests' umbels run beside these).
 */
function refills(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv[1] !== "pool" || argv[2] !== "warm") continue;
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(`UMBEL_HOME=${sb.root}`))
        pids.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}
const settled = () => eventually(() => refills().length === 0, 30_000, "the refills to end");

async function cleanUp() {
  await settled();
  for (const w of await ls()) await sb.umbel(["kill", w.name, "--purge"]);
  expect(await sessions()).toEqual([]);
}

describe("the warm pool under races", () => {
  test("three concurrent `pool warm 2` of one spawn leave exactly 2 spares", async () => {
    const runs = await Promise.all([1, 2, 3].map(() => sb.umbel(["pool", "warm", "2", "--json"])));
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    const made = runs.flatMap((r) => (JSON.parse(r.stdout) as { made: string[] }).made);
    expect(made).toHaveLength(2);
    expect((await spares()).map((s) => s.state)).toEqual(["ready", "ready"]);
    for (const r of runs) expect((JSON.parse(r.stdout) as { spares: Row[] }).spares).toHaveLength(2);
    await cleanUp();
  });

  test("spawn NAME and -p racing pool drain: each gets a live worker, drain removes only spares", async () => {
    for (let round = 0; round < 2; round++) {
      // A spare of each spawn: spawn NAME's, and -p's (warmed for its permission semantics).
      expect((await sb.umbel(["pool", "warm", "1"])).code).toBe(0);
      expect((await sb.umbel(["pool", "warm", "1", "--non-interactive"])).code).toBe(0);
      const [spawned, printed, drained] = await Promise.all([
        sb.umbel(["spawn", `racer${round}`]),
        sb.umbel(["-p", "fake:reply through the race"]),
        sb.umbel(["pool", "drain", "--json"]),
      ]);
      expect({ round, spawn: spawned.code, stderr: spawned.stderr }).toEqual({ round, spawn: 0, stderr: "" });
      expect({ round, p: printed.code, out: printed.stdout }).toEqual({
        round,
        p: 0,
        out: "through the race\n",
      });
      expect({ round, drain: drained.code, stderr: drained.stderr }).toMatchObject({ round, drain: 0 });
      await settled();
      const list = await expectConsistent();
      expect(list.find((w) => w.name === `racer${round}`)?.state).toBe("idle");
      expect((await sb.umbel(["send", `racer${round}`, "fake:reply alive"])).code).toBe(0);
      expect((await sb.umbel(["wait", `racer${round}`])).code).toBe(0);
      await sb.umbel(["pool", "drain"]);
      await cleanUp();
    }
  });

  test("spawn NAME killed with SIGKILL at seeded moments of a takeover: ls works, no TUI is invisible", async () => {
    const random = seeded(226);
    const points: number[] = [];
    for (let round = 0; round < 8; round++) {
      expect((await sb.umbel(["pool", "warm", "1"])).code).toBe(0);
      // Killed as its k-th trace line comes (a claim's marks and tmux calls are its steps).
      const k = 2 + random.int(8);
      points.push(k);
      const child = Bun.spawn([UMBEL, "spawn", `k${round}`], {
        cwd: sb.work,
        env: { ...sb.env, UMBEL_TRACE: "1" },
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      });
      let lines = 0;
      for await (const chunk of child.stderr) {
        lines += new TextDecoder().decode(chunk).split("\n").length - 1;
        if (lines >= k) break;
      }
      child.kill("SIGKILL");
      await child.exited;
      await settled();
      const list = await expectConsistent();
      const row = list.find((w) => w.name === `k${round}`);
      if (row) expect({ round, state: row.state }).toEqual({ round, state: "idle" });
      await sb.umbel(["pool", "drain"]);
      await cleanUp();
    }
    expect(new Set(points).size).toBeGreaterThan(3);
  });
});

describe("a pool.key umbel did not make", () => {
  const key = () => join(sb.root, "pool.key");
  afterAll(async () => {
    await rm(key(), { recursive: true, force: true });
  });

  test("a directory: pool warm refuses it (1, naming it), -p starts cold", async () => {
    await rm(key(), { recursive: true, force: true });
    await mkdir(key());
    const warm = await sb.umbel(["pool", "warm", "1"]);
    expect(warm.stderr).toContain(key());
    expect(warm.code).toBe(1);
    // A spare made before the key went bad: -p must still start (cold), never exit 1.
    const r = await sb.umbel(["-p", "fake:reply cold"], { env: { UMBEL_TRACE: "1" } });
    expect(r.stdout).toBe("cold\n");
    expect(r.code).toBe(0);
  });

  test("a symlink is never followed: pool warm refuses it, -p starts cold, the target is not read as a key", async () => {
    await rm(key(), { recursive: true, force: true });
    const target = join(sb.dir, "elsewhere.key");
    await writeFile(target, "0".repeat(64));
    await symlink(target, key());
    const warm = await sb.umbel(["pool", "warm", "1"]);
    expect(warm.stderr).toContain(key());
    expect(warm.code).toBe(1);
    const r = await sb.umbel(["-p", "fake:reply cold"]);
    expect(r.stdout).toBe("cold\n");
    expect(r.code).toBe(0);
    expect(await spares()).toEqual([]);
  });
});

describe("a pool.key umbel did not make, with spares already there", () => {
  test("-p and spawn start cold instead of failing", async () => {
    await sb.umbel(["pool", "drain"]);
    await rm(join(sb.root, "pool.key"), { recursive: true, force: true });
    expect((await sb.umbel(["pool", "warm", "1"])).code).toBe(0);
    await eventually(async () => (await spares()).length === 1, 10_000, "a spare");
    await rm(join(sb.root, "pool.key"));
    await mkdir(join(sb.root, "pool.key"));
    const r = await sb.umbel(["-p", "fake:reply cold"]);
    expect({ code: r.code, out: r.stdout, err: r.stderr }).toEqual({ code: 0, out: "cold\n", err: "" });
    const s = await sb.umbel(["spawn", "cold"]);
    expect({ code: s.code, err: s.stderr }).toEqual({ code: 0, err: "" });
    await sb.umbel(["pool", "drain"]);
    await rm(join(sb.root, "pool.key"), { recursive: true, force: true });
    await cleanUp();
  });
});
