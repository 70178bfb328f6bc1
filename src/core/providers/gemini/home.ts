import { isRecord, asRecord as record } from "../../common/json.ts";
import { shellQuote } from "../../common/shell.ts";
import type { HomeEntry, HomeLaunch } from "../home-types.ts";
import { applyLaunchSettings, geminiSystemPromptPath, planGeminiMemory } from "./launch.ts";

/**
 * The umbel-owned home a gemini worker runs in (`GEMINI_CLI_HOME=<home>`: gemini-cli 0.61.0 then
 * keeps its whole `.gemini` tree in `<home>/.gemini` — settings, projects.json, tmp/<slug>/chats —
 * and writes nothing into `$HOME/.gemini` or the project). Pure: the engine reads the user's files,
 * calls planGeminiHome, and makes what it returns.
 *
 * Auth (read from the 0.61.0 bundle; the link checked with strace against the real binary):
 * - Sign in with Google: `oauth_creds.json` (plain JSON with the refresh token); refreshed tokens
 *   are written back with fs.writeFile, which follows a symlink, so a link keeps the user's file
 *   current and a re-login by the user reaches every worker. With
 *   GEMINI_FORCE_ENCRYPTED_FILE_STORAGE=true they live in the OS keychain (not per home) or in
 *   `gemini-credentials.json`, encrypted with a key derived from hostname + user name only, so the
 *   same file works from any home on this machine. A stored API key ("Enter Gemini API Key") lands
 *   in the same keychain / `gemini-credentials.json`.
 * - `google_accounts.json` caches the account e-mail (display only); MCP servers' tokens are in
 *   `mcp-oauth-tokens.json`, A2A agents' in `a2a-oauth-tokens.json`.
 * - `settings.json` `security.auth.selectedType` picks the method: without it the TUI opens its
 *   "How would you like to authenticate" dialog (a sign-in screen to umbel).
 * Links, not copies: gemini rewrites these files in place, and a copy would go stale.
 */

/** Files in the user's gemini dir that carry credentials; each is linked when it exists. */
export const GEMINI_AUTH_FILES = [
  "oauth_creds.json",
  "gemini-credentials.json",
  "google_accounts.json",
  "mcp-oauth-tokens.json",
  "a2a-oauth-tokens.json",
] as const;

/** The hook events umbel registers; BeforeModel only as a marker (see planGeminiHome). */
export const GEMINI_HOOK_EVENTS = [
  "SessionStart",
  "BeforeAgent",
  "AfterAgent",
  "Notification",
  "BeforeTool",
  "AfterTool",
  "SessionEnd",
] as const;
export const GEMINI_MARKER_EVENTS = ["BeforeModel"] as const;

export type GeminiHomeInput = {
  /** The directory given to the worker as GEMINI_CLI_HOME (umbel's: e.g. `sessions/<name>/gemini`). */
  readonly home: string;
  /** The user's own `.gemini` dir (see userGeminiDir), or null. */
  readonly userDir: string | null;
  /** The text of the user's `settings.json`, or null when it is missing or unreadable. */
  readonly userSettings: string | null;
  /** Which GEMINI_AUTH_FILES exist in userDir. */
  readonly userFiles: readonly string[];
  /** The hook command (a POSIX sh command line that reads the payload on stdin). */
  readonly hookCommand: string;
  /** The events log the marker hooks append to. */
  readonly eventsLog: string;
  /** The worker env's names (values are not needed): picks selectedType when the user has none. */
  readonly envNames: readonly string[];
  /** The text of the user's global context file (`GEMINI.md` in userDir), or null. */
  readonly userMemory?: string | null | undefined;
  /** The launch flags that live in the home (gemini/launch.ts). */
  readonly launch?: HomeLaunch | undefined;
};

export type { HomeEntry };

export type GeminiHomePlan = {
  readonly entries: readonly HomeEntry[];
  /** The auth method the worker's settings.json names (`security.auth.selectedType`), or null. */
  readonly selectedType: string | null;
};

/** `$GEMINI_CLI_HOME/.gemini` when the user has one, else `$HOME/.gemini`. */
export function userGeminiDir(env: Readonly<Record<string, string | undefined>>): string | null {
  const base = env.GEMINI_CLI_HOME || env.HOME;
  return base ? `${base.replace(/\/+$/, "")}/.gemini` : null;
}

