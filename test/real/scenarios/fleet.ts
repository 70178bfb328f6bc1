// Issue 14's fleet scenarios on a real CLI, written once and run over providers: rules and
// --notify, an approval no rule covers answered by its inputId (a stale id refused), answer deny,
// wait --any / --all over two workers, --worktree kept while dirty. A profile
// (test/real/providers/<cli>.ts) carries what each CLI does differently as data;
// test/real/fleet-<cli>.test.ts runs the table and what only that CLI has.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { eventually } from "../../helpers/sandbox.ts";
import { type Driver, drive, type Json, json, type RealWorld, timing } from "./drive.ts";

export type FleetProfile<W extends RealWorld = RealWorld> = {
  label: string;
  /** null: the real binary is missing and the tests are skipped (real-bin.ts). */
  bin: string | null;
  makeWorld(): Promise<W>;
  /** Flags every spawn takes; the workers are `<prefix>a`, `<prefix>b`, `<prefix>w`. */
  spawnFlags: string[];
  prefix: string;
  /** Each wait's --timeout. */
  timeout: string;
  /** The rules worker's own flags beyond its rules (claude asks only in manual mode). */
  rulesFlags: string[];
  /** A prompt whose command `Bash(touch:*)` allows: `touch policy.txt` as the CLI would ask about it. */
  allowedPrompt: string;
  /** The worker's log names each rule that decided. */
  logsShowPolicy: boolean;
  approval: {
    prompt: string;
    /** What the approved call makes in the work folder, with its content when it is checked. */
    made: { file: string; content?: string };
    /** What `answer allow` answers. */
    answered: Record<string, unknown>;
    /** A line the worker's logs --json show once the CLI announced the same prompt again. */
    reannounced?: string;
  };
  deny: {
    prompt: string;
    /** What the denied call would have made. */
    absent: string;
    /** `answer deny` names the prompt by its inputId. */
    byInputId: boolean;
    answered: Record<string, unknown>;
  };
  worktree: { flags: string[]; spawned?: Record<string, unknown> };
};

export type FleetContext<W extends RealWorld> = { world(): W } & Driver;

const NOTIFY = (feed: string) =>
  `printf '%s %s ' "$UMBEL_WORKER" "$UMBEL_OUTCOME" >> '${feed}'; cat >> '${feed}'; echo >> '${feed}'`;

