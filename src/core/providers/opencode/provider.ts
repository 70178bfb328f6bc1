import { normalisePrompt } from "../../worker/prompt.ts";
import type { HomeContext } from "../home-types.ts";
import { type LaunchFlag, type LaunchOptions, refuseLaunchFlags } from "../launch-types.ts";
import type { Delivery, HomedProvider } from "../types.ts";
import { OPENCODE_ANSWERS } from "./answer.ts";
import { interpretOpencodeEvent, OPENCODE_HOOK_WIRE, OPENCODE_SUBMIT_EVENT } from "./events.ts";
import { planOpencodeHome } from "./home.ts";
import { OPENCODE_PERMISSION_MODES, planOpencodeLaunch } from "./launch.ts";
import { refuseOpencodeMcp } from "./mcp.ts";
import { classifyOpencodeScreen, stillOpencodeScreen } from "./screen.ts";
import { readOpencodeConversation, trackOpencodeTurn } from "./stream.ts";
import { opencodeRecordSource, opencodeTurnEnd, parseOpencodeAnswer } from "./transcript.ts";

/**
 * opencode (`opencode`, npm opencode-ai), measured on 1.18.33 (docs/providers.md,
 * test/real/opencode.test.ts). Its events come from umbel's plugin (hooks/opencode-plugin.js), its
 * session record is a SQLite database (opencode/record.ts), and it runs with the user's own config,
 * auth and providers plus one config file of the worker's (opencode/home.ts).
 */

/**
 * The optional launch flags opencode honours (the rest are usage errors naming opencode): the
 * prompts and MCP servers go into the worker's config, --disallowed-tools into permission rules,
 * --continue onto argv. Not --add-dir (opencode has no extra workspace folders) nor --settings.
 */
const OPENCODE_LAUNCH_FLAGS: readonly LaunchFlag[] = [
  "--system-prompt",
  "--append-system-prompt",
  "--mcp-config",
  "--disallowed-tools",
  "--continue",
];

/**
 * Measured on 2 loaded cores: the `prompt` record came 20-60 ms after Enter (up to 1.4 s on a first
 * turn, which creates the session); a 21 KB paste was taken with Enter right after it.
 */
const OPENCODE_DELIVERY: Delivery = { enterDelayMs: 150, confirmWindowMs: 2500, maxEnters: 3 };

/** One Escape only arms the interrupt (`esc again to interrupt`); the second aborts the turn. */
const OPENCODE_INTERRUPT_KEYS = ["Escape", "Escape"] as const;

