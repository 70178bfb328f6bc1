/**
 * What `spawn --account auto` costs over `spawn --account NAME` (issue 24 §2: placement costs no
 * tmux call and no CLI start), on the fake claude with two declared accounts and a few live
 * workers, measured in one run, ratios not asserted:
 * - the CLI: `spawn --account auto` against `spawn --account work`, interleaved, median wall time;
 * - the placement alone, in this process on the real ports, against a no-op placement (a named
 *   account: placeSpawn returns at once), median of many;
 * - the tmux calls between the trace's `placement NAME: looking` and its decision (UMBEL_TRACE to a
 *   file marks every tmux call): 0 is the point.
 *
 *   npm run build && bun run bench/placement.ts [rounds=9] [workers=10]
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { placeSpawn } from "../src/operations/accounts/place.ts";
import { listWorkers } from "../src/operations/worker/status.ts";
import { createSandbox, type Sandbox } from "../test/helpers/sandbox.ts";
import { report } from "./lib/report.ts";
import { machine, median, ms } from "./lib/stats.ts";

const rounds = Number(process.argv[2] ?? 9);
const workers = Number(process.argv[3] ?? 10);

async function ok(sb: Sandbox, args: string[], env: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  const r = await sb.umbel(args, { env });
  if (r.code !== 0) throw new Error(`umbel ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return performance.now() - started;
}

// A subscriber's token: the fake claude's statusline then carries rate_limits (each worker's windows).
const sb = await createSandbox({ env: { BENCH_TOKEN: "sk-ant-oat01-bench" } });
try {
  const home = (name: string) => join(sb.dir, `home-${name}`);
  for (const name of ["work", "play"]) {
    mkdirSync(home(name));
    copyFileSync(join(sb.cfg, "fake-trusted"), join(home(name), "fake-trusted"));
  }
  mkdirSync(sb.root, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(sb.root, "config.toml"),
    ["work", "play"]
      .map(
        (name) =>
          `[accounts.${name}]\nprovider = "claude"\nhome = "${home(name)}"\nenv = { CLAUDE_CODE_OAUTH_TOKEN = "BENCH_TOKEN" }\n`,
      )
      .join("\n"),
  );
  console.log(`placement on the fake claude (${await machine()})`);
  // Live workers for placement to count (meta.json and exit record of each).
  for (let i = 0; i < workers; i++) await ok(sb, ["spawn", `live${i}`, "--account", i % 2 ? "work" : "play"]);

  const trace = join(sb.dir, "trace.log");
  const auto: number[] = [];
  const named: number[] = [];
  for (let i = 0; i < rounds; i++) {
    auto.push(await ok(sb, ["spawn", `a${i}`, "--account", "auto"], { UMBEL_TRACE: trace }));
    named.push(await ok(sb, ["spawn", `n${i}`, "--account", "work"]));
    await ok(sb, ["kill", `a${i}`, "--purge"]);
    await ok(sb, ["kill", `n${i}`, "--purge"]);
  }
  const a = median(auto);
  const n = median(named);
  report({ bench: "placement", autoMs: a, namedMs: n });
  console.log(
    `spawn --account auto ${ms(a).padStart(8)}   --account work ${ms(n).padStart(8)}   (×${(a / n).toFixed(2)}, ${rounds} rounds, ${workers} live workers)`,
  );

  // tmux calls inside placement, from the trace of every auto spawn.
  let inside = 0;
  let placements = 0;
  let open = false;
  for (const line of readFileSync(trace, "utf8").split("\n")) {
    const what = line.replace(/^umbel\[\d+\] +\+ *[\d.]+ ms {2}/, "");
    if (/^placement a\d+: looking$/.test(what)) open = true;
    else if (open && what.startsWith("placement a")) {
      open = false;
      placements++;
    } else if (open && what.startsWith("tmux ")) inside++;
  }
  console.log(`tmux calls during placement: ${inside} in ${placements} placements`);

  // The placement alone, in process, on the real ports: auto against a named account (a no-op).
  const deps = sb.deps();
  const timeOf = async (account: string, n: number) => {
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await placeSpawn(deps, { name: "b", provider: "claude", account });
      samples.push(performance.now() - started);
    }
    return median(samples);
  };
  await timeOf("auto", 5);
  const place = await timeOf("auto", 101);
  const noop = await timeOf("work", 101);
  console.log(
    `placeSpawn alone      auto ${ms(place).padStart(8)}   named (no-op) ${(noop * 1000).toFixed(1)} µs   (${workers} live workers, 3 records)`,
  );

  // What keeping the records adds to ls: every live worker's windows go to its account's record.
  const noRecords = {
    ...deps,
    store: { ...deps.store, updateAccountWindows: deps.store.readAccountWindows },
  };
  const lsOf = async (d: typeof deps, n: number) => {
    const samples: number[] = [];
    for (let i = 0; i < n; i++) {
      const started = performance.now();
      await listWorkers(d);
      samples.push(performance.now() - started);
    }
    return median(samples);
  };
  let kept = 0;
  let off = 0;
  for (let i = 0; i < 5; i++) {
    kept += await lsOf(deps, 5);
    off += await lsOf(noRecords, 5);
  }
  console.log(
    `ls (listWorkers)  records kept ${ms(kept / 5).padStart(8)}   not kept ${ms(off / 5).padStart(8)}   (×${(kept / off).toFixed(2)}, ${workers} workers with windows)`,
  );
} finally {
  await sb.dispose();
}
