// --on-limit failover on a real CLI, written once and run over providers (docs/accounts.md,
// "Failover"): on two accounts of its own, with the default sign-in out until tomorrow, a limit on
// account A moves the worker to B, the same turn finishes there resumed, and the stub's record of the
// request after the move proves the earlier messages of the conversation arrived; then, for a profile
// that declares it, a limit on B too with no account left ends limited (120) with the earliest reset.
// A profile (test/real/providers/<cli>.ts) says how its world and the two accounts are made, how a
// request is told to be A's or B's, and what the carried request must hold;
// test/real/<cli>-failover.test.ts runs it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { text } from "../../stub-model/replies.ts";
import type { StubReply, StubRequest } from "../../stub-model/types.ts";
import { type AccountSpec, limitedUntilTomorrow, writeAccounts } from "../providers/accounts.ts";
import { drive, type RealWorld, timing } from "./drive.ts";

export type Count = { exactly: number } | { atLeast: number };

/** An account's sign-in: its home and the variables it maps (AccountSpec without name and provider). */
export type AccountSignIn = Pick<AccountSpec, "home" | "env">;

export type FailoverProfile<W extends RealWorld = RealWorld> = {
  label: string;
  /** null: the real binary is missing and the tests are skipped. */
  bin: string | null;
  makeWorld(): Promise<W>;
  provider: string;
  /** Accounts A and B, by name. */
  accounts: readonly [string, string];
  /** An account's sign-in, its home made here (config.toml's [accounts.NAME] is written from it). */
  signIn(w: W, account: string): AccountSignIn;
  /** The window the default sign-in's record says met its limit, until tomorrow. */
  defaultWindow: string;
  /** Spawn's flags besides --account A --on-limit failover. */
  spawnFlags: string[];
  /** The first turn's answer, scripted (on A). */
  firstAnswer: string;
  /** The title: "<meets> on account A: the same turn finishes on B, <resumed>". */
  meets: string;
  resumed: string;
  /** The limited turn's prompt and the one reply scripted for it (B's requests take the stub's echo). */
  limited: { prompt: string; reply: StubReply };
  /** The failover's evidence names this window; absent: not looked at. */
  window?: string;
  /**
   * How the stub's record tells A's requests from B's: the credential each sends in its
   * authorization header, and how many main requests each must make (`ignore`: those that are not
   * the turns'); the carried request is B's first. Absent: both send one key, and the carried
   * request is the last one after the limited send.
   */
  byAuthorization?: {
    a: string;
    b: string;
    requests: { a: Count; b: Count };
    ignore?(r: StubRequest): boolean;
  };
  /**
   * The CLI rolled the limited turn's prompt back, so umbel sent that prompt again rather than its
   * continuation prompt: the carried request holds the prompt and not the continuation.
   */
  resendsLimitedPrompt: boolean;
  /** What only this CLI shows after the move (B's sign-in in the worker's home). */
  checkOnB?(w: W, b: AccountSignIn): void;
  /** Then a limit on B too, none with headroom: limited (120) with B's reset, within `resetsInMs` from now. */
  noHeadroom?: { prompt: string; reply: StubReply; window: string; resetsInMs: readonly [number, number] };
};

/** umbel's continuation prompt after a failover (docs/accounts.md). */
const CONTINUATION = "Your usage limit has reset.";
const FIRST_PROMPT = "remember the word heliotrope";
const WORKER = "fo";

function expectCount(what: string, n: number, count: Count): void {
  if ("exactly" in count) expect({ what, n }).toEqual({ what, n: count.exactly });
  else
    expect({ what, n, atLeast: count.atLeast, enough: n >= count.atLeast }).toMatchObject({ enough: true });
}

