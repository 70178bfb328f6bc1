import { isRecord } from "../../common/json.ts";
import type { HomeContext, HomePlan } from "../home-types.ts";
import { planOpencodeMcp } from "./mcp.ts";

/**
 * The worker's own opencode config: `sessions/<name>/opencode/opencode.json`, given to opencode as
 * OPENCODE_CONFIG. Measured on 1.18.33 (docs/providers.md): that file is one more layer over the
 * user's global config, project config and OPENCODE_CONFIG_CONTENT (plugin lists concatenate), so
 * the user's providers, models, auth and plugins still reach the worker, and nothing is written into
 * their config or project. It carries:
 * - umbel's events plugin, by absolute path (loaded directly, nothing installed next to it);
 * - `experimental.disable_paste_summary`: a paste of ≥3 lines or >150 chars otherwise becomes a
 *   `[Pasted ~N lines]` token holding the text trimmed, plus a space; only a config file reaches
 *   the TUI with it (OPENCODE_CONFIG_CONTENT does not);
 * - `autoupdate: false` (a worker must not replace the binary under the user);
 * - --system-prompt as the agents' `prompt`, --append-system-prompt as an `instructions` file, and
 *   --mcp-config as `mcp` servers.
 * A user's own OPENCODE_CONFIG file is read and kept underneath (the variable can name one file).
 */
export function planOpencodeHome(
  context: HomeContext,
  files: Readonly<Record<string, string | null>>,
): HomePlan {
  const home = `${context.sessionDir}/opencode`;
  const own = context.hostEnv.OPENCODE_CONFIG;
  const user = parseConfig(own ? (files[own] ?? null) : null);
  const { launch } = context;
  const config: Record<string, unknown> = {
    ...user,
    plugin: [
      ...(Array.isArray(user.plugin) ? user.plugin : []),
      ...(context.eventsPlugin ? [context.eventsPlugin] : []),
    ],
    autoupdate: false,
    experimental: {
      ...(isRecord(user.experimental) ? user.experimental : {}),
      disable_paste_summary: true,
      // A non-interactive worker's plugin rejects every ask; 1.18.33 then ends the turn unless this
      // is true, when the model gets the refusal as the tool's error and goes on (as claude -p).
      ...(launch.nonInteractive ? { continue_loop_on_deny: true } : {}),
    },
  };
  const entries: HomePlan["entries"][number][] = [{ kind: "dir", path: home, mode: 0o700 }];
  if (launch.appendSystemPrompt !== undefined) {
    const path = `${home}/append-system-prompt.md`;
    entries.push({ kind: "file", path, content: launch.appendSystemPrompt, mode: 0o600 });
    config.instructions = [...(Array.isArray(user.instructions) ? user.instructions : []), path];
  }
  if (launch.systemPrompt !== undefined) {
    const agents = isRecord(user.agent) ? user.agent : {};
    const withPrompt = (name: string) => ({
      ...(isRecord(agents[name]) ? agents[name] : {}),
      prompt: launch.systemPrompt,
    });
    config.agent = { ...agents, build: withPrompt("build"), plan: withPrompt("plan") };
  }
  if (launch.mcpServers !== undefined) {
    const { mcp } = planOpencodeMcp(launch.mcpServers);
    config.mcp = { ...(isRecord(user.mcp) ? user.mcp : {}), ...mcp };
  }
  entries.push({
    kind: "file",
    path: opencodeConfigPath(home),
    content: `${JSON.stringify(config, null, 2)}\n`,
    mode: 0o600,
  });
  return { home, entries, removeOnKill: [] };
}

export function opencodeConfigPath(home: string): string {
  return `${home}/opencode.json`;
}

/** opencode's config is JSONC (comments, trailing commas); a broken file is ignored. */
function parseConfig(text: string | null): Record<string, unknown> {
  if (text === null || text.trim() === "") return {};
  const stripped = text
    .replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, string) => string ?? "")
    .replace(/,(\s*[}\]])/g, "$1");
  try {
    const value: unknown = JSON.parse(stripped);
    return isRecord(value) ? value : {};
  } catch {
    return {};
  }
}
