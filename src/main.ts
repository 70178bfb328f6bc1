import pkg from "../package.json" with { type: "json" };
import { runMain } from "./entry.ts";

// Static imports are evaluated before this line: the trace's "modules loaded" (faces load lazily).
const loadedAt = performance.now();

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

const code = await runMain(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  signal: controller.signal,
  version: pkg.version,
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  readStdin: () => Bun.stdin.text(),
  stdinIsTty: process.stdin.isTTY === true,
  stdoutIsTty: process.stdout.isTTY === true,
  columns: process.stdout.columns,
  loadedAt,
});
process.exit(code);
