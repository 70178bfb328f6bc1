import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

setDefaultTimeout(20_000);

const SRC = resolve(import.meta.dir, "../../../src");

/**
 * The modules a file loads before any of its code runs: its static value imports, transitively
 * (`import type` is erased; a dynamic import() loads later, on use). Package names are kept as is.
 */
function staticGraph(...entries: string[]): Set<string> {
  const seen = new Set<string>();
  const todo = entries.map((entry) => join(SRC, entry));
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.endsWith(".ts")) continue;
    const text = readFileSync(file, "utf8");
    for (const [, clause, spec] of text.matchAll(/^(?:import|export)\s+([^;]*?)\s*from\s+"([^"]+)"/gms)) {
      if (!spec || clause?.startsWith("type ")) continue;
      todo.push(spec.startsWith(".") ? resolve(dirname(file), spec) : spec);
    }
  }
  return seen;
}

describe("what a start loads before its face", () => {
  test("`umbel --version` loads no zod (the wire's PROTOCOL lives in a file of its own)", () => {
    const graph = staticGraph("main.ts", "faces/cli/version.ts", "adapters/doctor/build-info.ts");
    expect(graph.has(join(SRC, "core/hosts/protocol.ts"))).toBe(true);
    expect([...graph].filter((m) => m === "zod" || m.startsWith("zod/"))).toEqual([]);
  });
});
