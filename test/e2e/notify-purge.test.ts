import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s.
setDefaultTimeout(60_000);

/**
 * Issue 22 ("smaller"): a --notify command outlived `kill --purge` (the hook starts it detached and
 * deaf to the pane's end). It leads a process group of its own, named in the worker's folder while
 * it runs, and kill --purge ends that group before the folder goes.
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("kill --purge and a notify command still running", () => {
  test("the command and what it started are ended; nothing is written after the folder goes", async () => {
    const pidFile = join(sb.dir, "sleeper.pid");
    const after = join(sb.dir, "after");
    await spawnOk(sb, "nfy", ["--notify", `sleep 60 & echo $! > '${pidFile}'; wait; touch '${after}'`]);
    const turn = await sendAndWait(sb, "nfy", "hi", ["--timeout", "20s"]);
    expect(turn.outcome.reason).toBe("stop");
    const dir = join(sb.root, "sessions", "nfy");
    await eventually(
      () => existsSync(pidFile) && readdirSync(dir).some((f) => f.endsWith(".pgid")),
      10_000,
      "notify",
    );
    const sleeper = Number(readFileSync(pidFile, "utf8"));
    expect(alive(sleeper)).toBe(true);
    const killed = await sb.umbel(["kill", "nfy", "--purge"]);
    expect(killed.code).toBe(0);
    expect(existsSync(dir)).toBe(false);
    await eventually(() => !alive(sleeper), 5_000, "the notify command to end");
    expect(existsSync(after)).toBe(false);
  });
});

describe("kill --purge, then spawn NAME at once", () => {
  test("a late hook of the killed worker never lands in the new worker's events log", async () => {
    const release = join(sb.dir, "end-after");
    const old = await spawnOk(sb, "again", ["--env", `FAKE_CLAUDE_END_AFTER=${release}`]);
    expect((await sb.umbel(["kill", "again", "--purge"])).code).toBe(0);
    const fresh = await spawnOk(sb, "again");
    expect(fresh.sessionId).not.toBe(old.sessionId);
    // The old CLI's SessionEnd hook runs now, with the new worker in its folder's place.
    writeFileSync(release, "");
    await eventually(() => existsSync(`${release}.done`), 30_000, "the old worker's SessionEnd hook");
    const log = readFileSync(join(sb.root, "sessions", "again", "events", "hooks.jsonl"), "utf8");
    const sessions = log
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => (JSON.parse(line) as { session_id?: string }).session_id);
    expect(sessions).not.toContain(String(old.sessionId));
    expect(sessions).toContain(String(fresh.sessionId));
    expect((await sb.umbel(["kill", "again", "--purge"])).code).toBe(0);
  });
});
