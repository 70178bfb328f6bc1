/**
 * Verb start-up, in one run: each command 21 times, interleaved, median wall time and CPU.
 *
 * - `--version` as a ratio to `claude --version` (the real CLI's own fastest path).
 * - `ls`, `status w1`, `read w1` as a ratio to their floor: a compiled Bun "hello" (built with
 *   umbel's own flags, scripts/compile-flags.ts) plus the tmux calls the verb makes, each its own
 *   process on the sandbox's private socket, timed in the same rounds. The calls are found by a
 *   `tmux` first on the verbs' PATH that writes down its argv before it runs the real one.
 *
 * The verbs run against the fake claude with one worker that has answered one turn. One row per
 * command goes to run-all's table (bench/lib/report.ts).
 *
 *   npm run build && bun run bench/startup.ts [rounds=21]
 */
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { COMPILE_FLAGS } from "../scripts/compile-flags.ts";
import { createSandbox, UMBEL } from "../test/helpers/sandbox.ts";
import { findRealClaude } from "../test/real/real-bin.ts";
import { report } from "./lib/report.ts";
import { machine, median, ms } from "./lib/stats.ts";

type Sample = { wall: number; cpu: number };

const rounds = Number(process.argv[2] ?? 21);
const VERBS: [string, string[]][] = [
  ["umbel ls", ["ls"]],
  ["umbel status w1", ["status", "w1"]],
  ["umbel read w1", ["read", "w1"]],
];

const sb = await createSandbox();
try {
  await sb.umbel(["spawn", "w1"]);
  const sent = await sb.umbel(["send", "w1", "fake:reply ready"]);
  await sb.umbel(["wait", "w1", "--after", sent.stdout.trim()]);
  const hello = await compileHello(join(sb.dir, "hello"));
  const tmuxCalls = new Map<string, string[][]>();
  for (const [label, args] of VERBS) tmuxCalls.set(label, await recordTmuxCalls(args));

  const claude = findRealClaude();
  const commands: [string, string[]][] = [
    ...(claude ? [["claude --version", [claude, "--version"]] as [string, string[]]] : []),
    ["bun -e 0", [join(import.meta.dir, "..", "node_modules", ".bin", "bun"), "-e", "0"]],
    ["hello (compiled)", [hello]],
    ["umbel --version", [UMBEL, "--version"]],
    ...VERBS.map(([label, args]): [string, string[]] => [label, [UMBEL, ...args]]),
  ];
  // Each verb's tmux calls, as the verb makes them (same argv, same environment, same socket).
  const calls = [...new Set([...tmuxCalls.values()].flat().map((argv) => JSON.stringify(argv)))];
  const samples = new Map<string, Sample[]>();
  for (let i = 0; i < rounds; i++) {
    for (const [label, argv] of commands) push(samples, label, await time(argv));
    for (const call of calls) push(samples, call, await time(JSON.parse(call) as string[], true));
  }

  const base = commands[0]?.[0] ?? "";
  const claudeMs = median(wallOf(samples, base));
  console.log(
    `start-up, median of ${rounds} (${await machine()}); ×claude: ratio to ${base}; ×floor: to a compiled hello + the verb's tmux calls (wall, and CPU)`,
  );
  for (const [label] of commands) {
    const wall = median(wallOf(samples, label));
    const cpu = median((samples.get(label) ?? []).map((s) => s.cpu));
    const verbCalls = tmuxCalls.get(label);
    const floor = verbCalls ? floorOf(samples, verbCalls) : undefined;
    const floorCpu = verbCalls ? floorOf(samples, verbCalls, "cpu") : Number.NaN;
    console.log(
      `${label.padEnd(18)} wall ${ms(wall).padStart(8)}  cpu ${ms(cpu).padStart(8)}  ×claude ${(wall / claudeMs).toFixed(2)}${
        floor === undefined
          ? ""
          : `  floor ${ms(floor).padStart(8)} (hello + ${verbCalls?.length} tmux: ${names(verbCalls)})  ×floor ${(wall / floor).toFixed(2)}  cpu ×floor ${(cpu / floorCpu).toFixed(2)}`
      }`,
    );
    report({
      bench: "startup",
      label,
      wallMs: wall,
      cpuMs: cpu,
      ...(floor === undefined ? {} : { floorMs: floor, floorCpuMs: floorCpu }),
      vsClaude: wall / claudeMs,
    });
  }
} finally {
  await sb.dispose();
}

