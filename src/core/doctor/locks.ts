import { formatDuration } from "../common/duration.ts";
import type { LockInfo } from "../ports.ts";
import type { DoctorFacts } from "./facts.ts";
import type { DoctorCheck } from "./schema.ts";

/**
 * A send takes seconds and a claim or an answer less: a send, claim or answer lock (or a boot slot,
 * held until a TUI is ready: spawn's default bound is 60 s) a live process has held for this long
 * is a hung process's.
 * A guard's lock lasts a whole check (--accept-timeout, 10 min by default) and a run's a whole run.
 */
const LONG_HELD_MS = 10 * 60_000;
const SHORT_LOCK = /(?:\/send\.lock|\/claim\.lock|\/answer\.lock|\/starting\/[^/]+\.lock)$/;
const NAMED = 5;

/** The lock files nothing will free by itself soon, or that a taker will take over (item 12 of issue 22). */
export function checkLocks(f: DoctorFacts): DoctorCheck {
  const id = "locks";
  const { list, error } = f.locks;
  if (error !== null) return { id, status: "warn", message: `could not look at the lock files: ${error}` };
  const stale = list.filter((l) => !l.held);
  const hung = list.filter(
    (l) => l.held && l.holder !== null && l.ageMs > LONG_HELD_MS && SHORT_LOCK.test(l.path),
  );
  if (stale.length + hung.length === 0)
    return {
      id,
      status: "ok",
      message:
        list.length === 0 ? "no lock files" : `${list.length} lock files, each held by a running process`,
    };
  const lines = [...stale, ...hung].map(describeLock);
  const more = lines.length - NAMED;
  const message = [...lines.slice(0, NAMED), ...(more > 0 ? [`and ${more} more`] : [])].join("; ");
  const fixes = [
    ...(stale.length > 0
      ? ["nothing needed: the next umbel to take a stale lock takes it over (or remove the file)"]
      : []),
    ...hung.map(
      (l) =>
        `if pid ${l.holder?.pid} is a hung umbel, end it (kill ${l.holder?.pid}): its lock is then taken over`,
    ),
  ];
  return { id, status: "warn", message, fix: fixes.join("; ") };
}

function describeLock(l: LockInfo): string {
  if (l.held) return `${l.path}: held by pid ${l.holder?.pid} for ${formatDuration(l.ageMs)}`;
  if (l.holder === null)
    return `${l.path}: no holder can be read from it (empty or damaged), ${formatDuration(l.ageMs)} old`;
  return `${l.path}: its holder (pid ${l.holder.pid}) is gone`;
}
