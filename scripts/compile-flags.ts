/**
 * The flags of every `bun build --compile` of umbel (scripts/build.ts and scripts/release.ts), each
 * measured on a 2-core machine (docs/performance.md):
 * - `--bytecode` (ESM, for main.ts's top-level await): the bundle is not parsed at each start;
 *   `umbel --version` 118 → 20 ms, `umbel ls` 136 → 55 ms. Works for every release target.
 * - Not `--minify`: identifier mangling renames error classes, and their names are part of the JSON
 *   error contract (`class`); with bytecode it bought nothing measurable (`ls` 56 vs 63 ms, noise).
 *   Syntax and whitespace minification are safe.
 * - No bunfig.toml or .env autoload: a standalone Bun executable reads both from the cwd by
 *   default, so a project's bunfig `preload` ran its code inside umbel, and its .env set umbel's own
 *   variables (UMBEL_HOME, a worker's allowlisted names). umbel is a CLI, not a Bun runtime.
 * - `--splitting`: each lazily imported face is a chunk of its own. Without it every `node:` import
 *   of the whole bundle (fs/promises, os, util, bun:sqlite…) is hoisted to the top and loaded by
 *   every run: `umbel --version` 16.2 → 11.6 ms of CPU (a compiled hello: 5.9); `ls` alike.
 * - `--compile-jit-policy`: the binary starts with JavaScriptCore's tier-up thresholds scaled by
 *   JIT_START_SCALE, so run-once start-up code (zod building ~1,600 schema nodes, the verb table)
 *   stays in the interpreter instead of feeding the JIT's compiler threads. main.ts puts the
 *   normal policy back once the process has lived JIT_NORMAL_AFTER_MS (a server, a wait, a run).
 *   CPU medians on 2 loaded cores: `umbel ls` 63 → 41 ms, the policy hook 116 → 81 ms; 20 and 100
 *   measured alike, 4 half as well.
 */
const JIT_START_SCALE = 20;
export const COMPILE_FLAGS = [
  "--compile",
  "--bytecode",
  "--format=esm",
  "--splitting",
  "--minify-syntax",
  "--minify-whitespace",
  "--sourcemap",
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-dotenv",
  `--compile-jit-policy=${JIT_START_SCALE}`,
] as const;