export function fleetScenarios<W extends RealWorld>(
  p: FleetProfile<W>,
  extra: { after?(ctx: FleetContext<W>): void } = {},
): void {
  describe.skipIf(p.bin === null)(`${p.label}: issue 14 through dist/umbel`, () => {
    let world: W;
    const ctx: FleetContext<W> = { world: () => world, ...drive(() => world, p.timeout) };
    const { ok, turn, waitAfter } = ctx;
    const [a, b, w] = ["a", "b", "w"].map((n) => `${p.prefix}${n}`) as [string, string, string];
    const feed = () => join(world.sb.dir, "feed.txt");
    const notified = () =>
      existsSync(feed())
        ? readFileSync(feed(), "utf8")
            .trim()
            .split("\n")
            .map((line) => line.split(" ")[1])
        : [];
    beforeAll(async () => {
      world = await p.makeWorld();
    });
    afterAll(async () => {
      await world?.dispose();
    });

    test("rules and --notify: an allowed command never reaches the caller; a denied one is refused; notify on stop", async () => {
      const { sb } = world;
      await ok([
        "spawn",
        a,
        ...p.spawnFlags,
        ...p.rulesFlags,
        "--allow",
        "Bash(touch:*)",
        "--deny",
        "Bash(rm:*)",
        "--notify",
        NOTIFY(feed()),
      ]);
      const allowed = await turn(a, p.allowedPrompt);
      expect(allowed.outcome).toMatchObject({ reason: "stop", exitCode: 0 });
      expect(existsSync(join(sb.work, "policy.txt"))).toBe(true);
      writeFileSync(join(sb.work, "keep.txt"), "x");
      const denied = await turn(a, "stub:bash rm -f keep.txt");
      expect(denied.outcome.reason).toBe("stop");
      expect(existsSync(join(sb.work, "keep.txt"))).toBe(true);
      expect((await ok(["status", a])).policy).toMatchObject({ allowed: 1, denied: 1 });
      if (p.logsShowPolicy) {
        const logs = (await sb.umbel(["logs", a])).stdout;
        expect(logs).toContain("[umbel policy: allow Bash(touch:*)]");
        expect(logs).toContain("[umbel policy: deny Bash(rm:*)]");
      }
      await eventually(() => notified().filter((o) => o === "stop").length >= 2, 10_000, "notify on stop");
    });

    test("a prompt no rule covers is input with an inputId (notified); answer allow approves; a stale id is refused (4)", async () => {
      const { sb } = world;
      const asked = await turn(a, p.approval.prompt);
      expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
      const inputId = String(asked.outcome.evidence.inputId);
      await eventually(() => notified().includes("input"), 10_000, "notify on input");
      const again = p.approval.reannounced;
      // The CLI announces the same prompt again: the id wait gave still answers it (issue 22: it was
      // refused as another prompt).
      if (again !== undefined) {
        await eventually(
          async () => (await sb.umbel(["logs", a, "--json"])).stdout.includes(again),
          20_000,
          "the prompt announced again",
        );
      }
      const started = performance.now();
      const answered = await ok(["answer", a, "allow", "--input-id", inputId]);
      timing("answer allow (settle, key, screen reacted)", performance.now() - started);
      expect(answered).toMatchObject({ inputId, ...p.approval.answered });
      expect(json((await waitAfter(a, asked.baseline)).stdout).reason).toBe("stop");
      const made = join(sb.work, p.approval.made.file);
      if (p.approval.made.content === undefined) expect(existsSync(made)).toBe(true);
      else expect(readFileSync(made, "utf8")).toBe(p.approval.made.content);
      const stale = await sb.umbel(["answer", a, "allow", "--input-id", inputId]);
      expect(stale.stderr).toContain(`no longer shows prompt ${inputId}`);
      expect(stale.code).toBe(4);
    });

    test("answer deny: nothing runs; the turn ends as a stop marked interrupted", async () => {
      const asked = await turn(a, p.deny.prompt);
      expect(asked.outcome.reason).toBe("input");
      const byId = p.deny.byInputId ? ["--input-id", String(asked.outcome.evidence.inputId)] : [];
      expect(await ok(["answer", a, "deny", ...byId])).toMatchObject(p.deny.answered);
      const done = json((await waitAfter(a, asked.baseline)).stdout);
      expect(done).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
      expect(existsSync(join(world.sb.work, p.deny.absent))).toBe(false);
    });

    test("wait --any over two real workers returns the first to finish; --all both", async () => {
      const { sb } = world;
      await ok(["spawn", b, ...p.spawnFlags]);
      await ok(["send", a], "stub:slow 40 100");
      await ok(["send", b], "quick one");
      const started = performance.now();
      const any = await sb.umbel(["wait", "--any", a, b, "--json", "--timeout", p.timeout]);
      timing("wait --any, the quick worker", performance.now() - started);
      expect(json(any.stdout)).toMatchObject({ name: b, reason: "stop", pending: [a] });
      expect(any.code).toBe(0);
      const all = json((await sb.umbel(["wait", "--all", a, b, "--json", "--timeout", p.timeout])).stdout);
      expect((all.outcomes as Json[]).map((o) => [o.name, o.reason])).toEqual([
        [a, "stop"],
        [b, "stop"],
      ]);
    });

    test("--worktree: the worker writes in its own worktree; kill keeps it while dirty and says where", async () => {
      const { sb } = world;
      const repo = join(sb.work, "repo");
      mkdirSync(repo);
      const git = (...args: string[]) =>
        Bun.spawnSync(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
      git("init", "-q", "-b", "main");
      writeFileSync(join(repo, "README"), "hi\n");
      git("add", ".");
      git("commit", "-q", "-m", "first");
      const spawned = await ok([
        "spawn",
        w,
        ...p.spawnFlags,
        "--cwd",
        repo,
        "--worktree",
        ...p.worktree.flags,
      ]);
      const tree = String((spawned.worktree as Json).path);
      expect(tree).toBe(join(realpathSync(sb.root), "worktrees", w));
      if (p.worktree.spawned) expect(spawned).toMatchObject(p.worktree.spawned);
      expect((await turn(w, "stub:bash touch made.txt")).outcome.reason).toBe("stop");
      expect(existsSync(join(tree, "made.txt"))).toBe(true);
      expect(existsSync(join(repo, "made.txt"))).toBe(false);
      expect((await ok(["status", w])).worktree).toMatchObject({ branch: `umbel/${w}`, dirty: true });
      const killed = await ok(["kill", w]);
      expect(killed.worktree).toMatchObject({ removed: false, branchKept: true });
      expect(String((killed.worktree as Json).note)).toContain(`kept ${tree}`);
      expect(existsSync(join(tree, "made.txt"))).toBe(true);
    });

    extra.after?.(ctx);
  });
}
