import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTrace, NO_TRACE } from "../../../src/adapters/trace.ts";
import { takeTraceFlag } from "../../../src/faces/route.ts";

/** The UMBEL_TRACE timeline: off costs nothing, `--trace` is taken out before any face reads argv. */
describe("takeTraceFlag", () => {
  test.each([
    [["ls"], ["ls"], false],
    [["ls", "--trace"], ["ls"], true],
    [["--trace", "-p", "hi"], ["-p", "hi"], true],
    [["send", "w1", "--", "--trace"], ["send", "w1", "--", "--trace"], false],
    [["--trace", "send", "w1", "--", "--trace"], ["send", "w1", "--", "--trace"], true],
    [["-p", "--tracer"], ["-p", "--tracer"], false],
  ])("%j → %j (trace %p)", (given, argv, trace) => {
    expect(takeTraceFlag(given)).toEqual({ argv, trace });
  });
});

describe("createTrace", () => {
  test.each([undefined, "", "0"])("UMBEL_TRACE=%p is off: the shared no-op", (setting) => {
    expect(createTrace(setting)).toBe(NO_TRACE);
    expect(NO_TRACE.on).toBe(false);
  });

  test("--trace forces it on even when UMBEL_TRACE is unset", () => {
    expect(createTrace(undefined, true).on).toBe(true);
  });

  test("an absolute path gets the lines appended, 0600, stamped from the process start", () => {
    const dir = mkdtempSync(join(tmpdir(), "umbel-trace-"));
    try {
      const file = join(dir, "trace.log");
      const trace = createTrace(file);
      trace.mark("first");
      trace.mark("second");
      const lines = readFileSync(file, "utf8").trimEnd().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(new RegExp(`^umbel\\[${process.pid}\\] \\+ *\\d+\\.\\d ms  first$`));
      expect(lines[1]).toEndWith("  second");
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
