import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { codexHookTrustHash } from "../../src/core/providers/codex/home.ts";
import { tomlString } from "../../src/core/providers/codex/toml.ts";
import { codexEnv, seedCodexWorld, stubProviderToml } from "../../test/helpers/codex-world.ts";
import { createSandbox } from "../../test/helpers/sandbox.ts";
import { requireRealCodex } from "../../test/real/real-codex.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";
import type { ProviderBench } from "./bench-types.ts";
import { tmuxFloor } from "./floor.ts";

/** The real codex on the stub (openai dialect): `codex exec` against `umbel -p --provider codex`. */
export async function setUpCodexBench(): Promise<ProviderBench | null> {
  const bin = requireRealCodex("bench");
  if (!bin) return null;
  const stub = await startStubModel({ dialect: "openai" });
  const sb = await createSandbox({ untrusted: true });
  const world = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url));
  Object.assign(sb.env, { UMBEL_CODEX_BIN: bin, CODEX_HOME: world.userCodexHome });
  // The floor's CODEX_HOME: what umbel's managed home holds (the user's config.toml, auth.json linked),
  // each round's layer a profile of its own, as umbel's workers are.
  const floorHome = join(sb.dir, "codex", "floor-home");
  mkdirSync(floorHome, { recursive: true, mode: 0o700 });
  writeFileSync(join(floorHome, "config.toml"), stubProviderToml(stub.url), { mode: 0o600 });
  symlinkSync(join(world.userCodexHome, "auth.json"), join(floorHome, "auth.json"));
  const cwd = realpathSync(sb.work);
  return {
    id: "codex",
    cwd: sb.work,
    env: sb.env,
    umbelFlags: ["--provider", "codex"],
    vendorLabel: "codex exec",
    vendor: (prompt) => ({
      argv: [bin, "exec", "--skip-git-repo-check", "--json", prompt],
      env: codexEnv(world, world.userCodexHome),
    }),
    bin,
    /**
     * The TUI with the prompt on its command line (`codex "PROMPT"`), pre-trusted (cwd and hook, in a
     * profile as umbel writes one) with -p's sandbox flags, until its Stop hook runs (0.171.0: Stop
     * fires before task_complete is written, and never for the title side-turn, unlike notify).
     */
    floor(round) {
      const dir = join(sb.dir, `floor-${round}`);
      const marker = join(dir, "stopped");
      const profile = `floor-${round}`;
      const profilePath = join(realpathSync(floorHome), `${profile}.config.toml`);
      const command = `touch ${marker}`;
      const hash = codexHookTrustHash({ eventKey: "stop", command, timeout: 30 });
      writeFileSync(
        profilePath,
        [
          "check_for_update_on_startup = false",
          "",
          `[projects.${tomlString(cwd)}]`,
          'trust_level = "trusted"',
          "",
          "[[hooks.Stop]]",
          "[[hooks.Stop.hooks]]",
          'type = "command"',
          `command = ${tomlString(command)}`,
          "timeout = 30",
          "",
          `[hooks.state.${tomlString(`${profilePath}:stop:0:0`)}]`,
          `trusted_hash = "${hash}"`,
          "",
        ].join("\n"),
        { mode: 0o600 },
      );
      return tmuxFloor({
        dir,
        marker,
        cwd,
        env: codexEnv(world, floorHome),
        argv: [bin, "--no-daemon", "-p", profile, "-s", "read-only", "-a", "never", `bench ${round}`],
      });
    },
    async dispose() {
      await sb.dispose();
      await stub.stop();
    },
  };
}
