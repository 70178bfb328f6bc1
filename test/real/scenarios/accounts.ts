// Two accounts and the default sign-in on a real CLI, written once and run over providers (issue 24,
// docs/accounts.md): spawn --account pins a worker and its requests carry that account's credential;
// `accounts` shows each one's windows as its workers saw them; --account auto places on the most
// headroom; a limit on account a is kept as a's last limit while b still answers; and with no headroom
// anywhere --account auto exits 120 naming the earliest reset. A profile (test/real/providers/<cli>.ts)
// says how its world and each account's home are made, how a request is told to be whose, the
// windows each account's answers carry and a limited account's reply;
// test/real/<cli>-accounts.test.ts runs it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { StubReply, StubRequest } from "../../stub-model/types.ts";
import { type AccountSpec, writeAccounts } from "../providers/accounts.ts";
import { drive, json, type RealWorld } from "./drive.ts";
import type { AccountSignIn } from "./failover.ts";

export type Account = "default" | "a" | "b";
const ACCOUNTS: readonly Account[] = ["default", "a", "b"];

export type AccountsProfile<W extends RealWorld = RealWorld> = {
  label: string;
  /** null: the real binary is missing and the tests are skipped. */
  bin: string | null;
  /** The world, its sandbox's environment holding what every account's sign-in reads. */
  makeWorld(): Promise<W>;
  provider: string;
  /**
   * Signs `account` in, its home made here (the default sign-in is the user's own), and gives the
   * sign-in config.toml's [accounts.NAME] is written from (read for a and b only).
   */
  signIn(w: W, account: Account): AccountSignIn;
  /** The names passed to the default sign-in ([provider] env); absent: none. */
  defaultNames?: readonly string[];
  /** The credential each account's requests carry, and the request headers it is sought in. */
  credentials: Readonly<Record<Account, string>>;
  credentialHeaders: readonly string[];
  /** The window `accounts` shows from the answers' headers, which a limit's evidence names too. */
  window: string;
  /** The stub's answer headers for an account whose `window` is this much used (a percent). */
  windows(usedPercent: number): Readonly<Record<string, string>>;
  /** What a limited account's every main request is answered. */
  limited: { reply: StubReply; headers?: Readonly<Record<string, string>> };
  /** Spawn's flags besides --account. */
  spawnFlags: readonly string[];
  /** The title: "its requests carry <carries>". */
  carries: string;
  /** The title: "accounts shows each one's windows <seen>". */
  seen: string;
  /** A pinned worker's transcript lands in this folder of its account's home; absent: not looked at. */
  transcripts?: string;
};

/** Each account's `window` while it is not limited: a has the least headroom, b the most. */
const USED: Record<Account, number> = { default: 95, a: 97, b: 20 };

type Row = {
  name: string | null;
  provider: string;
  windows: { windows: { name: string; usedPercent: number }[] } | null;
  lastLimit: { worker: string } | null;
};

