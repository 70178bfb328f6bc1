import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { appendFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileSize, tailFile } from "../../src/adapters/tail.ts";
import { FileAccessError } from "../../src/core/errors.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "umbel-tail-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("a file that appears later, in a folder that appears later: complete lines only, woken by fs.watch", async () => {
  const path = join(dir, "projects", "enc", "t.jsonl");
  expect(await fileSize(path)).toBe(0);
  const tail = tailFile(path, 0, [dir]);
  try {
    expect(await tail.read()).toEqual([]);
    await mkdir(join(dir, "projects", "enc"), { recursive: true });
    await appendFile(path, '{"a":1}\n{"b":');
    expect(await tail.read()).toEqual(['{"a":1}']);
    const woken = tail.next(5000);
    const started = Date.now();
    await appendFile(path, '2}\n{"c":3}\n');
    await woken;
    // The safety net is 5 s: an early wake proves the watcher, not the timer.
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await tail.read()).toEqual(['{"b":2}', '{"c":3}']);
  } finally {
    tail.close();
  }
});

test("from an offset: what was there before is not read again", async () => {
  const path = join(dir, "offset.jsonl");
  await appendFile(path, "old\n");
  const tail = tailFile(path, await fileSize(path), []);
  try {
    await appendFile(path, "new\n");
    expect(await tail.read()).toEqual(["new"]);
  } finally {
    tail.close();
  }
});

test("a directory where the transcript should be is a FileAccessError naming it, not a wait for ever", async () => {
  const path = join(dir, "is-a-dir.jsonl");
  await mkdir(path);
  const tail = tailFile(path, 0, []);
  try {
    const error = await tail.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileAccessError);
    expect((error as FileAccessError).data).toMatchObject({ path, errno: "EISDIR" });
  } finally {
    tail.close();
  }
  const under = join(dir, "is-a-dir.jsonl", "x");
  await appendFile(join(dir, "plain"), "");
  const error = await fileSize(join(dir, "plain", "t.jsonl")).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(FileAccessError);
  expect((error as FileAccessError).data).toMatchObject({ errno: "ENOTDIR" });
  expect(await fileSize(under)).toBe(0);
});
