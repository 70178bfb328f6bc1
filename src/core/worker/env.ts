import { UsageError } from "../errors.ts";
import type { Provider } from "../providers/types.ts";
import type { EnvSpec } from "../schemas.ts";

/**
 * What a worker inherits from umbel's environment: these names, the LC_ and XDG_ families, and the
 * names its provider lists one by one. Never a vendor prefix wholesale: an inherited
 * CLAUDE_CODE_CHILD_SESSION turned transcript writing off in every worker, and an inherited
 * ANTHROPIC_API_KEY switches a subscription user to API billing without a word.
 */
const ALLOWLIST: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "SSH_AUTH_SOCK",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "all_proxy",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "ALL_PROXY",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "REQUESTS_CA_BUNDLE",
  "CURL_CA_BUNDLE",
];
const ALLOWED_PREFIXES = ["LC_", "XDG_"];

export type WorkerEnvInput = {
  readonly host: Readonly<Record<string, string | undefined>>;
  readonly provider: Provider;
  readonly providerEnv: Readonly<Record<string, string>>;
  readonly explicit: EnvSpec | undefined;
  readonly umbel: Readonly<Record<string, string>>;
};

/** Later layers win: allowlist < provider names < provider's fixed env < --env < umbel's own. */
export function buildWorkerEnv(input: WorkerEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  const explicitOnly = new Set(input.provider.explicitOnlyEnv);
  for (const [name, value] of Object.entries(input.host)) {
    if (value === undefined || explicitOnly.has(name)) continue;
    if (isInherited(name, input.provider)) env[name] = value;
  }
  Object.assign(env, input.providerEnv);
  for (const [name, value] of Object.entries(input.explicit ?? {})) {
    env[name] = resolveEnvValue(name, value, input.host);
  }
  Object.assign(env, input.umbel);
  return env;
}

function isInherited(name: string, provider: Provider): boolean {
  return (
    ALLOWLIST.includes(name) ||
    ALLOWED_PREFIXES.some((p) => name.startsWith(p)) ||
    provider.envNames.includes(name)
  );
}

function resolveEnvValue(name: string, value: EnvSpec[string], host: WorkerEnvInput["host"]): string {
  if (typeof value === "string") return value;
  const copied = host[value.fromEnv];
  if (copied === undefined) {
    throw new UsageError(`--env ${name}: ${value.fromEnv} is not set in umbel's environment`, {
      name,
      fromEnv: value.fromEnv,
    });
  }
  return copied;
}

/** `--env K=V` → {K: "V"}; `--env NAME` → {NAME: {fromEnv: NAME}} (a secret copied by name). */
export function parseEnvFlags(flags: readonly string[]): EnvSpec {
  const spec: EnvSpec = {};
  for (const flag of flags) {
    const eq = flag.indexOf("=");
    const name = eq < 0 ? flag : flag.slice(0, eq);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      throw new UsageError(`--env ${JSON.stringify(flag)}: expected NAME=VALUE or NAME`, { flag });
    }
    spec[name] = eq < 0 ? { fromEnv: name } : flag.slice(eq + 1);
  }
  return spec;
}

/** The env as a POSIX sh script for launch.sh to eval: single quotes survive every byte but NUL. */
export function renderEnvScript(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([name, value]) => `export ${name}='${value.replaceAll("'", "'\\''")}'\n`)
    .join("");
}
