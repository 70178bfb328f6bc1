/**
 * End-of-turn event → `umbel wait` process exit, p50 / p99 / max: a worker (the fake claude, busy on a
 * turn that never ends by itself) is waited on by a fresh `umbel wait`; the bench then runs the
 * worker's real scripts as claude would at a turn's end: its hook script with a Stop payload, and its
 * statusline script with that turn's JSON (wait hands back the turn's own numbers, so it exits on the
 * later of the two). claude rewrites its statusline ~0.4 s after Stop, but either may come last, so
 * the rounds alternate: even rounds run the statusline first and time from the Stop hook's start;
 * odd rounds run Stop first and time from the statusline script's start. Either way the clock starts
 * when the CLI hands umbel the turn's last event, and stops at the wait's exit: umbel's own part,
 * its own scripts included. Also from the last script's end (its line or rename), and the wait's
 * CPU time while it waited (an event-driven wait should spend ~none). Ratios are not asserted
 * anywhere.
 *
 *   npm run build && bun run bench/hook-latency.ts [rounds=20]
 */
import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, UMBEL } from "../test/helpers/sandbox.ts";
import { report } from "./lib/report.ts";
import { machine, ms, percentile } from "./lib/stats.ts";

const rounds = Number(process.argv[2] ?? 20);
const IDLE_MS = 1500;
const USAGE = { input_tokens: 3, output_tokens: 2 };
const sb = await createSandbox();
try {
  const spawned = await sb.umbel(["spawn", "w1"]);
  if (spawned.code !== 0) throw new Error(`spawn failed: ${spawned.stderr}`);
  const sent = await sb.umbel(["send", "w1", "fake:hang"]);
  if (sent.code !== 0) throw new Error(`send failed: ${sent.stderr}`);
  const log = join(sb.root, "sessions", "w1", "events", "hooks.jsonl");
  const script = (prefix: string) =>
    join(sb.root, "bin", readdirSync(join(sb.root, "bin")).find((f) => f.startsWith(prefix)) ?? "");
  const [hook, statusLine] = [script("hook-"), script("statusline-")];
  const runScript = async (path: string, target: string, payload: object, args: string[] = []) => {
    const child = Bun.spawn(["sh", path, target, ...args], {
      stdin: new Blob([JSON.stringify(payload)]),
      stdout: "ignore",
    });
    await child.exited;
  };
  // hook.sh's arguments as the provider's hook command gives them: the log, the worker's incarnation
  // (none here: the check is skipped), the event.
  const runHook = (payload: { hook_event_name: string; [key: string]: unknown }) =>
    runScript(hook, log, payload, ["", payload.hook_event_name]);
  const lines = async () => (await Bun.file(log).text()).split("\n").length - 1;
  // The fake claude's transcript, as its SessionStart hook named it (a line of hooks.jsonl is the payload).
  const transcript = (await Bun.file(log).text())
    .split("\n")
    .map((l) => (l.trim() === "" ? null : (JSON.parse(l) as { transcript_path?: string })))
    .map((e) => e?.transcript_path)
    .find((p): p is string => typeof p === "string");
  if (transcript === undefined) throw new Error("no transcript_path in the worker's events");

  const fromStart: number[] = [];
  const fromLine: number[] = [];
  const fromStatusLine: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // A new turn to wait for: its UserPromptSubmit, then a fresh wait after it.
    const after = await lines();
    await runHook({ hook_event_name: "UserPromptSubmit", session_id: "S", prompt_id: `b${i}`, prompt: "x" });
    const wait = Bun.spawn([UMBEL, "wait", "w1", "--after", String(after)], {
      cwd: sb.work,
      env: { ...sb.env, UMBEL_TRACE: process.env.HL_TRACE ?? "" },
      stdout: "pipe",
      stderr: "pipe",
    });
    // Let it start and settle into waiting (its start-up is not what is measured).
    await Bun.sleep(IDLE_MS);
    // The turn's transcript as claude leaves it by Stop: the prompt, the reply with its usage, the
    // turn's end. The statusline below then carries that usage, so wait's telemetry settles at once
    // (without these it held its 2 s settle for the turn's own numbers, and that was what was timed).
    appendFileSync(
      transcript,
      [
        { type: "user", promptId: `b${i}`, message: { role: "user", content: "x" } },
        { type: "assistant", message: { id: `m${i}`, role: "assistant", usage: USAGE } },
        { type: "system", subtype: "turn_duration", durationMs: 1 },
      ]
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(""),
    );
    const stop = () =>
      runHook({
        hook_event_name: "Stop",
        session_id: "S",
        prompt_id: `b${i}`,
        last_assistant_message: `answer ${i}`,
      });
    const status = () =>
      runScript(statusLine, join(sb.root, "sessions", "w1", "events", "statusline.json"), {
        prompt_id: `b${i}`,
        cost: { total_cost_usd: i / 1000 },
        context_window: { current_usage: USAGE },
      });
    const stopLast = i % 2 === 0;
    await (stopLast ? status : stop)();
    const started = performance.now();
    await (stopLast ? stop : status)();
    const done = performance.now();
    const code = await wait.exited;
    const exited = performance.now();
    if (code !== 0) throw new Error(`wait exited ${code}: ${await new Response(wait.stderr).text()}`);
    fromStart.push(exited - started);
    (stopLast ? fromLine : fromStatusLine).push(exited - done);
    const usage = wait.resourceUsage();
    if (usage) cpu.push(Number(usage.cpuTime.user + usage.cpuTime.system) / 1000);
  }
  const row = (label: string, xs: number[]) =>
    `${label.padEnd(34)} p50 ${ms(percentile(xs, 50)).padStart(8)}  p99 ${ms(percentile(xs, 99)).padStart(8)}  max ${ms(Math.max(...xs)).padStart(8)}`;
  console.log(`end-of-turn event → wait exit (${rounds} rounds; ${await machine()})`);
  console.log(row("last event's script start → exit", fromStart));
  console.log(row("Stop last: line appended → exit", fromLine));
  console.log(row("statusline last: renamed → exit", fromStatusLine));
  console.log(row(`wait CPU (start-up + ${IDLE_MS / 1000} s idle)`, cpu));
  report({
    bench: "hook-latency",
    p50Ms: percentile(fromStart, 50),
    p99Ms: percentile(fromStart, 99),
    maxMs: Math.max(...fromStart),
    fromLineP50Ms: percentile(fromLine, 50),
  });
} finally {
  await sb.dispose();
}
