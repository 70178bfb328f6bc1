/**
 * One remote verb's cost (docs/hosts.md, docs/performance.md): `umbel status box:w` on a worker of a
 * "remote" umbel behind a real sshd on loopback (test/helpers/sshd.ts), with the master connection
 * (ControlMaster=auto, the default) and without it (`-o ControlPath=none` in UMBEL_SSH_COMMAND, whose
 * options come first and so win), beside the same verb run on the host itself and ssh's own round
 * trip. Median of N runs each; loopback, so these are umbel's and ssh's costs, not a network's.
 *
 *   npm run build && bun run bench/hosts.ts [runs=11]
 */
import { createHostPair } from "../test/helpers/sshd.ts";
import { machine, median, ms } from "./lib/stats.ts";

const runs = Number(process.argv[2] ?? 11);
const pair = await createHostPair();
const { local, remote, sshd } = pair;

async function timed(run: () => Promise<{ code: number; stderr: string }>): Promise<number> {
  const started = performance.now();
  const r = await run();
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`);
  return performance.now() - started;
}

type Call = { label: string; run: () => Promise<{ code: number; stderr: string }> };

/** Round-robin: each round runs every call once, so a load that comes and goes hits them alike. */
async function rounds(calls: readonly Call[]): Promise<string[]> {
  const samples = calls.map(() => [] as number[]);
  for (let i = 0; i < runs; i++)
    for (const [k, call] of calls.entries()) samples[k]?.push(await timed(call.run));
  return calls.map((call, k) => {
    const s = samples[k] ?? [];
    return `| ${call.label} | ${ms(median(s))} | ${ms(Math.min(...s))} | ${ms(Math.max(...s))} |`;
  });
}

const sshRun = (extra: string[], args: string[]) => async () => {
  const child = Bun.spawn(
    [...sshd.sshCommand.split(" "), ...extra, "-o", "BatchMode=yes", sshd.alias, ...args],
    {
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  return { code, stderr };
};
const NO_MASTER = { UMBEL_SSH_COMMAND: `${sshd.sshCommand} -o ControlMaster=no -o ControlPath=none` };

try {
  const spawned = await local.umbel(["spawn", "w", "--host", "box"]);
  if (spawned.code !== 0) throw new Error(spawned.stderr);
  // The first call opens the master; the calls over it afterwards ride on it (ControlPersist 60 s).
  const first = await timed(() => local.umbel(["status", "box:w", "--json"]));
  const rows = await rounds([
    {
      label: "`umbel status w` on the host itself (no ssh)",
      run: () => remote.umbel(["status", "w", "--json"]),
    },
    { label: "`ssh box true`, a new connection each time", run: sshRun([], ["true"]) },
    {
      label: "`ssh box true` over the master",
      run: sshRun(["-o", `ControlPath=${local.root}/ssh/%C`], ["true"]),
    },
    {
      label: "`umbel status box:w`, no master (`-o ControlPath=none`)",
      run: () => local.umbel(["status", "box:w", "--json"], { env: NO_MASTER }),
    },
    {
      label: "`umbel status box:w` over the master (the default)",
      run: () => local.umbel(["status", "box:w", "--json"]),
    },
  ]);
  console.log(`${await machine()}; ${runs} runs each; the call that opened the master: ${ms(first)}\n`);
  console.log("| call | median | min | max |\n|---|---|---|---|");
  for (const row of rows) console.log(row);
  await local.umbel(["kill", "box:w", "--purge"]);
} finally {
  await pair.dispose();
}
