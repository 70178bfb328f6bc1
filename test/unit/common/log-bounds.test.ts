import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { HOOK_RUN_LOG_BYTES, ROTATE_LOG_BYTES } from "../../../src/core/common/log-bounds.ts";

/** The sh scripts carry their own copies of the log bounds: one function, the same numbers. */
const script = (name: string) => readFileSync(join(import.meta.dir, "..", "..", "..", "hooks", name), "utf8");
const appendLog = (text: string) => {
  const start = text.indexOf("append_log() {");
  return text.slice(start, text.indexOf("\n}\n", start) + 2);
};

describe("append_log in hook.sh and launch.sh", () => {
  test("is one function, word for word", () => {
    expect(appendLog(script("hook.sh"))).not.toBe("");
    expect(appendLog(script("launch.sh"))).toBe(appendLog(script("hook.sh")));
  });

  test("bounds a run at HOOK_RUN_LOG_BYTES and rotates at ROTATE_LOG_BYTES", () => {
    const fn = appendLog(script("hook.sh"));
    expect(fn).toContain(`head -c ${HOOK_RUN_LOG_BYTES + 1} `);
    expect(fn).toContain(`head -c ${HOOK_RUN_LOG_BYTES} `);
    expect(fn).toContain(`-gt ${HOOK_RUN_LOG_BYTES} ]`);
    expect(fn).toContain(`cut at ${HOOK_RUN_LOG_BYTES} bytes`);
    expect(fn).toContain(`-gt ${ROTATE_LOG_BYTES} ]`);
  });
});
