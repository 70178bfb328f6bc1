import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRecords } from "../../src/adapters/records.ts";
import type { RecordSource } from "../../src/core/providers/transcript-types.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/** The session record port on real files and a real SQLite database (WAL, written while read). */

let dir: string;
let db: Database;
const records = createRecords();
const QUERY = "select json_object('id', id, 'text', text) from row where session = ?1 order by id";
let source: RecordSource;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "umbel-records-"));
  db = new Database(join(dir, "rec.db"), { create: true });
  db.run("PRAGMA journal_mode = WAL");
  db.run("create table row (id integer primary key, session text, text text)");
  source = { kind: "sqlite", path: join(dir, "rec.db"), query: QUERY, params: ["s1"] };
});
afterAll(async () => {
  db.close();
  await rm(dir, { recursive: true, force: true });
});

describe("records", () => {
  test("a file reads as its text; a missing file or database is null", async () => {
    await writeFile(join(dir, "t.jsonl"), "a\nb\n");
    expect(await records.read({ kind: "file", path: join(dir, "t.jsonl") })).toBe("a\nb\n");
    expect(await records.size({ kind: "file", path: join(dir, "t.jsonl") })).toBe(4);
    expect(await records.read({ kind: "file", path: join(dir, "none") })).toBeNull();
    const missing: RecordSource = { ...source, path: join(dir, "none.db") };
    expect(await records.read(missing)).toBeNull();
    expect(await records.size(missing)).toBeNull();
  });

  test("a query's rows are lines, read while another connection writes (WAL), never written to", async () => {
    expect(await records.read(source)).toBe("");
    db.run("insert into row (session, text) values ('s1', 'one'), ('s2', 'other'), ('s1', 'two')");
    const text = await records.read(source);
    expect(text).toBe('{"id":1,"text":"one"}\n{"id":3,"text":"two"}\n');
    expect(await records.size(source)).toBe(Buffer.byteLength(text ?? ""));
    // read-only: the reader holds no lock that stops the writer
    db.run("insert into row (session, text) values ('s1', 'three')");
    expect((await records.read(source))?.split("\n")).toHaveLength(4);
  });

  test("a tail of a query returns the rows past the offset once each, then the new ones", async () => {
    const offset = (await records.size(source)) ?? 0;
    const tail = records.tail(source, offset, [dir]);
    try {
      expect(await tail.read()).toEqual([]);
      db.run("insert into row (session, text) values ('s1', 'four é')");
      await tail.next(2000);
      expect(await tail.read()).toEqual(['{"id":5,"text":"four é"}']);
      expect(await tail.read()).toEqual([]);
    } finally {
      tail.close();
    }
  });

  test("a tail of a query is not woken by its own reads (a reader touches the WAL file), only by a write", async () => {
    // Each read-only open of a WAL database fires a change event on its -wal file: a tail woken by
    // its own read read again at once, and `umbel -p --provider opencode` spun a core for the turn.
    const tail = records.tail(source, (await records.size(source)) ?? 0, []);
    const woken = (ms: number) =>
      Promise.race([tail.next(60_000).then(() => "woken"), Bun.sleep(ms).then(() => "quiet")]);
    try {
      await tail.next(0); // a change before the tail began is not what is asked here
      for (let i = 0; i < 3; i++) {
        expect(await tail.read()).toEqual([]);
        expect(await woken(400)).toBe("quiet");
      }
      db.run("insert into row (session, text) values ('s1', 'five')");
      expect(await woken(10_000)).toBe("woken");
      expect(await tail.read()).toEqual(['{"id":6,"text":"five"}']);
    } finally {
      tail.close();
    }
  });
});
