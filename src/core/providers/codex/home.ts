import { sha256Hex } from "../../common/sha256.ts";
import type { HomeLaunch } from "../home-types.ts";
import { planCodexMcpServers, renderStructuredServer } from "./mcp.ts";
import { tomlString } from "./toml.ts";

/**
 * The umbel-managed CODEX_HOME, as data (measured on codex-cli 0.171.0; docs/providers.md, Codex).
 *
 * One home is shared by every codex worker of a state root (`$UMBEL_HOME/codex-home`), so `codex
 * resume <id>` finds any worker's rollout and codex's own auth lock serialises token refreshes:
 * - `config.toml`: a verbatim copy of the user's (codex writes into its config.toml, so it is never
 *   a link), refreshed at every spawn;
 * - `auth.json` (and the user's `AGENTS.md`): links to the user's CODEX_HOME; codex 0.171.0 writes
 *   auth.json through the link (measured with `codex login --with-api-key`), so a refreshed ChatGPT
 *   login lands in the user's file;
 * - `umbel-<worker>.config.toml`: the worker's own config layer, loaded with `-p umbel-<worker>`
 *   (a v2 profile: `$CODEX_HOME/<name>.config.toml` layered over config.toml). It holds umbel's
 *   entries: no update check, the cwd trusted, the hooks inline, and their trust hashes. Measured:
 *   a profile's `trust_level` and `check_for_update_on_startup` win over the user's
 *   `trust_level = "untrusted"` and `check_for_update_on_startup = true`, and hooks defined in it
 *   run with no review dialog when `hooks.state."<profile path>:<event>:0:0"` holds their hash.
 *   The same keys passed with `-c` are ignored (trust dialog and hook review still appear);
 * - claude's launch flags that live in codex's config go into that profile too: `--system-prompt` as
 *   `model_instructions_file` (`umbel-<worker>.instructions.md`, also removed at kill),
 *   `--append-system-prompt` as `developer_instructions`, `--mcp-config` as `[mcp_servers.*]`
 *   (codex/mcp.ts). Measured: the file's text (trimmed) REPLACES codex's built-in base instructions
 *   as the first developer message of every request (`base_instructions` is ignored with a
 *   warning); `developer_instructions` is the first part of the next developer message. A user's
 *   own `developer_instructions` is overridden by the profile's, as any key of a higher layer.
 * Nothing is written into the user's project or their CODEX_HOME.
 */

/** The hook events umbel registers, with the timeout written for each (seconds). */
export const CODEX_HOOKS: readonly { event: string; key: string; timeout: number }[] = [
  { event: "SessionStart", key: "session_start", timeout: 30 },
  { event: "UserPromptSubmit", key: "user_prompt_submit", timeout: 30 },
  { event: "Stop", key: "stop", timeout: 30 },
  // codex clamps Interrupt and SessionEnd to 1..3 s and warns about a larger value.
  { event: "Interrupt", key: "interrupt", timeout: 3 },
  { event: "PermissionRequest", key: "permission_request", timeout: 30 },
  { event: "PreToolUse", key: "pre_tool_use", timeout: 30 },
  { event: "PostToolUse", key: "post_tool_use", timeout: 30 },
  { event: "SessionEnd", key: "session_end", timeout: 3 },
];

/** Files of the user's CODEX_HOME that a worker reads through a link (only those that exist). */
export const CODEX_LINKED_FILES = ["auth.json", "AGENTS.md"] as const;

export type CodexHomeInput = {
  /** The managed home, absolute and symlink-resolved (hook trust keys use the resolved path). */
  readonly home: string;
  /** The user's CODEX_HOME (`$CODEX_HOME`, else `~/.codex`). */
  readonly userHome: string;
  /** The user's config.toml text, or null when they have none. */
  readonly userConfig: string | null;
  readonly worker: string;
  /** The worker's cwd, absolute and symlink-resolved. */
  readonly cwd: string;
  /** The shell command each hook runs; it reads the payload on stdin and must print nothing. */
  readonly hookCommand: string;
  /** claude's launch flags that codex takes in its config (HomeContext.launch). */
  readonly launch?: CodexHomeLaunch | undefined;
  /** The names of the worker's environment (forwarded to stdio MCP servers). */
  readonly envNames?: readonly string[] | undefined;
};

type CodexHomeLaunch = Pick<
  HomeLaunch,
  "systemPrompt" | "appendSystemPrompt" | "mcpServers" | "structuredServer"
>;

type HomeFile = { readonly path: string; readonly content: string; readonly mode: number };
/** A symlink `path → target`, made only when `target` exists. */
type HomeLink = { readonly path: string; readonly target: string };

export type CodexHomePlan = {
  readonly dirs: readonly string[];
  readonly files: readonly HomeFile[];
  readonly links: readonly HomeLink[];
  /** The `-p` argument that loads the worker's layer. */
  readonly profile: string;
  /** What kill removes (the shared home stays: it holds every worker's rollouts). */
  readonly removeOnKill: readonly string[];
};

export function codexProfileName(worker: string): string {
  return `umbel-${worker}`;
}

