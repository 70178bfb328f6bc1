import { existsSync, mkdirSync, watch } from "node:fs";
import { join } from "node:path";
import { createTmux } from "../../src/adapters/tmux.ts";

/**
 * A provider's floor: the least any TUI route can take. `argv` (the bare, pre-trusted TUI with the
 * prompt handed to it as the CLI itself allows) runs in a fresh tmux session on a private socket; the
 * time is from the tmux call to the moment `marker` exists (the CLI's own end-of-turn signal writes
 * it: a Stop hook, a plugin). `dir` is made for the round.
 */
export async function tmuxFloor(opts: {
  readonly dir: string;
  readonly marker: string;
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly argv: readonly string[];
}): Promise<number> {
  mkdirSync(opts.dir, { recursive: true });
  const tmux = createTmux({ socket: `umbel-bench-floor-${process.pid}`, hostEnv: opts.env });
  const session = `floor${Math.random().toString(16).slice(2, 8)}`;
  const started = performance.now();
  const markerDir = join(opts.marker, "..");
  mkdirSync(markerDir, { recursive: true });
  const stopped = new Promise<void>((resolve) => {
    const w = watch(markerDir, () => {
      if (!existsSync(opts.marker)) return;
      w.close();
      resolve();
    });
    if (existsSync(opts.marker)) {
      w.close();
      resolve();
    }
  });
  const env = Object.entries(opts.env).map(([k, v]) => `${k}=${v}`);
  await tmux.newSession({
    name: session,
    cwd: opts.cwd,
    width: 160,
    height: 50,
    command: ["env", ...env, ...opts.argv],
    bufferName: session,
    bufferContent: "",
  });
  await stopped;
  const took = performance.now() - started;
  await tmux.killServer().catch(() => undefined);
  return took;
}
