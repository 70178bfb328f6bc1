// What every real-tier scenario drives: a sandbox (its own state root and tmux server) with the
// stub model the CLI talks to, and the few umbel calls a turn is made of.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../../helpers/sandbox.ts";
import type { StubModel } from "../../stub-model/stub-model.ts";

export type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
export const json = (text: string) => JSON.parse(text) as Json;
export const timing = (what: string, ms: number) => console.log(`[timing] ${what}: ${Math.round(ms)} ms`);

/** One provider's world: its CLI pointed at the stub through the sandbox's environment. */
export type RealWorld = {
  readonly sb: Sandbox;
  readonly stub: StubModel;
  dispose(): Promise<void>;
};

export type Turn = { baseline: number; outcome: Json; code: number; sendMs: number; waitMs: number };

export type Driver = {
  /** `umbel ARGS --json`, which must exit 0. */
  ok(args: string[], stdin?: string): Promise<Json>;
  /** send, then wait after its baseline; the outcome and how long each half took. */
  turn(name: string, prompt: string): Promise<Turn>;
  waitAfter(name: string, baseline: number): ReturnType<Sandbox["umbel"]>;
};

/** The calls on `world()` (read at each call: worlds are made in a beforeAll), waits bounded by `timeout`. */
export function drive(world: () => RealWorld, timeout: string): Driver {
  const sb = () => world().sb;
  const waitAfter = (name: string, baseline: number) =>
    sb().umbel(["wait", name, "--after", String(baseline), "--json", "--timeout", timeout]);
  async function ok(args: string[], stdin?: string): Promise<Json> {
    const r = await sb().umbel([...args, "--json"], stdin === undefined ? {} : { stdin });
    if (r.code !== 0) {
      // Both streams, labelled (a failed send's stdout JSON holds the screen it left), and the logs.
      const name = args[1] ?? "";
      const logs = args[0] === "send" ? (await sb().umbel(["logs", name, "--json"])).stdout.slice(-4000) : "";
      throw new Error(
        `umbel ${args.join(" ")} → ${r.code}\nstdout: ${r.stdout || "(empty)"}\nstderr: ${r.stderr || "(empty)"}${logs ? `\nlogs (tail): ${logs}` : ""}`,
      );
    }
    return json(r.stdout);
  }
  async function turn(name: string, prompt: string): Promise<Turn> {
    const started = performance.now();
    const sent = await ok(["send", name], prompt);
    const sentAt = performance.now();
    const waited = await waitAfter(name, sent.baseline as number);
    return {
      baseline: sent.baseline as number,
      outcome: json(waited.stdout),
      code: waited.code,
      sendMs: sentAt - started,
      waitMs: performance.now() - sentAt,
    };
  }
  return { ok, turn, waitAfter };
}

/**
 * Issue 22's repository: one commit of a.txt, then a.txt changed and keep.txt added, so `git diff
 * --output FILE` has something to write and an `rm` something to remove. Returns its path.
 */
export function dirtyRepo(work: string): string {
  const repo = join(work, "gd");
  mkdirSync(repo);
  const git = (...args: string[]) =>
    Bun.spawnSync(["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "a.txt"), "one\n");
  git("add", ".");
  git("commit", "-q", "-m", "first");
  writeFileSync(join(repo, "a.txt"), "two\n");
  writeFileSync(join(repo, "keep.txt"), "x");
  return repo;
}
