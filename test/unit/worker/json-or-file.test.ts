import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import type { FilesPort } from "../../../src/core/ports.ts";
import { readJsonOrFile } from "../../../src/operations/worker/json-or-file.ts";

/** The argv fuzz found `umbel -p hi --settings .` an internal error (EISDIR): a path is the user's. */
function files(over: Partial<FilesPort>): FilesPort {
  return { ...({} as FilesPort), isDirectory: async () => false, readText: async () => null, ...over };
}

describe("readJsonOrFile", () => {
  test("inline JSON is kept; a file is read; a missing file is null", async () => {
    expect(await readJsonOrFile(files({}), '{"a":1}', "/w")).toEqual({ path: null, text: '{"a":1}' });
    const read = files({ readText: async (p) => (p === "/w/s.json" ? "{}" : null) });
    expect(await readJsonOrFile(read, "s.json", "/w")).toEqual({ path: "/w/s.json", text: "{}" });
    expect(await readJsonOrFile(read, "gone.json", "/w")).toEqual({ path: "/w/gone.json", text: null });
  });

  test("a directory is a usage error", async () => {
    const dir = files({
      isDirectory: async () => true,
      readText: async () => {
        throw Object.assign(new Error("EISDIR: illegal operation on a directory, read"), { code: "EISDIR" });
      },
    });
    const read = readJsonOrFile(dir, ".", "/w");
    await expect(read).rejects.toBeInstanceOf(UsageError);
    await expect(read).rejects.toThrow("/w is a directory, not a JSON file");
  });

  test("a file that cannot be read is a usage error naming why", async () => {
    const denied = files({
      readText: async () => {
        throw Object.assign(new Error("EACCES: permission denied, open '/w/s.json'"), { code: "EACCES" });
      },
    });
    await expect(readJsonOrFile(denied, "s.json", "/w")).rejects.toThrow(
      "cannot read /w/s.json: EACCES: permission denied",
    );
  });
});
