import { describe, expect, test } from "bun:test";
import { diagnose } from "../../../src/core/doctor/diagnose.ts";
import type { LockInfo } from "../../../src/core/ports.ts";
import { check, facts } from "../../helpers/doctor-facts.ts";

/**
 * doctor's `locks` check (issue 22 item 12: an empty lock wedged a worker or the whole root and
 * doctor said nothing): the stale and unreadable lock files of the state root, and a send or claim
 * lock a live process has held far longer than a send takes.
 */

const ROOT = "/home/u/.umbel";
const lock = (path: string, over: Partial<LockInfo> = {}): LockInfo => ({
  path: `${ROOT}/${path}`,
  holder: { pid: 4321 },
  held: true,
  ageMs: 200,
  ...over,
});
const locksCheck = (list: LockInfo[], error: string | null = null) =>
  check(diagnose(facts({ locks: { list, error } })), "locks");

describe("the locks check", () => {
  test("none, or all held by running processes: ok, after state and before workers", () => {
    const ids = diagnose(facts()).map((c) => c.id);
    expect(ids.slice(-3)).toEqual(["state", "locks", "workers"]);
    expect(locksCheck([])).toEqual({ id: "locks", status: "ok", message: "no lock files" });
    expect(locksCheck([lock("sessions/a/send.lock"), lock("starting/claude-0.lock")])).toEqual({
      id: "locks",
      status: "ok",
      message: "2 lock files, each held by a running process",
    });
  });

  test.each([
    [
      "a dead holder's",
      lock("sessions/a/send.lock", { held: false }),
      `${ROOT}/sessions/a/send.lock: its holder (pid 4321) is gone`,
    ],
    [
      "an empty one past the bound",
      lock("starting/claude-1.lock", { holder: null, held: false, ageMs: 3 * 60_000 }),
      `${ROOT}/starting/claude-1.lock: no holder can be read from it (empty or damaged), 3m old`,
    ],
    [
      "a send lock a live process has held for 12 minutes",
      lock("sessions/a/send.lock", { ageMs: 12 * 60_000 }),
      `${ROOT}/sessions/a/send.lock: held by pid 4321 for 12m`,
    ],
    [
      "an answer lock (held for a key's press, seconds at most) a live process has held for 11 minutes",
      lock("sessions/a/answer.lock", { ageMs: 11 * 60_000 }),
      `${ROOT}/sessions/a/answer.lock: held by pid 4321 for 11m`,
    ],
  ])("%s: warn, naming the file and what a taker does", (_what, info, message) => {
    const c = locksCheck([info]);
    expect(c).toMatchObject({ status: "warn", message });
    expect(c?.fix).toBeString();
  });

  test("a stale lock's fix says the next taker takes it over (or remove it); a long-held one's, the process", () => {
    expect(locksCheck([lock("sessions/a/send.lock", { held: false })])?.fix).toBe(
      "nothing needed: the next umbel to take a stale lock takes it over (or remove the file)",
    );
    expect(locksCheck([lock("sessions/a/claim.lock", { ageMs: 11 * 60_000 })])?.fix).toBe(
      "if pid 4321 is a hung umbel, end it (kill 4321): its lock is then taken over",
    );
  });

  test("a guard's or a workflow run's lock held for long is a long check or run, not a problem", () => {
    const c = locksCheck([
      lock("sessions/a/guard-12.lock", { ageMs: 60 * 60_000 }),
      lock("workflows/20250101-000000-abcdef/lock", { ageMs: 5 * 3600_000 }),
    ]);
    expect(c?.status).toBe("ok");
  });

  test("one just made with no holder yet is being written: not named", () => {
    expect(locksCheck([lock("sessions/a/send.lock", { holder: null, held: true, ageMs: 10 })])?.status).toBe(
      "ok",
    );
  });

  test("many: the first 5 named, and how many more", () => {
    const many = Array.from({ length: 8 }, (_, i) => lock(`sessions/w${i}/send.lock`, { held: false }));
    const c = locksCheck(many);
    expect(c?.message.split("; ")).toHaveLength(6);
    expect(c?.message).toEndWith("and 3 more");
  });

  test("the lock files could not be read: warn with why", () => {
    expect(locksCheck([], "cannot list /home/u/.umbel/sessions: permission denied")).toMatchObject({
      status: "warn",
      message: "could not look at the lock files: cannot list /home/u/.umbel/sessions: permission denied",
    });
  });
});
