import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDirectory } from "../../src/adapters/files.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/** The argv fuzz found `-p hi --cwd=<5,000 x>` an internal error (ENAMETOOLONG from stat). */
describe("isDirectory on the real filesystem", () => {
  test("a path that cannot name a directory is not one (never an error)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umbel-files-"));
    try {
      expect(await isDirectory(dir)).toBe(true);
      expect(await isDirectory(join(dir, "missing"))).toBe(false);
      expect(await isDirectory(join(dir, "x".repeat(5000)))).toBe(false);
      expect(await isDirectory(join(dir, "a".repeat(300), "b"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
