// The one-worker scenarios of the real tier, written once and run over every provider: spawn, a
// turn and read, byte-exact prompts, two turns and read --after, a permission approved, an API
// error, kill -9 → dead, and -p text/json. A profile (test/real/providers/<cli>.ts) carries what
// each CLI does differently as data; test/real/<cli>.test.ts runs the table and what only that CLI has.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { renderPromptEcho } from "../../stub-model/digest.ts";
import { hang, httpError, text } from "../../stub-model/replies.ts";
import type { StubReply } from "../../stub-model/types.ts";
import { type Driver, drive, json, type RealWorld, timing } from "./drive.ts";

/** A tool call the CLI asks a person about, and what approving it shows. */
export type Permission = {
  /** Scripted before the prompt; none when the prompt is itself a stub directive. */
  reply?: StubReply;
  prompt: string;
  /** The evidence's prompt line. */
  asks: string;
  /** A fragment of the screen wait hands back. */
  screen: string;
  /** More evidence fields, matched. */
  evidence?: Record<string, unknown>;
  /** What read prints after the approved turn: all of it, or how it begins. */
  read: { exact: string } | { prefix: string };
  /** The file the approved call makes, with its content when it is checked. */
  made: { path: string; content?: string };
};

export type ApiError = {
  status: number;
  /** Evidence fields, matched. */
  evidence?: Record<string, unknown>;
  messageStartsWith?: string;
  messageContains?: string[];
  screenContains?: string;
  /** The turn fails within this long (retries off). */
  withinMs?: number;
  /** read --json, matched. */
  read?: Record<string, unknown>;
  idleAfter?: boolean;
  /** A next turn stops with its answer. */
  usableAfter?: boolean;
};

/** A scenario that needs a worker of its own (a world, a spawn with these flags), by that name. */
export type OwnWorker = { name: string; flags: string[] };

export type WorkerProfile<W extends RealWorld = RealWorld> = {
  /** The CLI, first in every test's name. */
  label: string;
  /** null: the real binary is missing and the tests are skipped (real-bin.ts). */
  bin: string | null;
  makeWorld(): Promise<W>;
  /** The name of the worker that carries the scenarios, and the flags every spawn takes. */
  worker: string;
  spawnFlags: string[];
  /** Each wait's --timeout. */
  timeout: string;
  /** "an untrusted folder", "a fresh folder": where the first spawn runs, for the title. */
  folder: string;
  /** The first spawn's JSON, matched. */
  spawned: Record<string, unknown>;
  checkSpawn?(w: W): Promise<void>;
  /** The first turn; `reply` is scripted (and read), or the stub echoes the prompt. */
  first: { prompt: string; reply?: string; evidence?: Record<string, unknown> };
  checkFirstTurn?(w: W): Promise<void>;
  multiLine: string;
  /** What a prompt with a TAB arrives as, when the CLI rewrites it. */
  tab?: string;
  permission(w: W): Permission;
  /** `umbel keys NAME <keys>`, or `umbel answer NAME allow --input-id ID` and what it answers. */
  approve: { keys: string } | { answer: Record<string, unknown> };
  apiError: ApiError;
  /** Paths kill removes (they exist before it), and paths absent once the worker is pruned. */
  killRemoves?(w: W, name: string): string[];
  leftovers(w: W): string[];
  /** `umbel -p` text and json with these flags; none: the provider's file has its own. */
  print?: string[];
  ownWorker?: { permission?: OwnWorker; apiError?: OwnWorker; kill?: OwnWorker };
};

type Scenario<W> = (
  title: string,
  own: OwnWorker | undefined,
  body: (w: W, d: Driver, name: string) => Promise<void>,
) => void;

/** What a provider's own tests get: the shared world and its worker. */
export type WorkerContext<W extends RealWorld> = { world(): W; name: string } & Driver;

