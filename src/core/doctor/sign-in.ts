import { signInAdvice } from "../worker/sign-in.ts";
import type { UserConfig } from "../worker/user-config.ts";
import type { CliFacts, DoctorFacts } from "./facts.ts";
import type { DoctorCheck } from "./schema.ts";

/** Sign-in and billing, judged from files and variable names only (no TUI is started, no value read). */

export function checkSignIn(cli: CliFacts, f: DoctorFacts): DoctorCheck {
  const { provider } = cli;
  const id = `${provider.id}-sign-in`;
  const { config, file } = configOf(f);
  const passed = config[provider.id]?.env ?? [];
  const token = provider.signInToken;
  if (token && f.env[token.env] !== undefined) {
    if (passed.includes(token.env))
      return { id, status: "ok", message: `${token.env} is passed to every ${provider.id} worker (${file})` };
    return {
      id,
      status: "warn",
      message: `${token.env} is set, but a worker never inherits a secret`,
      fix: `pass it with --env ${token.env}, or list it once in ${file} under [${provider.id}] env`,
    };
  }
  const clues = provider.signInClues?.(f.env);
  if (cli.clues.files.length > 0)
    return { id, status: "ok", message: `signed in (found ${cli.clues.files.join(", ")})` };
  if (cli.clues.account && clues?.account)
    return { id, status: "ok", message: `signed in (an account is recorded in ${clues.account.file})` };
  const inherited = clues?.env.find((name) => f.env[name] !== undefined);
  if (inherited)
    return { id, status: "ok", message: `${inherited} is set (${provider.id} workers inherit it)` };
  // Listed in the config file but not set (the container image run without it): nothing is passed.
  const listedUnset = token !== undefined && passed.includes(token.env);
  const advice = listedUnset
    ? `set ${token.env} where umbel runs (${token.makeWith} makes one): ${file} passes it to every ${provider.id} worker`
    : signInAdvice({ provider, hostEnv: f.env, passed, configFile: file }).text;
  if (f.platform === "darwin" && clues?.keychainOnMac)
    return {
      id,
      status: "warn",
      message: `no sign-in found in ${provider.id}'s files; on macOS it may be in the Keychain, which umbel does not read`,
      fix: `if spawn says it is not signed in: ${advice}`,
    };
  return { id, status: "warn", message: `no sign-in found for ${provider.id}`, fix: advice };
}

/**
 * An API key in umbel's environment that a worker does not inherit (it would move a subscription to
 * API billing without a word); warn so the user knows why, and when the config file passes one.
 */
export function checkBilling(f: DoctorFacts): DoctorCheck[] {
  const { config, file } = configOf(f);
  const checks: DoctorCheck[] = [];
  for (const { provider } of f.clis) {
    for (const name of provider.explicitOnlyEnv) {
      if (f.env[name] === undefined) continue;
      if (config[provider.id]?.env?.includes(name)) {
        checks.push({
          id: "billing",
          status: "warn",
          message: `${file} passes ${name} to every ${provider.id} worker: they bill the API, not your subscription`,
          fix: `remove ${name} from [${provider.id}] env in ${file} to stay on the subscription`,
        });
        continue;
      }
      checks.push({
        id: "billing",
        status: "warn",
        message: `${name} is set; umbel does not pass it to ${provider.id} workers, because it would bill the API instead of your subscription`,
        fix: `nothing, to stay on the subscription; --env ${name} bills the API on purpose`,
      });
    }
  }
  if (checks.length > 0) return checks;
  return [
    {
      id: "billing",
      status: "ok",
      message: "no API key in umbel's environment would move a worker to API billing",
    },
  ];
}

function configOf(f: DoctorFacts): { config: UserConfig; file: string } {
  if ("error" in f.config) return { config: {}, file: f.config.file };
  return { config: f.config.config, file: f.config.file ?? f.config.home };
}
