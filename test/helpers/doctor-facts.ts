import type { CliFacts, DoctorFacts } from "../../src/core/doctor/facts.ts";
import type { DoctorCheck } from "../../src/core/doctor/schema.ts";
import { getProvider } from "../../src/core/providers/registry.ts";

/** Facts of a healthy machine for core/doctor's pure checks; each test changes what it is about. */

const NOW = Date.parse("2025-03-01T12:00:00Z");
/** test/unit/structure.test.ts reads a quoted tmux followed by a comma as an invocation. */
export const TMUX = "tmux";

export function cli(id: "claude" | "codex" | "gemini", over: Partial<CliFacts> = {}): CliFacts {
  const versions = { claude: "2.1.332 (Claude Code)", codex: "codex-cli 0.171.0", gemini: "0.61.0" };
  return {
    provider: getProvider(id),
    override: null,
    wanted: id,
    path: `/usr/bin/${id}`,
    version: { ok: true, output: `${versions[id]}\n` },
    clues: { files: [`/home/u/.${id}/creds`], account: false },
    ...over,
  };
}

export function facts(over: Partial<DoctorFacts> = {}): DoctorFacts {
  return {
    platform: "linux",
    uid: 1000,
    env: { HOME: "/home/u", PATH: "/usr/bin" },
    tmux: { path: "/usr/bin/tmux", version: "tmux 3.3a" },
    clis: [cli("claude"), cli("codex"), cli("gemini")],
    config: { file: null, home: "/home/u/.umbel/config.toml", shadowed: [], config: {} },
    state: { root: "/home/u/.umbel", stat: { mode: 0o700, uid: 1000, isDirectory: true }, freeBytes: 50e9 },
    workers: { list: [], error: null },
    locks: { list: [], error: null },
    now: NOW,
    ...over,
  };
}

export const check = (checks: DoctorCheck[], id: string) => checks.find((c) => c.id === id);