export function workerScenarios<W extends RealWorld>(
  p: WorkerProfile<W>,
  extra: { live?(ctx: WorkerContext<W>): void; after?(ctx: WorkerContext<W>): void } = {},
): void {
  describe.skipIf(p.bin === null)(`${p.label}: through dist/umbel`, () => {
    let shared: W;
    const ctx: WorkerContext<W> = { world: () => shared, name: p.worker, ...drive(() => shared, p.timeout) };
    beforeAll(async () => {
      shared = await p.makeWorld();
    });
    afterAll(async () => {
      await shared?.dispose();
    });

    /** The scenario on the shared worker, or on a worker of its own when the profile says so. */
    const scenario: Scenario<W> = (title, own, body) => {
      test(title, async () => {
        if (!own) return body(shared, ctx, p.worker);
        const w = await p.makeWorld();
        try {
          const d = drive(() => w, p.timeout);
          await d.ok(["spawn", own.name, ...p.spawnFlags, ...own.flags]);
          await body(w, d, own.name);
        } finally {
          await w.dispose();
        }
      });
    };

    describe("one worker", () => {
      test(`spawn in ${p.folder} is ready; send → wait (stop) → read`, async () => {
        const w = shared;
        const started = performance.now();
        const spawned = await ctx.ok(["spawn", p.worker, ...p.spawnFlags]);
        timing("spawn → ready", performance.now() - started);
        expect(spawned).toMatchObject(p.spawned);
        await p.checkSpawn?.(w);
        if (p.first.reply !== undefined) w.stub.script(text(p.first.reply));
        const t = await ctx.turn(p.worker, p.first.prompt);
        timing("first turn: send (paste, Enter, UserPromptSubmit)", t.sendMs);
        timing("first turn: send returned (prompt taken) → wait returned stop", t.waitMs);
        expect(t.outcome).toMatchObject({
          reason: "stop",
          exitCode: 0,
          ...(p.first.evidence ? { evidence: p.first.evidence } : {}),
        });
        expect(t.code).toBe(0);
        const answer = p.first.reply ?? renderPromptEcho(p.first.prompt);
        expect((await w.sb.umbel(["read", p.worker])).stdout).toBe(`${answer}\n`);
        await p.checkFirstTurn?.(w);
      });

      test(`a multi-line and a 20 KB prompt arrive byte-exact${p.tab ? " (tabs become spaces)" : ""}`, async () => {
        const big = Array.from({ length: 400 }, (_, i) => `${i}: ${"x".repeat(45)}`).join("\n");
        expect(big.length).toBeGreaterThan(20_000);
        for (const prompt of [p.multiLine, big]) {
          const t = await ctx.turn(p.worker, prompt);
          expect(t.outcome.reason).toBe("stop");
          expect(shared.stub.mainRequests().at(-1)?.prompt).toBe(prompt);
          expect((await shared.sb.umbel(["read", p.worker])).stdout).toBe(`${renderPromptEcho(prompt)}\n`);
        }
        if (p.tab === undefined) return;
        // The CLI's own rewrite of a pasted TAB: a change here is vendor drift.
        await ctx.turn(p.worker, "tab\there");
        expect(shared.stub.mainRequests().at(-1)?.prompt).toBe(p.tab);
      });

      test("two consecutive turns: read returns the second answer; --after the first returns the first", async () => {
        shared.stub.script(text("first answer"), text("second answer"));
        const first = await ctx.turn(p.worker, "one");
        const second = await ctx.turn(p.worker, "two");
        timing("a later turn: send returned (prompt taken) → wait returned stop", second.waitMs);
        expect([first.outcome.reason, second.outcome.reason]).toEqual(["stop", "stop"]);
        expect((await shared.sb.umbel(["read", p.worker])).stdout).toBe("second answer\n");
        const earlier = await shared.sb.umbel(["read", p.worker, "--after", String(first.baseline)]);
        expect(earlier.stdout).toBe("first answer\n");
      });

      permissionScenario(p, scenario);
      apiErrorScenario(p, scenario);
      extra.live?.(ctx);
      killScenario(p, scenario);
    });

    if (p.print) {
      const flags = p.print;
      test(`umbel -p ${flags.join(" ")}: text and json`, async () => {
        shared.stub.script(text("printed answer"), text("json answer"));
        const r = await shared.sb.umbel(["-p", ...flags, "print it"]);
        expect(r.stdout).toBe("printed answer\n");
        expect(r.code).toBe(0);
        const j = await shared.sb.umbel(["-p", ...flags, "--output-format", "json", "as json"]);
        expect(j.code).toBe(0);
        expect(JSON.parse(j.stdout)).toMatchObject({
          type: "result",
          subtype: "success",
          is_error: false,
          result: "json answer",
        });
        expect((await shared.sb.umbel(["ls"])).stdout).not.toContain("p-");
      });
    }
    extra.after?.(ctx);
  });
}