export function planGeminiHome(input: GeminiHomeInput): GeminiHomePlan {
  const dir = `${input.home}/.gemini`;
  const user = parseSettings(input.userSettings);
  const launch = input.launch ?? {};
  const settings = applyLaunchSettings(applyUmbelSettings(user, input), launch);
  const links: HomeEntry[] =
    input.userDir === null
      ? []
      : GEMINI_AUTH_FILES.filter((name) => input.userFiles.includes(name)).map((name) => ({
          kind: "link",
          path: `${dir}/${name}`,
          target: `${input.userDir}/${name}`,
        }));
  const security = isRecord(settings.security) ? settings.security : {};
  const auth = isRecord(security.auth) ? security.auth : {};
  return {
    selectedType: typeof auth.selectedType === "string" ? auth.selectedType : null,
    entries: [
      { kind: "dir", path: input.home, mode: 0o700 },
      { kind: "dir", path: dir, mode: 0o700 },
      {
        kind: "file",
        path: `${dir}/settings.json`,
        content: `${JSON.stringify(settings, null, 2)}\n`,
        mode: 0o600,
      },
      ...links,
      ...planGeminiMemory({
        dir,
        userDir: input.userDir,
        userMemory: input.userMemory ?? null,
        settings,
        append: launch.appendSystemPrompt,
      }),
      ...(launch.systemPrompt === undefined
        ? []
        : [
            {
              kind: "file" as const,
              path: geminiSystemPromptPath(input.home),
              content: launch.systemPrompt,
              mode: 0o600,
            },
          ]),
    ],
  };
}

/**
 * The user's settings with umbel's on top: the hooks (appended to the user's own per event), hooks
 * switched on, an auth method, no auto-update (a worker must not run npm), no IDE nudge, and no
 * banner or tips (less screen to read).
 */
function applyUmbelSettings(user: Record<string, unknown>, input: GeminiHomeInput): Record<string, unknown> {
  const hooks = isRecord(user.hooks) ? { ...user.hooks } : {};
  const add = (event: string, command: string) => {
    const own = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    const hook = { type: "command", name: `umbel-${event}`, command, timeout: 10_000 };
    hooks[event] = [...own, { matcher: "", hooks: [hook] }];
  };
  // Each event's command names it (hooks/hook.sh never reads the event from the payload).
  for (const event of GEMINI_HOOK_EVENTS) add(event, `${input.hookCommand} ${event}`);
  // BeforeModel's payload carries the whole conversation on every model call (one per retry), so
  // it is recorded as a bare marker: counting them tells a retrying turn from a slow one.
  for (const event of GEMINI_MARKER_EVENTS) add(event, markerCommand(event, input.eventsLog));
  const hooksConfig = isRecord(user.hooksConfig) ? { ...user.hooksConfig } : {};
  hooksConfig.enabled = true;
  if (Array.isArray(hooksConfig.disabled)) {
    hooksConfig.disabled = hooksConfig.disabled.filter((name) => !String(name).startsWith("umbel-"));
  }
  const security = isRecord(user.security) ? { ...user.security } : {};
  const auth = isRecord(security.auth) ? { ...security.auth } : {};
  auth.selectedType ??= deriveSelectedType(input.envNames);
  if (auth.selectedType === undefined) delete auth.selectedType;
  security.auth = auth;
  return {
    ...user,
    security,
    general: { ...record(user.general), enableAutoUpdate: false, enableAutoUpdateNotification: false },
    ide: { ...record(user.ide), enabled: false, hasSeenNudge: true },
    ui: { ...record(user.ui), hideBanner: true, hideTips: true },
    hooksConfig,
    hooks,
  };
}

/** A hook that ignores its payload and appends `{"hook_event_name":"<event>"}` (one short write). */
export function markerCommand(event: string, eventsLog: string): string {
  return `cat >/dev/null; printf '%s\\n' '{"hook_event_name":"${event}"}' >> ${shellQuote(eventsLog)}`;
}

/** With no method in the user's settings: an API key or Vertex AI in the env decides, else none. */
function deriveSelectedType(envNames: readonly string[]): string | undefined {
  if (envNames.includes("GOOGLE_GENAI_USE_VERTEXAI")) return "vertex-ai";
  if (envNames.includes("GEMINI_API_KEY")) return "gemini-api-key";
  return undefined;
}

/** settings.json may hold line and block comments (gemini strips them); a broken file is ignored. */
function parseSettings(text: string | null): Record<string, unknown> {
  if (text === null || text.trim() === "") return {};
  for (const candidate of [text, stripComments(text)]) {
    try {
      const value: unknown = JSON.parse(candidate);
      if (isRecord(value)) return value;
    } catch {
      // try the next form
    }
  }
  return {};
}

function stripComments(text: string): string {
  return text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_match, string) => string ?? "");
}
