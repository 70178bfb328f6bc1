import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccountsStore } from "../../src/adapters/accounts/store.ts";
import { sawLimit, sawWindows, unseen } from "../../src/core/accounts/placement.ts";

setDefaultTimeout(20_000);

/** Each account's windows on disk (issue 24 §2): one 0600 file per account under accounts/, 0700. */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "umbel-accounts-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the accounts store", () => {
  const store = () => createAccountsStore(root, async () => undefined);
  const windows = [{ name: "five_hour", usedPercent: 40, resetsAt: "2026-12-03T15:00:00Z", minutes: 300 }];

  test("nothing seen: an empty record, and no file made", async () => {
    expect(await store().readAccountWindows("claude", "work")).toEqual(unseen("claude", "work"));
    await expect(stat(join(root, "accounts"))).rejects.toThrow();
  });

  test("a reading is kept per account (the default apart), 0600 in a 0700 folder", async () => {
    const at = "2026-12-03T12:00:00Z";
    await store().updateAccountWindows("claude", "work", (k) => sawWindows(k, { windows, at, worker: "w1" }));
    await store().updateAccountWindows("codex", null, (k) =>
      sawLimit(k, { at, worker: "w2", limit: { window: "primary", resetsAt: null, message: "hit" } }),
    );
    expect((await store().readAccountWindows("claude", "work")).windows).toEqual(windows);
    expect((await store().readAccountWindows("claude", null)).windows).toEqual([]);
    expect((await store().readAccountWindows("codex", null)).lastLimit?.worker).toBe("w2");
    expect((await stat(join(root, "accounts", "work.json"))).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, "accounts", "codex.default.json"))).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, "accounts"))).mode & 0o777).toBe(0o700);
  });

  test("an unchanged record is not written again", async () => {
    const before = await stat(join(root, "accounts", "work.json"));
    await store().updateAccountWindows("claude", "work", (k) => k);
    expect((await stat(join(root, "accounts", "work.json"))).mtimeMs).toBe(before.mtimeMs);
  });

  test("a damaged file, or another provider's record under the name, reads as nothing seen", async () => {
    await writeFile(join(root, "accounts", "bad.json"), "{not json");
    expect(await store().readAccountWindows("claude", "bad")).toEqual(unseen("claude", "bad"));
    expect(await store().readAccountWindows("gemini", "work")).toEqual(unseen("gemini", "work"));
    expect(JSON.parse(await readFile(join(root, "accounts", "work.json"), "utf8")).provider).toBe("claude");
  });
});
