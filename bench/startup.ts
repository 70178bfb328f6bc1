/**
 * Verb start-up against `claude --version` (the real CLI's own fastest path), in one run: each
 * command 21 times, interleaved, median wall time and CPU, as a ratio to claude --version. The
 * verbs run against the fake claude with one worker that has answered one turn.
 *
 *   npm run build && bun run bench/startup.ts [rounds=21]
 */
import { join } from "node:path";
import { createSandbox, UMBEL } from "../test/helpers/sandbox.ts";
import { findRealClaude } from "../test/real/real-bin.ts";
import { machine, median, ms } from "./lib/stats.ts";

const rounds = Number(process.argv[2] ?? 21);
const sb = await createSandbox();
try {
  await sb.umbel(["spawn", "w1"]);
  const sent = await sb.umbel(["send", "w1", "fake:reply ready"]);
  await sb.umbel(["wait", "w1", "--after", sent.stdout.trim()]);
  const claude = findRealClaude();
  const commands: [string, string[]][] = [
    ...(claude ? [["claude --version", [claude, "--version"]] as [string, string[]]] : []),
    ["bun -e 0", [join(import.meta.dir, "..", "node_modules", ".bin", "bun"), "-e", "0"]],
    ["umbel --version", [UMBEL, "--version"]],
    ["umbel ls", [UMBEL, "ls"]],
    ["umbel status w1", [UMBEL, "status", "w1"]],
    ["umbel read w1", [UMBEL, "read", "w1"]],
  ];
  const wall = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  for (let i = 0; i < rounds; i++) {
    for (const [label, argv] of commands) {
      const started = performance.now();
      const child = Bun.spawn(argv, { cwd: sb.work, env: sb.env, stdout: "ignore", stderr: "ignore" });
      const code = await child.exited;
      if (code !== 0) throw new Error(`${label} exited ${code}`);
      wall.set(label, [...(wall.get(label) ?? []), performance.now() - started]);
      const usage = child.resourceUsage();
      if (usage)
        cpu.set(label, [...(cpu.get(label) ?? []), Number(usage.cpuTime.user + usage.cpuTime.system) / 1000]);
    }
  }
  const base = median(wall.get(commands[0]?.[0] ?? "") ?? []);
  console.log(`start-up, median of ${rounds} (${await machine()}); ratio to ${commands[0]?.[0]}`);
  for (const [label] of commands)
    console.log(
      `${label.padEnd(18)} wall ${ms(median(wall.get(label) ?? [])).padStart(8)}  cpu ${ms(median(cpu.get(label) ?? [])).padStart(8)}  ×${(median(wall.get(label) ?? []) / base).toFixed(2)}`,
    );
} finally {
  await sb.dispose();
}
