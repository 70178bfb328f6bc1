import { join } from "node:path";
import type { ProviderBench } from "./bench-types.ts";
import { setUpClaude } from "./claude-stub.ts";
import { tmuxFloor } from "./floor.ts";

/** The real claude on the stub: `claude -p` against `umbel -p`, and claude's floor. */
export async function setUpClaudeBench(): Promise<ProviderBench | null> {
  const claude = await setUpClaude();
  if (!claude) return null;
  return {
    id: "claude",
    cwd: claude.dir,
    env: claude.env,
    umbelFlags: ["--env", "ANTHROPIC_API_KEY"],
    vendorLabel: "claude -p",
    vendor: (prompt) => ({ argv: [claude.claude, "-p", prompt], env: claude.env }),
    bin: claude.claude,
    /** The TUI with the prompt on its command line, until its Stop hook runs. */
    floor(round) {
      const dir = join(claude.dir, `floor-${round}`);
      const marker = join(dir, "stopped");
      const stop = {
        hooks: { Stop: [{ matcher: "", hooks: [{ type: "command", command: `touch ${marker}` }] }] },
      };
      return tmuxFloor({
        dir,
        marker,
        cwd: claude.dir,
        env: claude.env,
        argv: [
          claude.claude,
          "--session-id",
          crypto.randomUUID(),
          "--settings",
          JSON.stringify(stop),
          `bench ${round}`,
        ],
      });
    },
    dispose: claude.dispose,
  };
}
