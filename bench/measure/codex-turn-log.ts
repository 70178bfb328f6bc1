/**
 * Where a codex worker's turns go, first turn against later ones: a worker spawned on the stub, N turns
 * (`umbel send` + `umbel wait`, traced), each turn's events on one clock, ms after its Enter: the hooks
 * (their events-log lines), the stub's requests (main, title), the rollout's lines, files codex made.
 * STRACE=<strace -e expression> (e.g. trace=execve,openat) adds the native codex's syscalls. Each
 * hook line shows how long after it umbel's send or wait saw it (a wait re-reads earlier lines: the
 * large ones are those). Not part of `npm run bench`.
 *
 *   npm run build && bun run bench/measure/codex-turn-log.ts [turns=3] [extra spawn flags...]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { seedCodexWorld, stubProviderToml } from "../../test/helpers/codex-world.ts";
import { createSandbox, UMBEL } from "../../test/helpers/sandbox.ts";
import { requireRealCodex } from "../../test/real/real-codex.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";

const turns = Number(process.argv[2] ?? 3);
const extra = process.argv.slice(3);
const bin = requireRealCodex("bench");
if (!bin) process.exit(2);
const stub = await startStubModel({ dialect: "openai" });
const sb = await createSandbox({ untrusted: true });
const world = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url));
Object.assign(sb.env, { UMBEL_CODEX_BIN: bin, CODEX_HOME: world.userCodexHome });
const epoch = () => performance.timeOrigin + performance.now();

// The stub's `at` is ms since its own start: one probe request maps it onto the epoch.
const before = epoch();
await fetch(`${stub.url}/probe`).catch(() => undefined);
const stubZero = (before + epoch()) / 2 - (stub.requests.at(-1)?.at ?? 0);

async function run(argv: string[], env = sb.env) {
  const started = epoch();
  const child = Bun.spawn(argv, { cwd: sb.work, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr, started };
}

function walk(d: string, out: string[] = []): string[] {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const w = "tw";
const spawned = await run([UMBEL, "spawn", w, "--provider", "codex", ...extra]);
if (spawned.code !== 0) throw new Error(spawned.stderr);
await Bun.sleep(1500);
let strace: ReturnType<typeof Bun.spawn> | undefined;
if (process.env.STRACE) {
  // strace of the native codex (the pane's descendants), its lines on the same clock (-ttt).
  const st = JSON.parse((await run([UMBEL, "status", w, "--json"])).stdout) as { pid: number };
  const kids = (p: number): number[] => {
    try {
      const c = readFileSync(`/proc/${p}/task/${p}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
      return c.flatMap((x) => [x, ...kids(x)]);
    } catch {
      return [];
    }
  };
  const native = kids(st.pid).find((p) => {
    try {
      return (
        readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith("/") &&
        readFileSync(`/proc/${p}/cmdline`, "utf8").includes("/bin/codex")
      );
    } catch {
      return false;
    }
  });
  strace = Bun.spawn(
    [
      "strace",
      "-f",
      "-ttt",
      "-e",
      process.env.STRACE,
      "-o",
      process.env.STRACE_OUT ?? "/tmp/codex-strace.txt",
      "-p",
      String(native),
    ],
    { stderr: "ignore" },
  );
  await Bun.sleep(1500);
}
const enters: number[] = [];
const events: { at: number; what: string }[] = [];
for (let i = 0; i < turns; i++) {
  const reqBefore = stub.requests.length;
  const sent = await run([UMBEL, "send", w, `turn ${i}`], { ...sb.env, UMBEL_TRACE: "1" });
  const enter = /\+\s*([\d.]+) ms {2}tmux send-keys =/.exec(sent.stderr.split("pasted")[1] ?? "");
  const enterAt = sent.started + Number(enter?.[1] ?? Number.NaN);
  enters.push(enterAt);
  const waited = await run([UMBEL, "wait", w], { ...sb.env, UMBEL_TRACE: "1" });
  for (const r of [sent, waited])
    for (const m of r.stderr.matchAll(/\+\s*([\d.]+) ms {2}hook (\w+) .*?\(log written ([\d.-]+) ms ago\)/g))
      events.push({
        at: r.started + Number(m[1]) - Number(m[3]),
        what: `hook ${m[2]} (seen by umbel ${m[3]} ms later)`,
      });
  for (const q of stub.requests.slice(reqBefore))
    events.push({ at: stubZero + q.at, what: `stub ${q.kind} request` });
  await Bun.sleep(1200);
}
const state = join(sb.dir, "state");
if (strace) {
  strace.kill("SIGINT");
  await strace.exited;
  for (const line of readFileSync(process.env.STRACE_OUT ?? "/tmp/codex-strace.txt", "utf8").split("\n")) {
    const [, pid, at, call] = /^(\d+)\s+(\d+\.\d+) (.*)$/.exec(line) ?? [];
    if (call !== undefined && !/resumed>|ENOENT.*\.so|futex|epoll/.test(call))
      events.push({ at: Number(at) * 1000, what: `strace ${pid} ${call.slice(0, 180)}` });
  }
}
for (const f of walk(state)) {
  if (f.includes("/codex-home/sessions/") && f.endsWith(".jsonl"))
    for (const line of readFileSync(f, "utf8").split("\n").filter(Boolean)) {
      const j = JSON.parse(line) as {
        timestamp: string;
        type: string;
        payload?: { type?: string; role?: string };
      };
      events.push({
        at: Date.parse(j.timestamp),
        what: `rollout ${j.type} ${j.payload?.type ?? ""} ${j.payload?.role ?? ""}`,
      });
    }
  const st = statSync(f);
  if (st.birthtimeMs >= (enters[0] ?? 0) - 50 && !f.includes("/codex-home/sessions/"))
    events.push({ at: st.birthtimeMs, what: `file made ${f.slice(state.length)}` });
}
events.sort((a, b) => a.at - b.at);
let k = -1;
for (const e of events) {
  if (Number.isNaN(e.at)) continue;
  while (k + 1 < enters.length && e.at >= (enters[k + 1] ?? 0) - 30) console.log(`===== turn ${++k} (Enter)`);
  const enter = enters[k];
  if (enter === undefined) continue;
  console.log(`${(e.at - enter).toFixed(1).padStart(8)}  ${e.what}`);
}
await run([UMBEL, "kill", w]);
await sb.dispose();
await stub.stop();
