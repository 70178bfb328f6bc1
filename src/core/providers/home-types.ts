import type { BillingRoute } from "../limits/billing.ts";
import type { LaunchInput } from "./launch-types.ts";

/**
 * A provider's own home (codex CODEX_HOME, gemini GEMINI_CLI_HOME): the user's config files it
 * reads, and the plan the engine lays out before launch (all pure; the engine does the I/O).
 */
export type ProviderHome = {
  /** The files of the user's own config to read (the engine passes their text, or null when missing). */
  reads(context: HomeContext): readonly string[];
  plan(context: HomeContext, files: Readonly<Record<string, string | null>>): HomePlan;
};

/** The home the engine laid out from a HomePlan, given to a HomedProvider's launch planner. */
export type LaidOutHome = {
  /** HomePlan.home (absolute). */
  readonly path: string;
  /** The worker's name (codex: its profile `umbel-<worker>` in the shared home). */
  readonly worker: string;
};

/** What the engine knows before it lays out a provider's home (all paths absolute, symlinks resolved). */
export type HomeContext = {
  /** $UMBEL_HOME. */
  readonly stateRoot: string;
  /** sessions/<name>: removed with the worker's tombstone. */
  readonly sessionDir: string;
  readonly worker: string;
  readonly cwd: string;
  readonly hookCommand: string;
  readonly eventsLog: string;
  /** A plugin file that appends turn events to eventsLog (opencode's: hooks/opencode-plugin.js). */
  readonly eventsPlugin?: string | undefined;
  /** umbel's own environment (to find the user's config; never passed on). */
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** The names (not values) of the worker's environment. */
  readonly workerEnvNames: readonly string[];
  /** The launch flags that live in a provider's home (a config file) rather than on its argv. */
  readonly launch: HomeLaunch;
};

/**
 * A non-interactive worker (umbel -p) reads the permission flags: a provider that makes its CLI so
 * in its config applies them there (gemini's excluded tools, opencode's).
 */
export type HomeLaunch = Pick<
  LaunchInput,
  | "systemPrompt"
  | "appendSystemPrompt"
  | "disallowedTools"
  | "mcpServers"
  | "structuredServer"
  | "nonInteractive"
  | "permissionMode"
  | "unattended"
  | "allowedTools"
  | "account"
>;

/** An entry of a provider home: dirs 0700, files written atomically, links made only to existing targets. */
export type HomeEntry =
  | { readonly kind: "dir"; readonly path: string; readonly mode: number }
  | { readonly kind: "file"; readonly path: string; readonly content: string; readonly mode: number }
  | { readonly kind: "link"; readonly path: string; readonly target: string };

export type HomePlan = {
  /** The home's root (absolute): LaidOutHome.path. */
  readonly home: string;
  readonly entries: readonly HomeEntry[];
  /** What kill removes (never following links). */
  readonly removeOnKill: readonly string[];
  /** The billing route the home's settings select (gemini's auth method), when they decide it. */
  readonly billing?: BillingRoute;
};
