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

  test("no start loads node:tty: importing it builds Bun's node:stream (4 ms of CPU); isatty is adapters/stdio.ts's", () => {
    const graph = staticGraph(
      "main.ts",
      "entry.ts",
      "adapters/deps.ts",
      "faces/cli/run.ts",
      "faces/verbs/inspect.ts",
      "faces/verbs/lifecycle.ts",
      "faces/verbs/read.ts",
    );
    expect(graph.has(join(SRC, "adapters/stdio.ts"))).toBe(true);
    expect(
      [...graph].filter((m) => m === "node:tty" || m === "tty" || m === "node:stream" || m === "stream"),
    ).toEqual([]);
  });

  test("a verb loads its own module, not the table of every verb (faces/cli/verb-module.ts)", () => {
    const cli = staticGraph("faces/cli/run.ts");
    expect(cli.has(join(SRC, "faces/verbs/table.ts"))).toBe(false);
    const ls = staticGraph("faces/cli/run.ts", "faces/verbs/inspect.ts");
    for (const other of ["table", "pool", "accounts", "doctor", "hosts", "lifecycle"])
      expect(ls.has(join(SRC, `faces/verbs/${other}.ts`))).toBe(false);
  });

  test("ls and status load no schema of `umbel hosts` (core/hosts/probe.ts: ~50 zod nodes)", () => {
    const graph = staticGraph("main.ts", "adapters/deps.ts", "faces/cli/run.ts", "faces/verbs/inspect.ts");
    expect(graph.has(join(SRC, "operations/hosts/fleet.ts"))).toBe(true);
    expect(graph.has(join(SRC, "core/hosts/probe.ts"))).toBe(false);
  });

  test("ls and status read a worker's queue without loading send (its delivery and guard planning)", () => {
    const graph = staticGraph("main.ts", "adapters/deps.ts", "faces/cli/run.ts", "faces/verbs/inspect.ts");
    expect(graph.has(join(SRC, "operations/fleet/queue-file.ts"))).toBe(true);
    for (const sender of [
      "operations/fleet/queue.ts",
      "operations/worker/send.ts",
      "operations/guard/plan.ts",
    ])
      expect([sender, graph.has(join(SRC, sender))]).toEqual([sender, false]);
  });

  test("ls and status load no provider before a worker's meta names it (core/providers/load.ts)", () => {
    const graph = staticGraph("main.ts", "adapters/deps.ts", "faces/cli/run.ts", "faces/verbs/inspect.ts");
    expect(graph.has(join(SRC, "operations/worker/worker.ts"))).toBe(true);
    expect(graph.has(join(SRC, "core/providers/registry.ts"))).toBe(false);
    for (const id of ["claude", "codex", "gemini", "opencode"])
      expect([id, graph.has(join(SRC, `core/providers/${id}/provider.ts`))]).toEqual([id, false]);
  });

  test("read loads its own module: none of spawn's, send's or wait's operations, and no provider it does not run", () => {
    const graph = staticGraph("main.ts", "adapters/deps.ts", "faces/cli/run.ts", "faces/verbs/read.ts");
    expect(graph.has(join(SRC, "operations/worker/read.ts"))).toBe(true);
    for (const other of [
      "faces/verbs/lifecycle.ts",
      "operations/spawn/spawn.ts",
      "operations/worker/send.ts",
      "operations/wait/wait.ts",
      "operations/pool/claim.ts",
      "core/providers/registry.ts",
      // wait's outcomes (~140 zod nodes with the queue's): status's rule for a hookless turn is composer.ts.
      "core/wait/outcome.ts",
    ])
      expect([other, graph.has(join(SRC, other))]).toEqual([other, false]);
  });

  test("ls, status and read build no spawn input (core/spawn/input.ts: ~100 zod nodes with the fleet's options)", () => {
    for (const verb of ["inspect", "read"]) {
      const graph = staticGraph("main.ts", "adapters/deps.ts", "faces/cli/run.ts", `faces/verbs/${verb}.ts`);
      expect(graph.has(join(SRC, "core/schemas.ts"))).toBe(true);
      for (const spawn of ["core/spawn/input.ts", "core/fleet/options.ts"])
        expect([verb, spawn, graph.has(join(SRC, spawn))]).toEqual([verb, spawn, false]);
    }
  });

  test("ls, status and read load no ajv: it is required by the first JSON Schema compiled", () => {
    const graph = staticGraph(
      "main.ts",
      "adapters/deps.ts",
      "faces/cli/run.ts",
      "faces/verbs/inspect.ts",
      "faces/verbs/lifecycle.ts",
      "faces/verbs/read.ts",
    );
    expect(graph.has(join(SRC, "core/guard/json-schema.ts"))).toBe(true);
    expect([...graph].filter((m) => m === "ajv" || m.startsWith("ajv/"))).toEqual([]);
  });
});