function permissionScenario<W extends RealWorld>(p: WorkerProfile<W>, scenario: Scenario<W>): void {
  const how = "keys" in p.approve ? `keys ${p.approve.keys}` : "answer allow --input-id";
  const title = `a permission: wait says input (126) with the prompt; ${how} approves; the turn stops`;
  scenario(title, p.ownWorker?.permission, async (w, d, name) => {
    const c = p.permission(w);
    if (c.reply) w.stub.script(c.reply);
    const asked = await d.turn(name, c.prompt);
    expect(asked.outcome).toMatchObject({
      reason: "input",
      exitCode: 126,
      ...(c.evidence ? { evidence: c.evidence } : {}),
    });
    expect(asked.outcome.evidence.prompt).toBe(c.asks);
    expect(String(asked.outcome.evidence.screen)).toContain(c.screen);
    expect(asked.code).toBe(126);
    expect((await d.ok(["status", name])).state).toBe("needs-input");

    if ("keys" in p.approve) {
      expect((await w.sb.umbel(["keys", name, p.approve.keys])).code).toBe(0);
    } else {
      const inputId = String(asked.outcome.evidence.inputId);
      const answered = await d.ok(["answer", name, "allow", "--input-id", inputId]);
      expect(answered).toMatchObject({ inputId, ...p.approve.answer });
    }
    expect(json((await d.waitAfter(name, asked.baseline)).stdout).reason).toBe("stop");
    const read = (await w.sb.umbel(["read", name])).stdout;
    if ("exact" in c.read) expect(read).toBe(c.read.exact);
    else expect(read).toStartWith(c.read.prefix);
    if (c.made.content === undefined) expect(existsSync(c.made.path)).toBe(true);
    else expect(readFileSync(c.made.path, "utf8")).toBe(c.made.content);
  });
}

function apiErrorScenario<W extends RealWorld>(p: WorkerProfile<W>, scenario: Scenario<W>): void {
  const e = p.apiError;
  const title = `an API error (${e.status}) is provider-error (122) with the error${e.usableAfter ? "; the worker stays usable" : ""}`;
  scenario(title, p.ownWorker?.apiError, async (w, d, name) => {
    w.stub.script(httpError(e.status));
    const t = await d.turn(name, "this one fails");
    timing(`${e.status} → provider-error`, t.waitMs);
    expect(t.outcome).toMatchObject({
      reason: "provider-error",
      exitCode: 122,
      ...(e.evidence ? { evidence: e.evidence } : {}),
    });
    const message = String(t.outcome.evidence.message);
    if (e.messageStartsWith !== undefined) expect(message).toStartWith(e.messageStartsWith);
    for (const part of e.messageContains ?? []) expect(message).toContain(part);
    if (e.screenContains !== undefined) expect(String(t.outcome.evidence.screen)).toContain(e.screenContains);
    if (e.withinMs !== undefined) expect(t.waitMs).toBeLessThan(e.withinMs);
    expect(t.code).toBe(122);
    if (e.read) expect(await d.ok(["read", name])).toMatchObject(e.read);
    if (e.idleAfter) expect((await d.ok(["status", name])).state).toBe("idle");
    if (e.usableAfter) {
      w.stub.script(text("after the error"));
      expect((await d.turn(name, "again")).outcome.reason).toBe("stop");
      expect((await w.sb.umbel(["read", name])).stdout).toBe("after the error\n");
    }
  });
}

function killScenario<W extends RealWorld>(p: WorkerProfile<W>, scenario: Scenario<W>): void {
  const title = `kill -9 of ${p.label} mid-turn is dead (125) with the signal and last screen; kill; prune; no leftovers`;
  scenario(title, p.ownWorker?.kill, async (w, d, name) => {
    w.stub.script(hang());
    const sent = await d.ok(["send", name], "never answered");
    await w.stub.waitForRequest((r) => r.kind === "main" && r.answered === "hang");
    const { pid } = await d.ok(["status", name]);
    // The pane runs launch.sh's sh; the CLI is its child.
    const child = Bun.spawnSync(["pgrep", "-P", String(pid)])
      .stdout.toString()
      .trim();
    expect(child).toMatch(/^\d+$/);
    process.kill(Number(child), "SIGKILL");
    const waited = await d.waitAfter(name, sent.baseline as number);
    const outcome = json(waited.stdout);
    expect(outcome).toMatchObject({ reason: "dead", exitCode: 125 });
    expect(outcome.evidence.exit).toEqual({ exitCode: 137, signal: "KILL" });
    expect(String(outcome.evidence.screen)).toContain("never answered");
    expect(waited.code).toBe(125);

    const removed = p.killRemoves?.(w, name) ?? [];
    for (const path of removed) expect([path, existsSync(path)]).toEqual([path, true]);
    expect((await w.sb.umbel(["kill", name])).code).toBe(0);
    for (const path of removed) expect([path, existsSync(path)]).toEqual([path, false]);
    expect(await d.ok(["status", name])).toMatchObject({ state: "killed" });
    expect((await d.ok(["prune"])).removed).toEqual([name]);
    for (const path of [join(w.sb.root, "sessions", name), ...p.leftovers(w)]) {
      expect([path, existsSync(path)]).toEqual([path, false]);
    }
  });
}
