import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSandbox } from "../../test/helpers/sandbox.ts";
import { requireRealOpencode, stubOpencodeEnv } from "../../test/real/real-opencode.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";
import type { ProviderBench } from "./bench-types.ts";
import { tmuxFloor } from "./floor.ts";

/**
 * The real opencode on the stub (Chat Completions): `opencode run` against `umbel -p --provider
 * opencode`, and opencode's floor. One sandbox HOME for every run, as a user's own opencode has
 * (its database, its config folder's `.gitignore`): umbel's workers use the user's XDG dirs. The
 * vendor's own runs have a home of their own (below).
 */
export async function setUpOpencodeBench(): Promise<ProviderBench | null> {
  const bin = requireRealOpencode("bench");
  if (!bin) return null;
  const stub = await startStubModel({ dialect: "openai-chat" });
  const sb = await createSandbox();
  const user = stubOpencodeEnv(stub.url);
  Object.assign(sb.env, { UMBEL_OPENCODE_BIN: bin }, user);
  const vendorHome = join(sb.dir, "vendor-home");
  mkdirSync(vendorHome, { recursive: true });
  return {
    id: "opencode",
    cwd: sb.work,
    env: sb.env,
    umbelFlags: ["--provider", "opencode", "--start-timeout", "120s"],
    vendorLabel: "opencode run",
    // `opencode run` in a home of its own: right after it, the next TUI start in the same home
    // waited ~60 s on opencode's plugin-package install (each time, measured on 1.18.33; neither the
    // vendor's cost nor umbel's, docs/providers.md).
    vendor: (prompt) => ({ argv: [bin, "run", prompt], env: { ...sb.env, HOME: vendorHome } }),
    bin,
    /**
     * The TUI with the prompt on its command line (`--prompt` submits it as the first turn, measured
     * on 1.18.33), until a plugin of its own sees the root session's `session.status` idle after a
     * busy. The plugin comes in by absolute path in the same OPENCODE_CONFIG_CONTENT that names the
     * stub; `npm_config_offline` as umbel starts it (a configured plugin otherwise makes opencode
     * wait for an npm install of `@opencode-ai/plugin` at start).
     */
    floor(round) {
      const dir = join(sb.dir, `floor-${round}`);
      const marker = join(dir, "idle");
      mkdirSync(dir, { recursive: true });
      const plugin = join(dir, "idle-plugin.js");
      writeFileSync(plugin, idlePlugin(marker));
      const config = { ...JSON.parse(user.OPENCODE_CONFIG_CONTENT ?? "{}"), plugin: [plugin] };
      return tmuxFloor({
        dir,
        marker,
        cwd: sb.work,
        env: { ...sb.env, OPENCODE_CONFIG_CONTENT: JSON.stringify(config), npm_config_offline: "true" },
        argv: [bin, "--prompt", `bench ${round}`],
      });
    },
    async dispose() {
      await sb.dispose();
      await stub.stop();
    },
  };
}

/** A plugin that touches `marker` at the first root-session idle that follows a busy. */
function idlePlugin(marker: string): string {
  return `import { writeFileSync } from "node:fs";
export const BenchIdle = async () => {
  const children = new Set();
  let busy = false;
  return {
    event: async ({ event }) => {
      const p = event.properties ?? {};
      if (p.info?.parentID) children.add(p.info.id);
      if (event.type !== "session.status" || children.has(p.sessionID)) return;
      if (p.status?.type === "busy") busy = true;
      else if (p.status?.type === "idle" && busy) writeFileSync(${JSON.stringify(marker)}, "");
    },
  };
};
`;
}