export function failoverScenarios<W extends RealWorld>(p: FailoverProfile<W>): void {
  const [A, B] = p.accounts;
  describe.skipIf(p.bin === null)(`${p.label}: --on-limit failover through dist/umbel`, () => {
    let world: W;
    let signInB: AccountSignIn;
    const status = async () => {
      const r = await world.sb.umbel(["status", WORKER, "--json"]);
      return JSON.parse(r.stdout) as Record<string, unknown>;
    };
    beforeAll(async () => {
      world = await p.makeWorld();
      const account = (name: string): AccountSpec => ({
        name,
        provider: p.provider,
        ...p.signIn(world, name),
      });
      const b = account(B);
      signInB = b;
      writeAccounts(world.sb, [account(A), b]);
      // The default sign-in is out until tomorrow: B is the one place to go.
      limitedUntilTomorrow(world.sb, p.provider, null, p.defaultWindow);
    });
    afterAll(async () => {
      await world?.dispose();
    });

    test(`${p.meets} on account ${A}: the same turn finishes on ${B}, ${p.resumed}`, async () => {
      const { sb, stub } = world;
      const spawned = await sb.umbel([
        "spawn",
        WORKER,
        ...p.spawnFlags,
        "--account",
        A,
        "--on-limit",
        "failover",
        "--json",
      ]);
      expect(spawned.stderr).toBe("");
      expect(spawned.code).toBe(0);
      stub.script(text(p.firstAnswer));
      expect((await drive(() => world, "60s").turn(WORKER, FIRST_PROMPT)).code).toBe(0);

      stub.script(p.limited.reply);
      const before = stub.mainRequests().length;
      const t = await drive(() => world, "150s").turn(WORKER, p.limited.prompt);
      timing(`limit on ${A} → the turn finished on ${B}`, t.sendMs + t.waitMs);
      expect(t.outcome).toMatchObject({
        reason: "stop",
        evidence: {
          failover: [
            {
              from: A,
              to: B,
              carried: "resumed",
              ...(p.window === undefined ? {} : { limit: { window: p.window } }),
            },
          ],
        },
      });
      expect(t.code).toBe(0);

      let carried: StubRequest | undefined;
      if (p.byAuthorization) {
        const by = p.byAuthorization;
        const mains = stub.mainRequests().filter((r) => !by.ignore?.(r));
        const on = (credential: string) =>
          mains.filter((r) => String(r.headers.authorization ?? "").includes(credential));
        const [onA, onB] = [on(by.a), on(by.b)];
        expectCount(`${A}'s requests`, onA.length, by.requests.a);
        expectCount(`${B}'s requests`, onB.length, by.requests.b);
        carried = onB[0];
      } else carried = stub.mainRequests().slice(before).at(-1);
      // The carried request holds the whole conversation: A's first turn and the limited one, then
      // the continuation (or, when the CLI rolled the limited prompt back, that prompt sent again).
      const body = JSON.stringify(carried?.body);
      expect(body).toContain(FIRST_PROMPT);
      expect(body).toContain(p.firstAnswer);
      expect(body).toContain(p.limited.prompt);
      if (p.resendsLimitedPrompt) expect(body).not.toContain(CONTINUATION);
      else expect(body).toContain(CONTINUATION);
      p.checkOnB?.(world, signInB);
      expect(await status()).toMatchObject({ account: B });
    });

    const nh = p.noHeadroom;
    if (nh)
      test(`then a limit on ${B} too: no account has headroom (${A} until its reset, the default until tomorrow): limited (120) with the earliest reset`, async () => {
        world.stub.script(nh.reply);
        const t = await drive(() => world, "90s").turn(WORKER, nh.prompt);
        expect(t.outcome).toMatchObject({ reason: "limited", evidence: { limit: { window: nh.window } } });
        expect(t.code).toBe(120);
        // B's own reset comes before A's (from its limit) and the default's (tomorrow).
        const inMs = Date.parse(String(t.outcome.evidence.earliestReset)) - Date.now();
        expect(inMs).toBeGreaterThan(nh.resetsInMs[0]);
        expect(inMs).toBeLessThan(nh.resetsInMs[1]);
        expect(String(t.outcome.evidence.detail)).toContain("no account has headroom");
        expect(await status()).toMatchObject({ account: B });
      });
  });
}
