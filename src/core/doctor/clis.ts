import type { CliFacts, DoctorFacts } from "./facts.ts";
import { installFix, TMUX_MIN } from "./programs.ts";
import type { DoctorCheck } from "./schema.ts";
import { testedCli } from "./tested-versions.ts";
import { compareVersions, readVersion } from "./version.ts";

/** The check's id (a constant: test/unit/structure.test.ts reads a quoted tmux as an invocation). */
const TMUX = "tmux";

/** tmux on PATH and at least TMUX_MIN (core/doctor/programs.ts: the verbs refuse the same, with the same fix). */
export function checkTmux(f: DoctorFacts): DoctorCheck {
  const { path, version } = f.tmux;
  const fix = installFix(TMUX, f.platform);
  if (path === null || version === null)
    return {
      id: TMUX,
      status: "fail",
      message: "tmux not found on PATH: every worker runs in it",
      fix,
    };
  const v = readVersion(version);
  if (!v)
    return {
      id: TMUX,
      status: "warn",
      message: `${path}: could not read a version from ${JSON.stringify(version.trim())}`,
      fix: "check that what tmux -V prints is 3.3 or newer",
    };
  const shown = version.trim().replace(/^tmux /, "");
  if (compareVersions(v.parts, TMUX_MIN.parts) < 0)
    return {
      id: TMUX,
      status: "fail",
      message: `${path} ${shown} is older than ${TMUX_MIN.text}`,
      fix,
    };
  return { id: TMUX, status: "ok", message: `${path} ${shown} (umbel needs ${TMUX_MIN.text} or newer)` };
}

/** One line for a provider's CLI: found (or its UMBEL_<P>_BIN), and its version against the tested one. */
export function checkCli(cli: CliFacts, anyFound: boolean): DoctorCheck {
  const { provider } = cli;
  const id = provider.id;
  const tested = testedCli(id);
  const install = tested
    ? `npm install -g ${tested.npm}@${tested.version}`
    : `install ${provider.defaultBin}`;
  if (cli.path === null) {
    if (cli.override !== null)
      return {
        id,
        status: "fail",
        message: `${provider.binEnv}=${cli.override} is not an executable`,
        fix: `point ${provider.binEnv} at the ${provider.defaultBin} executable, or unset ${provider.binEnv}`,
      };
    return {
      id,
      status: anyFound ? "warn" : "fail",
      message: anyFound
        ? `${cli.wanted} not found on PATH (only --provider ${id} needs it)`
        : `${cli.wanted} not found on PATH, and no agent CLI is installed: no worker can start`,
      fix: `${install}, or set ${provider.binEnv} to its path`,
    };
  }
  if (cli.version === null || !cli.version.ok) {
    const said = cli.version?.output.trim().split("\n")[0] ?? "it could not be started";
    return {
      id,
      status: "warn",
      message: `${cli.path} --version failed: ${said}`,
      fix: `run ${cli.path} --version to see why`,
    };
  }
  const v = readVersion(cli.version.output);
  if (!v)
    return {
      id,
      status: "warn",
      message: `${cli.path}: could not read a version from ${JSON.stringify(cli.version.output.trim())}`,
    };
  if (!tested)
    return { id, status: "warn", message: `${cli.path} ${v.text}; umbel records no tested version of it` };
  const order = compareVersions(v.parts, readVersion(tested.version)?.parts ?? []);
  const against = `${tested.version}, the version umbel is tested with`;
  if (order === 0)
    return { id, status: "ok", message: `${cli.path} ${v.text}, the version umbel is tested with` };
  return {
    id,
    status: "warn",
    message: `${cli.path} ${v.text} is ${order > 0 ? "newer" : "older"} than ${against}`,
    fix: `if a ${id} worker misbehaves, install the tested one: ${install}`,
  };
}
