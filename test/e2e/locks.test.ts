import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { UNREADABLE_LOCK_MS } from "../../src/adapters/lock-file.ts";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { type CliJson, spawnOk } from "../helpers/cli.ts";
import { canMountTinyDisk, mountTinyDisk } from "../helpers/full-disk.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s.
setDefaultTimeout(60_000);

/**
 * dist/umbel on the lock files (issue 22 items 5 and 12): five concurrent sends on a dead holder's
 * send.lock deliver one prompt (2-4 exited 0 with one baseline, and prompts merged); an empty lock
 * (a full disk or a kill between create and write) no longer wedges a worker's sends or the root's
 * spawns, and doctor names it.
 */

/** No process has this pid (Linux's pid_max is at most 2^22). */
const NO_PID = 4_194_305;

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
  await spawnOk(sb, "l1");
});
afterAll(async () => {
  await sb.dispose();
});

const json = (text: string) => JSON.parse(text) as CliJson;
const session = (name: string) => join(sb.root, "sessions", name);
const submitted = (name: string) =>
  readFileSync(join(session(name), "events", "hooks.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((e) => e.hook_event_name === "UserPromptSubmit")
    .map((e) => String(e.prompt));

/** An empty lock file dated past the bound: what a full disk left between create and write. */
function emptyOldLock(path: string): void {
  writeFileSync(path, "");
  const then = (Date.now() - UNREADABLE_LOCK_MS - 5000) / 1000;
  utimesSync(path, then, then);
}

describe("a stale send.lock", () => {
  test("a dead holder's, five sends at once, 3 rounds: one prompt delivered whole, the other four busy (4)", async () => {
    for (let round = 0; round < 3; round++) {
      const before = submitted("l1").length;
      writeFileSync(join(session("l1"), "send.lock"), JSON.stringify({ pid: NO_PID, start: "1" }));
      // A turn that lasts until Escape: the four that wait for the lock find the worker busy, however
      // long they waited (a timed turn could end first on a loaded machine).
      const prompts = [0, 1, 2, 3, 4].map((i) => `fake:hang R${round}-${i}`);
      const results = await Promise.all(prompts.map((p) => sb.umbel(["send", "l1", p, "--json"])));
      const won = results.filter((r) => r.code === 0);
      expect({ round, codes: results.map((r) => r.code).sort() }).toEqual({ round, codes: [0, 4, 4, 4, 4] });
      const after = submitted("l1").slice(before);
      expect(after).toHaveLength(1);
      expect(prompts).toContain(after[0] ?? "");
      const baseline = String(json(won[0]?.stdout ?? "{}").baseline);
      expect((await sb.umbel(["keys", "l1", "Escape"])).code).toBe(0);
      expect((await sb.umbel(["wait", "l1", "--after", baseline])).code).toBe(0);
    }
  });
});

describe("an empty lock file", () => {
  test("send.lock: doctor names it; the next send takes it over and delivers", async () => {
    emptyOldLock(join(session("l1"), "send.lock"));
    const doctor = await sb.umbel(["doctor", "--json"]);
    const locks = (json(doctor.stdout).checks as { id: string; status: string; message: string }[]).find(
      (c) => c.id === "locks",
    );
    expect(locks).toMatchObject({ status: "warn" });
    expect(locks?.message).toContain(join("l1", "send.lock"));
    const sent = await sb.umbel(["send", "l1", "fake:reply after empty", "--json"]);
    expect(sent.stderr).toBe("");
    expect(sent.code).toBe(0);
    expect((await sb.umbel(["wait", "l1", "--after", String(json(sent.stdout).baseline)])).code).toBe(0);
  });

  test("every boot slot: the next spawn takes one over and starts", async () => {
    const starting = join(sb.root, "starting");
    mkdirSync(starting, { recursive: true });
    for (const i of [0, 1]) emptyOldLock(join(starting, `claude-${i}.lock`));
    const r = await sb.umbel(["spawn", "l2", "--start-timeout", "20s"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });
});

describe.skipIf(!canMountTinyDisk())("a full disk (a small tmpfs as the state root)", () => {
  test("send fails at once naming the lock and leaves none; kill stops the worker (0) and says what it could not write", async () => {
    const disk = await mountTinyDisk(4096);
    if (!disk) throw new Error("the tmpfs went away");
    const root = join(disk.dir, "state");
    const full = await createSandbox({ env: { UMBEL_HOME: root } });
    const tmux = createTmux({ socket: deriveSocket(root, undefined), hostEnv: full.env });
    try {
      await spawnOk(full, "d1");
      await spawnOk(full, "d2");
      disk.fill();

      const send = await full.umbel(["send", "d2", "fake:reply on a full disk"]);
      expect(send.stderr).toContain(join(root, "sessions", "d2", "send.lock"));
      expect(send.stderr).toContain("ENOSPC");
      expect(send.code).toBe(1);
      expect(readdirSync(join(root, "sessions", "d2")).filter((f) => f.includes(".lock"))).toEqual([]);

      const kill = await full.umbel(["kill", "d1"]);
      expect(kill.stdout).toBe("killed d1\n");
      expect(kill.stderr).toContain("umbel: d1 was stopped, but its last-screen.txt was not written");
      expect(kill.stderr).toContain("ENOSPC");
      expect(kill.code).toBe(0);
      expect(await tmux.hasSession("d1")).toBe(false);

      // Room again: nothing the full disk left behind stands in the way.
      rmSync(join(disk.dir, "filler"));
      const sent = await full.umbel(["send", "d2", "fake:reply with room", "--json"]);
      expect(sent.code).toBe(0);
      expect((await full.umbel(["wait", "d2", "--after", String(json(sent.stdout).baseline)])).code).toBe(0);
    } finally {
      await tmux.killServer().catch(() => undefined);
      await full.dispose();
      await disk.dispose();
    }
  });
});
