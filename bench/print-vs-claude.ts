/**
 * `umbel -p` against the vendor's own `claude -p`, both on the real Claude Code and the same local
 * stub model, measured in one run and reported as a ratio (never asserted in tests).
 *
 *   npm run build && npm run setup:real && bun run bench/print-vs-claude.ts [rounds=5]
 *
 * umbel pays for a TUI start (spawn → ready), a paste and the hook round trips; claude -p pays for
 * its own start. The ratio says what routing a turn through the interactive TUI costs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTmux, deriveSocket } from "../src/adapters/tmux.ts";
import { claudeEnv, seedClaudeHome } from "../test/real/claude-home.ts";
import { findRealClaude } from "../test/real/real-bin.ts";
import { startStubModel } from "../test/stub-model/stub-model.ts";

const rounds = Number(process.argv[2] ?? 5);
const claude = findRealClaude();
if (!claude) {
  console.error("bench: the real claude is not installed (npm run setup:real)");
  process.exit(2);
}
const umbel = join(import.meta.dir, "..", "dist", "umbel");
const dir = mkdtempSync(join(tmpdir(), "umbel-bench-"));
const stub = await startStubModel({ dialect: "anthropic" });
const apiKey = "sk-ant-bench-0123456789abcdefghij";
const layout = seedClaudeHome(join(dir, "claude"), { apiKey, trustedDirs: [dir] });
const env = {
  ...claudeEnv(layout, { baseUrl: stub.url, apiKey }),
  UMBEL_HOME: join(dir, "state"),
  UMBEL_CLAUDE_BIN: claude,
};

async function time(argv: string[]): Promise<number> {
  const started = performance.now();
  const child = Bun.spawn(argv, { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0 || !out.includes("STUB-REPLY")) throw new Error(`${argv[0]} failed (${code}): ${out}`);
  return performance.now() - started;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const vendor: number[] = [];
const ours: number[] = [];
try {
  for (let i = 0; i < rounds; i++) {
    vendor.push(await time([claude, "-p", `bench round ${i}`]));
    ours.push(await time([umbel, "-p", `bench round ${i}`, "--env", "ANTHROPIC_API_KEY"]));
  }
} finally {
  await createTmux({ socket: deriveSocket(env.UMBEL_HOME, undefined), hostEnv: env })
    .killServer()
    .catch(() => undefined);
  await stub.stop();
  rmSync(dir, { recursive: true, force: true });
}
const [v, u] = [median(vendor), median(ours)];
console.log(`claude -p  median ${v.toFixed(0)} ms  (${vendor.map((x) => x.toFixed(0)).join(", ")})`);
console.log(`umbel -p   median ${u.toFixed(0)} ms  (${ours.map((x) => x.toFixed(0)).join(", ")})`);
console.log(`ratio umbel/claude: ${(u / v).toFixed(2)}`);