/** `console.log("hi")` compiled with umbel's own flags: what any compiled Bun program pays to start. */
async function compileHello(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "hello.ts"), 'console.log("hi");\n');
  const out = join(dir, "hello");
  const built = Bun.spawnSync([process.execPath, "build", ...COMPILE_FLAGS, "hello.ts", "--outfile", out], {
    cwd: dir,
    stdout: "ignore",
    stderr: "inherit",
  });
  if (built.exitCode !== 0) throw new Error("bench: could not compile the hello");
  return out;
}

/**
 * The tmux calls `umbel ARGS` makes, in order, each as the argv to run it with: a `tmux` first on
 * PATH writes its arguments (NUL-separated, one call a line) and execs the real one.
 */
async function recordTmuxCalls(args: readonly string[]): Promise<string[][]> {
  const real = Bun.which("tmux", { PATH: sb.env.PATH ?? "" });
  if (!real) throw new Error("bench: tmux is not on PATH");
  const shim = join(sb.dir, "tmux-shim");
  const log = join(shim, "calls");
  await rm(shim, { recursive: true, force: true });
  await mkdir(shim);
  await writeFile(log, "");
  await writeFile(
    join(shim, "tmux"),
    `#!/bin/sh\nfor a in "$@"; do printf '%s\\0' "$a"; done >> '${log}'\nprintf '\\n' >> '${log}'\nexec '${real}' "$@"\n`,
  );
  await chmod(join(shim, "tmux"), 0o755);
  const result = await sb.umbel([...args], { env: { PATH: `${shim}:${sb.env.PATH}` } });
  if (result.code !== 0) throw new Error(`bench: umbel ${args.join(" ")} exited ${result.code}`);
  const text = await readFile(log, "utf8");
  return text
    .split("\0\n")
    .filter((line) => line !== "")
    .map((line) => [real, ...line.split("\0")]);
}

async function time(argv: string[], tmux = false): Promise<Sample> {
  const started = performance.now();
  const child = Bun.spawn(argv, {
    cwd: sb.work,
    env: sb.env,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  const code = await child.exited;
  // A tmux call may answer non-zero as the verb's own did (no such session is an answer).
  if (code !== 0 && !tmux) throw new Error(`${argv.join(" ")} exited ${code}`);
  const usage = child.resourceUsage();
  const cpu = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : Number.NaN;
  return { wall: performance.now() - started, cpu };
}

/**
 * Per round, the hello plus each of the verb's calls; the median over rounds. `cpu`: their CPU
 * instead (a tmux client's own: the server's work for it is not counted), steadier on a loaded machine.
 */
function floorOf(
  all: Map<string, Sample[]>,
  verbCalls: readonly string[][],
  of: keyof Sample = "wall",
): number {
  const pick = (label: string) => (all.get(label) ?? []).map((s) => s[of]);
  return median(
    pick("hello (compiled)").map((h, i) =>
      verbCalls.reduce((sum, argv) => sum + (pick(JSON.stringify(argv))[i] ?? 0), h),
    ),
  );
}

/** `display-message`: each call's tmux command (the first word after the global flags). */
function names(verbCalls: readonly string[][] | undefined): string {
  const commandOf = (argv: readonly string[]) =>
    argv
      .slice(1)
      .find((arg, i, rest) => !arg.startsWith("-") && !["-L", "-f", "-S"].includes(rest[i - 1] ?? ""));
  return (verbCalls ?? []).map((argv) => commandOf(argv) ?? "?").join(", ") || "none";
}

function wallOf(all: Map<string, Sample[]>, label: string): number[] {
  return (all.get(label) ?? []).map((s) => s.wall);
}

function push(all: Map<string, Sample[]>, label: string, sample: Sample): void {
  all.set(label, [...(all.get(label) ?? []), sample]);
}
