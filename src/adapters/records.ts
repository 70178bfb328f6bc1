import { Database } from "bun:sqlite";
import { type FSWatcher, statSync, watch } from "node:fs";
import { dirname } from "node:path";
import type { FileTail, RecordPort } from "../core/ports.ts";
import type { RecordSource } from "../core/providers/transcript-types.ts";
import { readTextOrNull, sizeOrNull } from "./files.ts";
import { tailFile } from "./tail.ts";
import { createWakeup } from "./watch.ts";

/**
 * The session record a provider names (core/providers/transcript-types.ts RecordSource): a transcript
 * file, or a read-only query of a SQLite database another process writes (opencode 1.18.33 keeps
 * every session in one WAL database). Each query row's single column is one line of the text.
 */
export function createRecords(): RecordPort {
  return {
    read: (source) => (source.kind === "file" ? readTextOrNull(source.path) : queryText(source)),
    async size(source) {
      if (source.kind === "file") return sizeOrNull(source.path);
      const text = await queryText(source);
      return text === null ? null : Buffer.byteLength(text);
    },
    tail: (source, offset, alsoWatch) =>
      source.kind === "file"
        ? tailFile(source.path, offset, alsoWatch)
        : tailQuery(source, offset, alsoWatch),
  };
}

type Query = Extract<RecordSource, { kind: "sqlite" }>;

/** The rows as lines, or null when the database does not exist (yet). */
async function queryText(source: Query): Promise<string | null> {
  if ((await sizeOrNull(source.path)) === null) return null;
  // Read-only: umbel never writes the CLI's record, and a WAL reader never blocks its writer.
  const db = new Database(source.path, { readonly: true });
  try {
    db.run("PRAGMA busy_timeout = 2000");
    const rows = db.query(source.query).values(...source.params);
    return rows.map((row) => `${String(row[0] ?? "")}\n`).join("");
  } finally {
    db.close();
  }
}

/**
 * Follows a query's rows as if they were appended lines: the provider's query lists only settled
 * rows, in order, so a new row lands at the end. Lines before `offset` (bytes of the text) were seen
 * before; each later line is returned once. Wakes on fs.watch of the database's folder (WAL writes)
 * and `alsoWatch`; `maxMs` in `next` is the safety net.
 */
function tailQuery(source: Query, offset: number, alsoWatch: readonly string[]): FileTail {
  let seen: number | null = null;
  const wakeup = createWakeup();
  const watchers = new Map<string, FSWatcher>();
  // A read-only open of a WAL database fires a change on its -wal file by itself: an event on the
  // database's folder wakes the tail only when the files changed since the last read began (their
  // size and mtime), or a tail's own reads woke it without end (a core spun through a turn).
  let readStamp: string | null = null;
  const database = dirname(source.path);
  const onDatabase = () => {
    if (readStamp === null || stampOf(source.path) !== readStamp) wakeup.notify();
  };
  // The database and its folder may appear later (opencode creates them at its first start).
  const attach = () => {
    for (const dir of [database, ...alsoWatch]) {
      if (watchers.has(dir)) continue;
      try {
        watchers.set(
          dir,
          watch(dir, dir === database ? onDatabase : wakeup.notify).on("error", () => watchers.delete(dir)),
        );
      } catch {
        // not there yet: the next call tries again
      }
    }
  };
  attach();
  return {
    async read() {
      // Taken before the query: a write that lands during it changes the files, and wakes the tail.
      readStamp = stampOf(source.path);
      const text = (await queryText(source)) ?? "";
      const lines = text === "" ? [] : text.slice(0, -1).split("\n");
      if (seen === null) seen = linesWithin(lines, offset);
      const fresh = lines.slice(seen);
      seen = Math.max(seen, lines.length);
      return fresh;
    },
    next(maxMs, signal) {
      attach();
      return wakeup.next(maxMs, signal);
    },
    poke: wakeup.notify,
    close() {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
      wakeup.release();
    },
  };
}

/** The database's and its WAL's size and mtime (ns): what a writer's commit or checkpoint changes. */
function stampOf(path: string): string {
  const one = (p: string) => {
    try {
      const st = statSync(p, { bigint: true });
      return `${st.size}:${st.mtimeNs}`;
    } catch {
      return "-";
    }
  };
  return `${one(path)}/${one(`${path}-wal`)}`;
}

/** How many whole lines the first `offset` bytes of the text hold. */
function linesWithin(lines: readonly string[], offset: number): number {
  let bytes = 0;
  let count = 0;
  for (const line of lines) {
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > offset) break;
    count++;
  }
  return count;
}
