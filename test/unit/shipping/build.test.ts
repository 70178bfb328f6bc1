import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { COMPILE_FLAGS } from "../../../scripts/compile-flags.ts";

describe("the build", () => {
  test("keeps identifiers: error class names are part of the JSON error contract", () => {
    const script = readFileSync(join(import.meta.dir, "../../../scripts/build.ts"), "utf8");
    expect(script).not.toMatch(/"--minify"[,\s]/);
    expect(script).toContain("--compile");
  });

  test("the binary carries bytecode and reads nothing from the caller's folder (scripts/compile-flags.ts)", () => {
    // Measured on 2 loaded cores: `umbel --version` 118 → 20 ms, `umbel ls` 136 → 55 ms with bytecode.
    expect(COMPILE_FLAGS).toContain("--bytecode");
    expect(COMPILE_FLAGS).toContain("--format=esm");
    // Each lazy face a chunk: the whole bundle's node: imports are not all loaded by every start.
    expect(COMPILE_FLAGS).toContain("--splitting");
    expect(COMPILE_FLAGS).toContain("--no-compile-autoload-bunfig");
    expect(COMPILE_FLAGS).toContain("--no-compile-autoload-dotenv");
    expect(COMPILE_FLAGS).not.toContain("--minify");
    for (const script of ["build.ts", "release.ts"])
      expect(readFileSync(join(import.meta.dir, "../../../scripts", script), "utf8")).toContain(
        "...COMPILE_FLAGS",
      );
  });

  test("start-up code stays out of the JIT, and a process that lives on gets the normal JIT back", () => {
    // Measured on 2 loaded cores: `umbel ls` 63 → 41 ms of CPU (docs/performance.md, Start-up).
    expect(COMPILE_FLAGS.some((flag) => /^--compile-jit-policy=\d+$/.test(flag))).toBe(true);
    const main = readFileSync(join(import.meta.dir, "../../../src/main.ts"), "utf8");
    expect(main).toMatch(/setTimeout\(\(\) => Bun\.unsafe\.setJITPolicy\(1\), \w+\)\.unref\(\)/);
  });
});
