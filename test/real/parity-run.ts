// What the dialect parity files share: running a CLI as a child, reading JSON lines, comparing
// shapes, and a limiter (the host has 2 cores: a few TUIs at once, no more).
import { expect } from "bun:test";

export type Run = { code: number; stdout: string; stderr: string };
export type Json = Record<string, unknown>;

const RUN_TIMEOUT_MS = 120_000;

export async function runCli(
  argv: string[],
  at: { cwd: string; env: Record<string, string> },
  stdin?: string,
): Promise<Run> {
  const child = Bun.spawn(argv, {
    cwd: at.cwd,
    env: at.env,
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
    timeout: RUN_TIMEOUT_MS,
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** The JSON lines of a stream (blank lines skipped). */
export function jsonLines(stdout: string): Json[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Json);
}

function typeOf(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
}

/**
 * The same keys, recursively, with values of the same JSON type; `umbel` (umbel's own record) is
 * left out of the comparison, and `open` names objects whose keys are data (a model's name, a
 * tool's name) whose values are compared as shapes of each other.
 */
export function expectSameShape(
  mine: unknown,
  real: unknown,
  path = "$",
  open: readonly string[] = [],
): void {
  expect({ path, type: typeOf(mine) }).toEqual({ path, type: typeOf(real) });
  if (typeOf(real) !== "object") return;
  const [m, r] = [mine as Json, real as Json];
  const key = path.split(".").at(-1) ?? "";
  if (open.includes(key)) {
    const [first] = Object.values(r);
    for (const [name, value] of Object.entries(m))
      if (first !== undefined) expectSameShape(value, first, `${path}.${name}`, open);
    return;
  }
  const mineKeys = Object.keys(m).filter((k) => k !== "umbel");
  expect({ path, keys: mineKeys.sort() }).toEqual({ path, keys: Object.keys(r).sort() });
  for (const k of Object.keys(r)) expectSameShape(m[k], r[k], `${path}.${k}`, open);
}

/** Two event streams, event by event (the types in order are compared first by the caller). */
export function expectSameShapes(
  mine: readonly Json[],
  real: readonly Json[],
  open: readonly string[] = [],
): void {
  for (const [i, event] of real.entries()) expectSameShape(mine[i], event, `$[${i}]`, open);
}

/** Runs at most n of the tasks at once. */
export function limiter(n: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => queue.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      queue.shift()?.();
    }
  };
}
