import { isRecord, parseJsonObject } from "../../common/json.ts";
import type { BillingEnv } from "../../limits/billing.ts";
import type { LaunchOptions } from "../launch-types.ts";

/**
 * What moves a claude worker off the claude.ai subscription (2.1.332): an API key or auth token
 * (billed per token; with one, claude even ignores the subscription's rate-limit headers), or a
 * cloud platform. None of them reaches a worker unless passed by name (`explicitOnlyEnv`, or the
 * cloud switches the user exported on purpose), and `status` names the route.
 */
export const CLAUDE_BILLING_ENV: BillingEnv = {
  ANTHROPIC_API_KEY: "api-key",
  ANTHROPIC_AUTH_TOKEN: "api-key",
  CLAUDE_CODE_USE_BEDROCK: "cloud",
  CLAUDE_CODE_USE_VERTEX: "cloud",
};

/** claude's --bare as a variable (2.1.332: "Sets CLAUDE_CODE_SIMPLE=1"). */
const BARE_ENV = "CLAUDE_CODE_SIMPLE";

/**
 * Launch options that would switch billing or turn hooks off without a word, refused with the
 * reason (a usage error), or null. --bare itself is refused by `umbel -p` (faces/print/args.ts).
 */
export function refuseClaudeSwitches(options: LaunchOptions): string | null {
  if (options.envNames?.includes(BARE_ENV))
    return `${BARE_ENV} is claude's --bare: it turns hooks off (umbel could not see a turn end) and signs in only with an API key (API billing); umbel does not run claude that way`;
  if (options.settings === undefined) return null;
  const settings = parseJsonObject(options.settings) ?? {};
  if (settings.disableAllHooks === true)
    return "--settings disableAllHooks turns every hook off, and umbel sees a turn end only through its hooks";
  if (settings.apiKeyHelper !== undefined)
    return "--settings apiKeyHelper signs claude in with an API key: the worker would bill the API, not your subscription. To do that on purpose, pass the key by name: --env ANTHROPIC_API_KEY";
  if (settings.forceLoginMethod === "console")
    return '--settings forceLoginMethod "console" signs claude in to a Console account: the worker would bill the API, not your subscription';
  const env = isRecord(settings.env) ? Object.keys(settings.env) : [];
  const switching = env.filter((name) => name in CLAUDE_BILLING_ENV || name === BARE_ENV);
  if (switching.length > 0)
    return `--settings env ${switching.join(", ")} would switch the worker's billing (and put the value on a command line); pass it by name with --env ${switching[0]} instead`;
  return null;
}
