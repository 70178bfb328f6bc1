import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

describe("the build", () => {
  test("keeps identifiers: error class names are part of the JSON error contract", () => {
    const script = readFileSync(join(import.meta.dir, "../../scripts/build.ts"), "utf8");
    expect(script).not.toMatch(/"--minify"[,\s]/);
    expect(script).toContain("--compile");
  });
});