export function planCodexHome(input: CodexHomeInput): CodexHomePlan {
  const profile = codexProfileName(input.worker);
  const profilePath = `${input.home}/${profile}.config.toml`;
  const launch = input.launch ?? {};
  const instructions = launch.systemPrompt ? `${input.home}/${profile}.instructions.md` : undefined;
  const mcp = planCodexMcpServers(launch.mcpServers ?? {}, input.envNames ?? []);
  const layer: CodexLayer = {
    modelInstructionsFile: instructions,
    developerInstructions: launch.appendSystemPrompt || undefined,
    mcpServers: launch.structuredServer
      ? [...mcp.toml, renderStructuredServer(launch.structuredServer)]
      : mcp.toml,
  };
  const files: HomeFile[] = [
    { path: `${input.home}/config.toml`, content: input.userConfig ?? "", mode: 0o600 },
    {
      path: profilePath,
      content: renderCodexProfile(profilePath, input.cwd, input.hookCommand, layer),
      mode: 0o600,
    },
  ];
  if (instructions && launch.systemPrompt)
    files.push({ path: instructions, content: launch.systemPrompt, mode: 0o600 });
  return {
    dirs: [input.home],
    files,
    links: CODEX_LINKED_FILES.map((name) => ({
      path: `${input.home}/${name}`,
      target: `${input.userHome}/${name}`,
    })),
    profile,
    removeOnKill: instructions ? [profilePath, instructions] : [profilePath],
  };
}

/** The launch flags' part of a worker's layer (absent keys are left to the user's config). */
export type CodexLayer = {
  readonly modelInstructionsFile?: string | undefined;
  readonly developerInstructions?: string | undefined;
  /** Rendered `[mcp_servers.…]` tables. */
  readonly mcpServers?: readonly string[] | undefined;
};

/** The worker's config layer: no update check, the cwd trusted, umbel's hooks and their trust. */
export function renderCodexProfile(
  profilePath: string,
  cwd: string,
  hookCommand: string,
  layer: CodexLayer = {},
): string {
  const lines = [
    "# Written by umbel for one worker (codex -p); removed when the worker is killed.",
    "check_for_update_on_startup = false",
  ];
  // Top-level keys must come before the first table.
  if (layer.modelInstructionsFile !== undefined)
    lines.push(`model_instructions_file = ${tomlString(layer.modelInstructionsFile)}`);
  if (layer.developerInstructions !== undefined)
    lines.push(`developer_instructions = ${tomlString(layer.developerInstructions)}`);
  lines.push("", `[projects.${tomlString(cwd)}]`, 'trust_level = "trusted"', "");
  for (const server of layer.mcpServers ?? []) lines.push(server, "");
  // Each event's command names it (hooks/hook.sh never reads the event from the payload).
  const command = (event: string) => `${hookCommand} ${event}`;
  for (const hook of CODEX_HOOKS) {
    lines.push(
      `[[hooks.${hook.event}]]`,
      `[[hooks.${hook.event}.hooks]]`,
      'type = "command"',
      `command = ${tomlString(command(hook.event))}`,
      `timeout = ${hook.timeout}`,
      "",
    );
  }
  for (const hook of CODEX_HOOKS) {
    const hash = codexHookTrustHash({
      eventKey: hook.key,
      command: command(hook.event),
      timeout: hook.timeout,
    });
    lines.push(
      `[hooks.state.${tomlString(`${profilePath}:${hook.key}:0:0`)}]`,
      `trusted_hash = "${hash}"`,
      "",
    );
  }
  return lines.join("\n");
}

export type HookTrustInput = {
  /** snake_case event name: `stop`, `pre_tool_use`, … */
  readonly eventKey: string;
  readonly command: string;
  /** The configured timeout in seconds; absent means codex's default, 600. */
  readonly timeout?: number | undefined;
  readonly matcher?: string | undefined;
  readonly statusMessage?: string | undefined;
};

/**
 * The `trusted_hash` codex 0.171.0 stores for one command hook: "sha256:" + hex sha256 of the JSON
 * (keys sorted at every level, no spaces) of `{event_name, hooks: [{type, command, timeout, async}]}`,
 * plus `matcher` when set (dropped for UserPromptSubmit and Stop) and `statusMessage` when set. The
 * timeout is the configured one or 600, clamped to 1..3 for SessionEnd and Interrupt. The script's
 * contents are not hashed. Checked against the hashes "Trust all" wrote (test/unit/providers/codex-home.test.ts).
 */
export function codexHookTrustHash(input: HookTrustInput): string {
  let timeout = input.timeout ?? 600;
  if (input.eventKey === "session_end" || input.eventKey === "interrupt")
    timeout = Math.min(3, Math.max(1, timeout));
  const handler: Record<string, unknown> = { type: "command", command: input.command, timeout, async: false };
  if (input.statusMessage !== undefined) handler.statusMessage = input.statusMessage;
  const identity: Record<string, unknown> = { event_name: input.eventKey, hooks: [handler] };
  const matcherDropped = input.eventKey === "user_prompt_submit" || input.eventKey === "stop";
  if (input.matcher !== undefined && !matcherDropped) identity.matcher = input.matcher;
  return `sha256:${sha256Hex(canonicalJson(identity))}`;
}

/** JSON with object keys sorted at every level and no whitespace (serde_json's compact form). */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
