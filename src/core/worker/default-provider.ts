import { notOneOf } from "../common/suggest.ts";
import type { Dialect } from "../dialects/dialect.ts";
import { UsageError } from "../errors.ts";
import { ProviderId } from "../schemas.ts";

/**
 * The provider a request that names none runs: a line written for `codex exec` or `gemini -p` keeps
 * running that CLI, and a machine with one CLI says so once. An explicit `--provider`, YAML
 * `provider:` or MCP argument always wins; then UMBEL_PROVIDER; then config.toml's top-level
 * `provider`; then the dialect's own CLI (claude for the verbs, MCP and workflows, which have none).
 * The faces resolve it (operations/worker/user-config.ts reads the file) and pass it down; the schemas
 * leave `provider` optional, so an absent one stays visible until then.
 */

/** The variable that sets the default provider of every face. */
export const PROVIDER_ENV = "UMBEL_PROVIDER";

/** The provider when nothing else says: the verbs, MCP and workflows have no dialect, so claude's. */
export const FALLBACK_PROVIDER: ProviderId = "claude";

export type ProviderDefaults = {
  /** UMBEL_PROVIDER as set in umbel's environment (empty: unset). */
  readonly env: string | undefined;
  /** config.toml's top-level `provider`. */
  readonly config: ProviderId | undefined;
  /** The dialect's own CLI, or claude. */
  readonly fallback: ProviderId;
};

export function resolveDefaultProvider(d: ProviderDefaults): ProviderId {
  if (d.env !== undefined && d.env !== "") return parseProviderVariable(d.env);
  return d.config ?? d.fallback;
}

/** The CLI whose non-interactive mode a dialect mirrors runs it, unless something else says. */
export function dialectProvider(dialect: Dialect): ProviderId {
  return dialect; // each dialect is named for its CLI's provider id
}

function parseProviderVariable(value: string): ProviderId {
  const parsed = ProviderId.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UsageError(`${PROVIDER_ENV} ${notOneOf(value, ProviderId.options)}`, {
    variable: PROVIDER_ENV,
    value,
  });
}
