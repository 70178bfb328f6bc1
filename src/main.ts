import pkg from "../package.json" with { type: "json" };
import { isatty, writeAllSync } from "./adapters/stdio.ts";
import { runMain } from "./entry.ts";

// Static imports are evaluated before this line: the trace's "modules loaded" (faces load lazily).
const loadedAt = performance.now();

/**
 * The binary starts with the JIT's tier-up thresholds scaled up (scripts/compile-flags.ts): a short
 * verb's run-once code stays in the interpreter. A process that lives on (mcp, wait, run, spawn)
 * gets the normal JIT back after this long; the timer never keeps a process alive.
 */
const JIT_NORMAL_AFTER_MS = 1000;
setTimeout(() => Bun.unsafe.setJITPolicy(1), JIT_NORMAL_AFTER_MS).unref();

/**
 * The process around one run of umbel (entry.ts holds the error boundary and picks the face): the
 * signals, the standard streams, and the one process.exit.
 */
const controller = new AbortController();
let interrupts = 0;
process.on("SIGINT", () => {
  // First Ctrl-C: abort cleanly (spawn unwinds, -p purges its worker, wait returns aborted).
  if (++interrupts > 1) process.exit(130);
  controller.abort();
});
process.on("SIGTERM", () => controller.abort());
// A closed terminal or a dropped ssh: the same clean stop (-p's anonymous worker goes with it).
process.on("SIGHUP", () => controller.abort());

const code = await runMain(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
  version: pkg.version,
  // Not process.stdout.write: its first call builds Bun's node:stream machinery (adapters/stdio.ts).
  out: (text) => writeAllSync(1, text),
  err: (text) => writeAllSync(2, text),
  readStdin: () => Bun.stdin.text(),
  stdinStream: () => Bun.stdin.stream(),
  stdinIsTty: isatty(0),
  stdoutIsTty: isatty(1),
  // Only a terminal has a width; process.stdout itself is left unbuilt otherwise (~1 ms).
  columns: isatty(1) ? process.stdout.columns : undefined,
  loadedAt,
});
process.exit(code);
