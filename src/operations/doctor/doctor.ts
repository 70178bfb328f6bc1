import { dirname, join } from "node:path";
import { parseJsonObject } from "../../core/common/json.ts";
import { diagnose, doctorResult } from "../../core/doctor/diagnose.ts";
import type { CliFacts, ConfigFacts, DoctorFacts } from "../../core/doctor/facts.ts";
import type { DoctorResult } from "../../core/doctor/schema.ts";
import { testedCli } from "../../core/doctor/tested-versions.ts";
import { UmbelError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { listProviders } from "../../core/providers/registry.ts";
import type { Provider } from "../../core/providers/types.ts";
import type { StatusResult } from "../../core/worker/status.ts";
import { listWorkers } from "../worker/status.ts";
import { loadUserConfig } from "../worker/user-config.ts";

/** tmux on PATH (a constant: test/unit/structure.test.ts reads a quoted tmux as an invocation). */
const TMUX_BIN = "tmux";
/** A CLI's `--version` answers in well under a second (gemini's node start-up: ~1 s). */
const PROBE_MS = 10_000;

/**
 * `umbel doctor`: gathers what can be read without starting a TUI (tmux, each CLI and its version,
 * sign-in files, the config file, the state root, its lock files, the workers), then core/doctor judges it.
 */
export async function runDoctor(deps: Deps): Promise<DoctorResult> {
  const where = { PATH: deps.env.PATH ?? "", cwd: deps.cwd };
  const tmuxPath = deps.system.which(TMUX_BIN, where);
  const [tmuxVersion, clis, config, stat, freeBytes] = await Promise.all([
    tmuxPath === null ? null : deps.host.tmuxVersion(),
    Promise.all(listProviders().map((p) => cliFacts(deps, p))),
    configFacts(deps),
    deps.host.stat(deps.store.root),
    deps.host.freeBytes(deps.store.root),
  ]);
  const facts: DoctorFacts = {
    platform: deps.host.platform,
    uid: deps.uid,
    env: deps.env,
    tmux: { path: tmuxPath, version: tmuxVersion },
    clis,
    config,
    state: { root: deps.store.root, stat, freeBytes },
    workers: await workerFacts(deps),
    locks: await lockFacts(deps),
    now: deps.clock.now(),
  };
  return doctorResult(diagnose(facts));
}

async function cliFacts(deps: Deps, provider: Provider): Promise<CliFacts> {
  const override = deps.env[provider.binEnv] || null;
  const wanted = override ?? provider.defaultBin;
  const path = deps.system.which(wanted, { PATH: deps.env.PATH ?? "", cwd: deps.cwd });
  const npm = path === null ? null : await npmVersion(deps, path, testedCli(provider.id)?.npm);
  const probe = path === null || npm !== null ? null : await deps.host.probe([path, "--version"], PROBE_MS);
  const clues = provider.signInClues?.(deps.env);
  const present = await Promise.all(
    (clues?.files ?? []).map(async (f) => ((await exists(deps, f)) ? f : null)),
  );
  return {
    provider,
    override,
    wanted,
    path,
    version:
      npm !== null
        ? { ok: true, output: npm }
        : probe === null
          ? null
          : { ok: probe.exitCode === 0 && !probe.timedOut, output: probe.output },
    clues: {
      files: present.filter((f): f is string => f !== null),
      account: clues?.account ? await hasAccount(deps, clues.account.file, clues.account.key) : false,
    },
  };
}

/**
 * An npm-installed CLI's own package.json says its version without starting it: gemini's
 * `--version` took 3-8 s here (node loads its whole bundle, and relaunches itself once).
 */
async function npmVersion(deps: Deps, path: string, npm: string | undefined): Promise<string | null> {
  if (npm === undefined) return null;
  let dir = dirname(await deps.files.realpath(path).catch(() => path));
  // bin/claude.exe, bin/codex.js, bundle/gemini.js: the package root is one or two folders up.
  for (let up = 0; up < 3; up++, dir = dirname(dir)) {
    const text = await deps.files.readText(join(dir, "package.json")).catch(() => null);
    const pkg = text === null ? null : parseJsonObject(text);
    if (pkg?.name === npm && typeof pkg.version === "string") return pkg.version;
  }
  return null;
}

async function exists(deps: Deps, path: string): Promise<boolean> {
  return (await deps.files.size(path).catch(() => null)) !== null;
}

/** The account file names the signed-in account under `key` (claude's oauthAccount); no secret in it. */
async function hasAccount(deps: Deps, file: string, key: string): Promise<boolean> {
  const text = await deps.files.readText(file).catch(() => null);
  const value = text === null ? null : parseJsonObject(text)?.[key];
  return value !== undefined && value !== null;
}

async function configFacts(deps: Deps): Promise<ConfigFacts> {
  try {
    const loaded = await loadUserConfig(deps);
    return { file: loaded.file, home: loaded.home, shadowed: loaded.shadowed, config: loaded.config };
  } catch (error) {
    if (!(error instanceof UmbelError)) throw error;
    return { error: error.message, file: String(error.data.file ?? "") };
  }
}

async function workerFacts(deps: Deps): Promise<{ list: StatusResult[]; error: string | null }> {
  try {
    return { list: await listWorkers(deps), error: null };
  } catch (error) {
    return { list: [], error: error instanceof Error ? error.message : String(error) };
  }
}

async function lockFacts(deps: Deps): Promise<DoctorFacts["locks"]> {
  try {
    return { list: await deps.store.locks(), error: null };
  } catch (error) {
    return { list: [], error: error instanceof Error ? error.message : String(error) };
  }
}
