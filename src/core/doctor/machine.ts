import { formatDuration } from "../common/duration.ts";
import { ProviderId } from "../schemas.ts";
import { FALLBACK_PROVIDER, PROVIDER_ENV, resolveDefaultProvider } from "../worker/default-provider.ts";
import type { DoctorFacts } from "./facts.ts";
import type { DoctorCheck } from "./schema.ts";

/**
 * A worker's own state is kilobytes, but every turn adds to its CLI's transcript, and a codex or
 * gemini home holds copies of the user's config: under 1 GB free is worth a look, and under 100 MB
 * an atomic write (temp file + rename) can fail half-way through a spawn.
 */
const FREE_WARN_BYTES = 1e9;
const FREE_FAIL_BYTES = 100e6;
/** spawn gives up after 60 s by default; a worker still `starting` after 10 min is a spawn that died. */
const STUCK_STARTING_MS = 10 * 60_000;

export function checkConfig(f: DoctorFacts): DoctorCheck {
  const c = f.config;
  if ("error" in c)
    return {
      id: "config",
      status: "fail",
      message: c.error,
      fix: 'fix the file: names only, e.g. [claude] env = ["CLAUDE_CODE_OAUTH_TOKEN"]',
    };
  const bad = badProviderVariable(f.env);
  if (bad !== null)
    return {
      id: "config",
      status: "fail",
      message: bad,
      fix: `set ${PROVIDER_ENV} to one of ${ProviderId.options.join(", ")}, or unset it`,
    };
  if (c.file === null)
    return {
      id: "config",
      status: "ok",
      message: `${f.env[PROVIDER_ENV] ? `the default provider is ${f.env[PROVIDER_ENV]} (${PROVIDER_ENV}); ` : ""}no config file (optional: ${c.home} sets the default provider and lists variables each provider's workers get by name)`,
    };
  const listed = ProviderId.options.flatMap((id) => (c.config[id]?.env ?? []).map((name) => ({ id, name })));
  const unset = listed.filter(({ name }) => f.env[name] === undefined);
  const problems = [
    ...unset.map(({ id, name }) => `${name} (${id}) is not set in umbel's environment`),
    ...c.shadowed.map((path) => `${path} is not read (only the first config file is)`),
  ];
  if (problems.length > 0)
    return {
      id: "config",
      status: "warn",
      message: `${c.file}: ${problems.join("; ")}`,
      fix: "export the variables it lists where umbel runs, and keep one config file",
    };
  const passes =
    listed.length === 0 ? "lists nothing" : listed.map(({ id, name }) => `${id} gets ${name}`).join(", ");
  const given = f.env[PROVIDER_ENV] ? PROVIDER_ENV : c.config.provider ? "config.toml" : null;
  const provider = resolveDefaultProvider({
    env: f.env[PROVIDER_ENV],
    config: c.config.provider,
    fallback: FALLBACK_PROVIDER,
  });
  const chosen = given === null ? "" : `the default provider is ${provider} (${given}); `;
  return { id: "config", status: "ok", message: `${c.file}: ${chosen}${passes}` };
}

/** UMBEL_PROVIDER's complaint when it names no provider, else null. */
function badProviderVariable(env: Readonly<Record<string, string | undefined>>): string | null {
  try {
    resolveDefaultProvider({ env: env[PROVIDER_ENV], config: undefined, fallback: FALLBACK_PROVIDER });
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

export function checkState(f: DoctorFacts): DoctorCheck {
  const { root, stat, freeBytes } = f.state;
  const id = "state";
  if (stat === null) return { id, status: "ok", message: `${root} is made on first use (mode 0700)` };
  if (!stat.isDirectory)
    return {
      id,
      status: "fail",
      message: `${root} is not a directory`,
      fix: "move it away, or point UMBEL_HOME elsewhere",
    };
  if (stat.uid !== f.uid)
    return {
      id,
      status: "fail",
      message: `${root} is owned by uid ${stat.uid}, not you (uid ${f.uid})`,
      fix: `chown -R ${f.uid} ${root}, or point UMBEL_HOME at a folder of your own`,
    };
  const mode = (stat.mode & 0o777).toString(8).padStart(4, "0");
  if ((stat.mode & 0o077) !== 0)
    return {
      id,
      status: "fail",
      message: `${root} is mode ${mode}: other users can read the workers' state`,
      fix: `chmod 700 ${root}`,
    };
  const free = freeBytes === null ? "free space unknown" : `${formatBytes(freeBytes)} free`;
  if (freeBytes !== null && freeBytes < FREE_WARN_BYTES)
    return {
      id,
      status: freeBytes < FREE_FAIL_BYTES ? "fail" : "warn",
      message: `${root}: ${free}`,
      fix: "free some space on its filesystem (umbel prune removes old workers), or point UMBEL_HOME elsewhere",
    };
  return { id, status: "ok", message: `${root}: mode ${mode}, ${free}` };
}

export function checkWorkers(f: DoctorFacts): DoctorCheck {
  const { list, error } = f.workers;
  if (error !== null)
    return {
      id: "workers",
      status: "warn",
      message: `could not list workers: ${error}`,
      fix: "see the tmux check",
    };
  const gone = list.filter((w) => w.state === "dead" || w.state === "killed");
  // An anonymous -p's worker whose -p is gone, and a spawn that died half-way: nobody's, prune's.
  const orphaned = list.filter((w) => w.state === "orphaned");
  const failed = list.filter((w) => w.state === "failed");
  const stuck = list.filter(
    (w) => w.state === "starting" && f.now - Date.parse(w.createdAt) > STUCK_STARTING_MS,
  );
  const broken = list.filter((w) => w.state === "broken");
  const prunable = gone.length + orphaned.length + failed.length;
  const live = list.length - prunable - stuck.length - broken.length;
  const parts = [`${live} live`];
  const names = (ws: typeof list) => ws.map((w) => w.name).join(", ");
  if (gone.length > 0) parts.push(`${gone.length} dead or killed (${names(gone)})`);
  if (orphaned.length > 0) parts.push(`${orphaned.length} orphaned (${names(orphaned)})`);
  if (failed.length > 0) parts.push(`${failed.length} failed (${names(failed)})`);
  for (const w of stuck)
    parts.push(`${w.name} has been starting for ${formatDuration(f.now - Date.parse(w.createdAt))}`);
  if (broken.length > 0)
    parts.push(
      `${broken.length} broken (${broken.map((w) => `${w.name}: ${w.broken?.file ?? "its state"}`).join(", ")})`,
    );
  const fixes = [
    ...(prunable > 0 ? ["umbel prune"] : []),
    ...stuck.map((w) => `umbel kill ${w.name} --purge`),
    ...broken.map((w) => `${w.name}: ${w.broken?.fix ?? `umbel kill ${w.name} --purge`}`),
  ];
  if (fixes.length === 0)
    return {
      id: "workers",
      status: "ok",
      message: list.length === 0 ? "no workers" : `${live} live, none dead`,
    };
  return { id: "workers", status: "warn", message: parts.join("; "), fix: fixes.join("; ") };
}

function formatBytes(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : `${Math.round(n / 1e6)} MB`;
}
