import type { Provider } from "../providers/types.ts";

export type SignInContext = {
  readonly provider: Provider;
  /** umbel's own environment (only whether a name is set matters; values are never read here). */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** The names the worker was given (--env, YAML/MCP env, the config file). */
  readonly passed: readonly string[];
  /** Where the user config lives ($UMBEL_HOME/config.toml unless one was found elsewhere). */
  readonly configFile: string;
};

/** What a sign-in refusal says to do, and the keys umbel kept from the worker (names only). */
export type SignInAdvice = { readonly text: string; readonly withheld: readonly string[] };

/**
 * What to do about a CLI on its sign-in screen. A long-lived token (claude's
 * CLAUDE_CODE_OAUTH_TOKEN) is the usual sign-in on servers, and a worker never inherits a secret, so
 * the way through is to pass it by name: the flag, or once for every worker in the config file. An
 * API key set in umbel's environment was withheld on purpose (it would move the worker to API
 * billing): the user who meant it to sign the worker in is told so, and how to pass it.
 */
export function signInAdvice(c: SignInContext): SignInAdvice {
  const withheld = c.provider.explicitOnlyEnv.filter(
    (name) => c.hostEnv[name] !== undefined && !c.passed.includes(name),
  );
  const text = signInText(c);
  if (withheld.length === 0) return { text, withheld };
  return { text: `${withheldText(c, withheld)}; or ${text}`, withheld };
}

function signInText(c: SignInContext): string {
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

/** `ANTHROPIC_API_KEY is set, but umbel withheld it on purpose (…): to sign in with it, pass --env …`. */
function withheldText(c: SignInContext, names: readonly string[]): string {
  const one = names.length === 1;
  const listed = one ? names[0] : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  const why = `${listed} ${one ? "is" : "are"} set, but umbel withheld ${one ? "it" : "them"} on purpose (an inherited key would bill the API instead of your subscription)`;
  const store = c.provider.storeApiKey;
  if (store)
    return `${why}, and ${c.provider.defaultBin} does not sign in from the variable alone: to sign in with ${one ? "it" : "one"}, run ${names.map(store).join(" or ")} once`;
  const flags = names.map((name) => `--env ${name}`).join(" or ");
  return `${why}: to sign in with ${one ? "it" : "one"}, pass ${flags}, or list it once in ${c.configFile} under [${c.provider.id}] env`;
}
