import type { Provider } from "./providers/types.ts";

export type SignInContext = {
  readonly provider: Provider;
  /** umbel's own environment (only whether a name is set matters; values are never read here). */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** The names the worker was given (--env, YAML/MCP env, the config file). */
  readonly passed: readonly string[];
  /** Where the user config lives ($UMBEL_HOME/config.toml unless one was found elsewhere). */
  readonly configFile: string;
};

/**
 * What to do about a CLI on its sign-in screen. A long-lived token (claude's
 * CLAUDE_CODE_OAUTH_TOKEN) is the usual sign-in on servers, and a worker never inherits a secret, so
 * the way through is to pass it by name: the flag, or once for every worker in the config file.
 */
export function signInAdvice(c: SignInContext): string {
  const bin = c.provider.defaultBin;
  const token = c.provider.signInToken;
  if (!token) return `run ${bin} once by hand to log in`;
  const once = `or list it once in ${c.configFile} under [${c.provider.id}] env`;
  if (c.passed.includes(token.env))
    return `${token.env} was passed and ${bin} still asks to log in: it may be expired or revoked (${token.makeWith} makes a new one)`;
  if (c.hostEnv[token.env] !== undefined)
    return `${token.env} is set, but a worker never inherits a secret: pass it with --env ${token.env}, ${once}`;
  return `run ${bin} once by hand to log in, or set ${token.env} (${token.makeWith}) and pass it with --env ${token.env}, ${once}`;
}