export function accountsScenarios<W extends RealWorld>(p: AccountsProfile<W>): void {
  describe.skipIf(p.bin === null)(`${p.label} on two accounts and its default sign-in`, () => {
    let world: W;
    const homes: Record<Account, string> = { default: "", a: "", b: "" };
    /** The accounts whose every main request is a limit, now. */
    const limited = new Set<Account>();
    /** Which account a request came from, by its credential; null: none of them. */
    const accountOf = (request: StubRequest): Account | null => {
      const auth = p.credentialHeaders.map((h) => String(request.headers[h] ?? "")).join(" ");
      return ACCOUNTS.find((account) => auth.includes(p.credentials[account])) ?? null;
    };

    beforeAll(async () => {
      world = await p.makeWorld();
      const signIns = Object.fromEntries(
        ACCOUNTS.map((account) => [account, p.signIn(world, account)]),
      ) as Record<Account, AccountSignIn>;
      for (const account of ACCOUNTS) homes[account] = signIns[account].home;
      const spec = (name: "a" | "b"): AccountSpec => ({ name, provider: p.provider, ...signIns[name] });
      writeAccounts(
        world.sb,
        [spec("a"), spec("b")],
        p.defaultNames ? { provider: p.provider, names: p.defaultNames } : undefined,
      );
      world.stub.setRule((request) => {
        const account = accountOf(request);
        if (account === null) return undefined;
        if (limited.has(account)) return p.limited;
        return { headers: p.windows(USED[account]) };
      });
    });
    afterAll(async () => {
      await world?.dispose();
    });

    const turnOn = (name: string, prompt: string) => drive(() => world, "90s").turn(name, prompt);
    const rowOf = async (name: string | null): Promise<Row | undefined> => {
      const rows = JSON.parse((await world.sb.umbel(["accounts", "--json"])).stdout) as Row[];
      return rows.find((row) => row.provider === p.provider && row.name === name);
    };
    const used = (row: Row | undefined) =>
      row?.windows?.windows.find((w) => w.name === p.window)?.usedPercent;
    const requestsOf = (prompt: string) => world.stub.mainRequests().filter((r) => r.main?.prompt === prompt);
    const spawn = (name: string, flags: string[]) =>
      world.sb.umbel(["spawn", name, ...p.spawnFlags, ...flags, "--json"]);
    const accountInStatus = async (name: string) =>
      json((await world.sb.umbel(["status", name, "--json"])).stdout).account ?? null;

    const lands = p.transcripts === undefined ? "" : ", its transcript lands in that account's home";
    test(`spawn --account pins a worker: its requests carry ${p.carries}${lands}`, async () => {
      for (const account of ACCOUNTS) {
        const spawned = await spawn(`on-${account}`, account === "default" ? [] : ["--account", account]);
        expect({ account, code: spawned.code, stderr: spawned.stderr }).toEqual({
          account,
          code: 0,
          stderr: "",
        });
        const t = await turnOn(`on-${account}`, `hello from ${account}`);
        expect({ account, code: t.code, reason: t.outcome.reason }).toEqual({
          account,
          code: 0,
          reason: "stop",
        });
        const mains = requestsOf(`hello from ${account}`);
        expect(mains.length).toBeGreaterThan(0);
        expect(mains.map(accountOf)).toEqual(mains.map(() => account));
        if (p.transcripts !== undefined && account !== "default") {
          const folder = join(homes[account], p.transcripts);
          expect(existsSync(folder) && readdirSync(folder).length > 0).toBe(true);
        }
        expect(await accountInStatus(`on-${account}`)).toBe(account === "default" ? null : account);
      }
    });

    test(`accounts shows each one's windows ${p.seen}; --account auto places on the most headroom`, async () => {
      expect([await rowOf(null), await rowOf("a"), await rowOf("b")].map(used)).toEqual([95, 97, 20]);
      const placed = await spawn("on-auto", ["--account", "auto"]);
      expect({ code: placed.code }).toEqual({ code: 0 });
      const placement = json(placed.stdout).placement as { account: string | null; reason: string };
      expect(placement.account).toBe("b");
      expect(placement.reason).toContain("the most headroom (80% headroom)");
      expect(placed.stderr).toContain("placed by --account auto");
      const t = await turnOn("on-auto", "hello from auto");
      expect(t.code).toBe(0);
      const mains = requestsOf("hello from auto");
      expect(mains.map(accountOf)).toContain("b");
      expect(mains.map(accountOf)).toEqual(mains.map(() => "b"));
      expect(await accountInStatus("on-auto")).toBe("b");
      expect((await world.sb.umbel(["logs", "on-auto"])).stdout).toContain("umbel:placement");
    });

    test("a limit on account a ends its turn limited (120), is kept as a's last limit, and b still answers", async () => {
      limited.add("a");
      try {
        const a = await turnOn("on-a", "second from a");
        expect({ code: a.code, reason: a.outcome.reason }).toEqual({ code: 120, reason: "limited" });
        expect(a.outcome.evidence.limit).toMatchObject({ window: p.window });
        expect((await rowOf("a"))?.lastLimit?.worker).toBe("on-a");
        const b = await turnOn("on-b", "second from b");
        expect({ code: b.code, reason: b.outcome.reason }).toEqual({ code: 0, reason: "stop" });
      } finally {
        limited.delete("a");
      }
    });

    test("no headroom on any account: --account auto exits 120 naming the earliest reset, nothing made", async () => {
      const { sb } = world;
      for (const account of ACCOUNTS) limited.add(account);
      try {
        for (const name of ["on-default", "on-b"]) {
          const t = await turnOn(name, `used up ${name}`);
          expect({ name, code: t.code }).toEqual({ name, code: 120 });
        }
        const none = await sb.umbel(["spawn", "on-none", ...p.spawnFlags, "--account", "auto"]);
        expect(none.code).toBe(120);
        expect(none.stderr).toMatch(
          new RegExp(`no ${p.provider} account has headroom; the earliest reset is \\d{4}-`),
        );
        expect((await sb.umbel(["status", "on-none"])).code).not.toBe(0);
      } finally {
        limited.clear();
      }
      for (const name of ["on-default", "on-a", "on-b", "on-auto"]) await sb.umbel(["kill", name, "--purge"]);
    });
  });
}
