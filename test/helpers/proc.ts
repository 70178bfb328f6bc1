// What a test can see of this machine's processes and files: every argv while a call runs (both
// "hosts" of the sshd harness are this machine) and the files a secret must not reach.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every argv on this machine while `run` runs, sampled from /proc every 5 ms (NULs as spaces). */
export async function sampleArgv<T>(run: () => Promise<T>): Promise<{ result: T; argvs: Set<string> }> {
  const argvs = new Set<string>();
  let done = false;
  const sampler = (async () => {
    while (!done) {
      for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue;
        try {
          argvs.add(readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " "));
        } catch {
          // gone meanwhile
        }
      }
      await Bun.sleep(5);
    }
  })();
  try {
    return { result: await run(), argvs };
  } finally {
    done = true;
    await sampler;
  }
}

/** Every regular file under `dir`, recursively (a folder that vanishes meanwhile is skipped). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e);
      const st = statSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(p);
      else if (st?.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** The files under `dirs` whose bytes hold `needle` (a file that vanishes meanwhile holds nothing). */
export function filesHolding(dirs: string[], needle: string): string[] {
  return dirs.flatMap(filesUnder).filter((file) => {
    try {
      return readFileSync(file, "utf8").includes(needle);
    } catch {
      return false;
    }
  });
}

/** The pids of an umbel's `VERB --stdin-json` processes (a host's: run in that state root), from /proc. */
export function stdinJsonProcesses(verb: string, stateRoot: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv[1] !== verb || argv[2] !== "--stdin-json") continue;
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(`UMBEL_HOME=${stateRoot}`))
        pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