export const opencode: HomedProvider = {
  id: "opencode",
  displayName: "opencode",
  tested: { version: "1.18.33", npm: "opencode-ai" },
  // `ses_` and 26 letters or digits (1.18.33; 20-40 accepted).
  sessionIdPattern: /^ses_[0-9A-Za-z]{20,40}$/,
  tools: {
    command: ["bash"],
    write: ["write"],
    edit: ["edit"],
    web: ["websearch"],
    read: ["read"],
    search: ["grep", "glob", "list"],
    fetch: ["webfetch"],
    delegate: ["task"],
    todo: { name: "todowrite", list: "todos" },
  },
  binEnv: "UMBEL_OPENCODE_BIN",
  defaultBin: "opencode",
  // One by one: opencode's own switches a user may set (its config layers, its database, the
  // model catalog, offline use) and npm's registry for its plugin installs. Never OPENCODE_CONFIG
  // (the worker's own; the user's file is read into it) nor a model provider's key (below).
  envNames: [
    "OPENCODE_CONFIG_CONTENT",
    "OPENCODE_CONFIG_DIR",
    "OPENCODE_TUI_CONFIG",
    "OPENCODE_DB",
    "OPENCODE_PERMISSION",
    "OPENCODE_DISABLE_PROJECT_CONFIG",
    "OPENCODE_DISABLE_MODELS_FETCH",
    "OPENCODE_MODELS_PATH",
    "OPENCODE_MODELS_URL",
    "OPENCODE_DISABLE_AUTOCOMPACT",
    "OPENCODE_DISABLE_LSP_DOWNLOAD",
    "OPENCODE_DISABLE_CLAUDE_CODE",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS",
    "OPENCODE_ENABLE_EXA",
    "npm_config_registry",
    "npm_config_cafile",
  ],
  // The API keys of the model providers opencode can use: an inherited one would move a worker onto
  // that account without a word. Pass them with --env (a config's `{env:NAME}` reads them too).
  explicitOnlyEnv: [
    "OPENCODE_API_KEY",
    "OPENCODE_AUTH_CONTENT",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_GENERATIVE_AI_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "XAI_API_KEY",
    "MISTRAL_API_KEY",
    "DEEPSEEK_API_KEY",
    "TOGETHER_API_KEY",
    "AZURE_API_KEY",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
  ],
  // No hooks file: the plugin writes the events (hookWire says how to read them).
  hookEvents: [],
  submitEvent: OPENCODE_SUBMIT_EVENT,
  hookWire: OPENCODE_HOOK_WIRE,
  // 1.18.33: auth.json is $XDG_DATA_HOME/opencode/auth.json (its sessions database moves with it).
  accountHome: (home) => ({ env: { XDG_DATA_HOME: home }, hostEnv: {} }),
  // 1.18.33 `opencode auth login`: a provider's key or OAuth into $XDG_DATA_HOME/opencode/auth.json.
  signInArgs: ["auth", "login"],
  home: {
    reads: (context: HomeContext) =>
      context.hostEnv.OPENCODE_CONFIG ? [context.hostEnv.OPENCODE_CONFIG] : [],
    plan: planOpencodeHome,
  },
  planLaunch: planOpencodeLaunch,
  classifyScreen: classifyOpencodeScreen,
  stillScreen: stillOpencodeScreen,
  // The plugin writes `idle` at the end of every turn (an abort and a rejected permission too), and
  // the pane lags it: on 2 loaded cores it still showed the last turn's idle footer seconds after
  // the next prompt's `prompt` and `busy` records (test/fixtures/opencode/screens/lagging.txt).
  // Its idle-looking screen never ends a turn (wait read such a turn as an interrupted stop).
  screenShowsStreaming: false,
  preparePrompt: prepareOpencodePrompt,
  interpretEvent: interpretOpencodeEvent,
  recordSource: opencodeRecordSource,
  parseAnswer: parseOpencodeAnswer,
  transcriptTurnEnd: opencodeTurnEnd,
  trackTurn: trackOpencodeTurn,
  readConversation: readOpencodeConversation,
  delivery: OPENCODE_DELIVERY,
  // End then shift+Home selects the whole input box, Backspace empties it. Never C-c: on an empty
  // box opencode quits.
  clearInputKeys: () => ["End", "S-Home", "BSpace"],
  interruptKeys: OPENCODE_INTERRUPT_KEYS,
  answer: OPENCODE_ANSWERS,
  // --max-turns interrupts (the default mode); meanwhile umbel's plugin refuses tools and aborts the
  // next model call (hooks/opencode-plugin.js): at the stub's speed the next call had run before the
  // two Escapes landed (measured on 1.18.33).
  haltHooks: (reason) => ({ tool: { reason }, model: { reason } }),
  checkLaunchOptions: (options: LaunchOptions) =>
    refuseLaunchFlags("opencode", options, OPENCODE_LAUNCH_FLAGS) ??
    refusePermissionMode(options) ??
    refuseOpencodeMcp(options.mcpServers),
};

function refusePermissionMode(options: LaunchOptions): string | null {
  const mode = options.permissionMode;
  if (mode === undefined || OPENCODE_PERMISSION_MODES[mode] !== undefined) return null;
  const known = Object.keys(OPENCODE_PERMISSION_MODES).join(", ");
  return `opencode has no permission mode "${mode}" (opencode supports: ${known})`;
}

/**
 * The text to paste. Measured on 1.18.33: a paste that starts with `/` runs the command it names
 * (`/review …`) or is swallowed (`/word`), so a leading space makes it text; a prompt that is only
 * `exit`, `quit` or `:q` (trimmed) quits the TUI, so a WORD JOINER (invisible, not trimmed) goes
 * before it. `!` and `@` are plain text in a paste.
 */
export function prepareOpencodePrompt(prompt: string): string {
  const text = normalisePrompt(prompt);
  if (/^\//.test(text)) return ` ${text}`;
  if (/^(exit|quit|:q)$/.test(text.trim())) return `\u2060${text}`;
  return text;
}
