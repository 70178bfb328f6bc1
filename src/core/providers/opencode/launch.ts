import type { PermissionMode } from "../../schemas.ts";
import type { LaidOutHome } from "../home-types.ts";
import type { LaunchInput, LaunchPlan } from "../launch-types.ts";
import { opencodeConfigPath } from "./home.ts";

/**
 * umbel's permission modes for opencode 1.18.33: `plan` is its plan agent (`--agent plan`, which
 * asks before edits); `acceptEdits` and `bypassPermissions` are permission rules. manual, dontAsk
 * and auto have no opencode equivalent (usage errors).
 */
export const OPENCODE_PERMISSION_MODES: Partial<Record<PermissionMode, Readonly<Record<string, unknown>>>> = {
  default: {},
  plan: {},
  acceptEdits: { edit: "allow" },
  bypassPermissions: { "*": "allow" },
};

/**
 * argv and fixed env, in the home the engine laid out (opencode/home.ts). Measured on 1.18.33:
 * - OPENCODE_CONFIG names the worker's config (its plugin, its launch flags);
 * - UMBEL_OPENCODE_EVENTS tells the plugin where the events log is (it is inert without it);
 * - `npm_config_offline=true`: with any plugin configured, opencode waits at start for an npm
 *   install of `@opencode-ai/plugin` into every config folder; a registry it cannot reach made
 *   that 70-74 s on every start, offline it fails at once (3-4 s to ready). The plugin removes the
 *   variable again (UMBEL_OPENCODE_NPM_OFFLINE marks it as umbel's) before any tool runs, so the
 *   agent's own npm is not offline;
 * - OPENCODE_PERMISSION: --unattended, the permission modes, --allowed-tools and --disallowed-tools
 *   as permission rules (`{"*":"allow"}` asks nothing and fires no permission event at all).
 */
export function planOpencodeLaunch(input: LaunchInput, home: LaidOutHome): LaunchPlan {
  const argv: string[] = [input.bin];
  if (input.resumeSessionId) argv.push("--session", input.resumeSessionId);
  else if (input.continueSession) argv.push("--continue");
  if (input.model) argv.push("--model", input.model);
  if (input.permissionMode === "plan" && !input.unattended) argv.push("--agent", "plan");
  const env: Record<string, string> = {
    OPENCODE_CONFIG: opencodeConfigPath(home.path),
    npm_config_offline: "true",
    UMBEL_OPENCODE_NPM_OFFLINE: "1",
  };
  if (input.eventsLog) env.UMBEL_OPENCODE_EVENTS = input.eventsLog;
  // umbel's plugin rejects each permission ask at once, as `opencode run` does (1.18.33).
  if (input.nonInteractive) env.UMBEL_OPENCODE_NON_INTERACTIVE = "1";
  const rules = permissionRules(input);
  if (Object.keys(rules).length > 0) env.OPENCODE_PERMISSION = JSON.stringify(rules);
  return { argv, env };
}

/**
 * opencode permission rules: the mode's, then each allowed tool `allow`, each disallowed `deny`.
 * Non-interactive: no `question` tool (a question for nobody), as `opencode run` offers none.
 */
export function permissionRules(
  input: Pick<
    LaunchInput,
    "unattended" | "permissionMode" | "allowedTools" | "disallowedTools" | "nonInteractive"
  >,
): Record<string, unknown> {
  const noQuestion = input.nonInteractive ? { question: "deny" } : {};
  if (input.unattended) return { "*": "allow", ...noQuestion };
  const rules: Record<string, unknown> = { ...OPENCODE_PERMISSION_MODES[input.permissionMode ?? "default"] };
  for (const [tools, action] of [
    [input.allowedTools, "allow"],
    [input.disallowedTools, "deny"],
  ] as const) {
    for (const spec of tools ?? []) addRule(rules, spec, action);
  }
  return { ...rules, ...noQuestion };
}

/**
 * claude's tool specs as opencode rules: `Bash` → `{"bash": action}`; `Bash(git diff:*)` →
 * `{"bash": {"git diff *": action}}` (claude's `:*` is opencode's glob ` *`). opencode's
 * permission names are lower case (bash, edit, read, webfetch, …; edit covers write and patch).
 */
function addRule(rules: Record<string, unknown>, spec: string, action: "allow" | "deny"): void {
  const match = /^([^()]+)\((.*)\)$/.exec(spec.trim());
  const name = (match?.[1] ?? spec).trim().toLowerCase();
  const tool = name === "write" || name === "multiedit" ? "edit" : name;
  if (!match) {
    rules[tool] = action;
    return;
  }
  const pattern = (match[2] ?? "").replace(/:\*$/, " *");
  const existing = rules[tool];
  const patterns =
    typeof existing === "object" && existing !== null
      ? { ...existing }
      : typeof existing === "string"
        ? { "*": existing }
        : {};
  rules[tool] = { ...patterns, [pattern]: action };
}
