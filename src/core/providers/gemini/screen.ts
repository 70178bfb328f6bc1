import type { AnswerSpec, ScreenState } from "../types.ts";

/**
 * Reading gemini-cli 0.61.0's screen (measured over tmux, 160x50; docs/providers.md, Gemini CLI).
 * Menus are boxes whose options read `● 1. Label` (selected) / `  2. Label`; a digit picks an
 * option at once, so umbel answers with the digit of the option it found by its label and never
 * assumes the highlighted default.
 */

/** The retry dialogs (quota, model not found) also carry the keys that choose "Stop". */
export type GeminiScreenState =
  | Exclude<ScreenState, { kind: "error" }>
  | { kind: "error"; text: string; keys: readonly string[] };

/** `⠏ Thinking... (esc to cancel, 4s)`, `⠹ Executing Hook: umbel-BeforeAgent (esc to cancel, 1s)`. */
const BUSY = /\(esc to cancel, [^)]*\)/;
/** The composer: `>` (default, auto_edit, plan) or `*` (YOLO), then the placeholder or the input. */
const COMPOSER = /^ ?[>*] {1,3}\S/m;
const RULE = /^─{20,}/m;
const SIGN_IN =
  /How would you like to authenticate|Enter Gemini API Key|Please visit the following URL to authorize|Enter the authorization code|Waiting for auth/;

export function classifyGeminiScreen(screen: string): GeminiScreenState {
  const raw = screen.split("\n");
  const lines = raw.map(unbox);
  const text = lines.join("\n");
  if (/Error starting session:|already exists\. Use --resume/.test(text))
    return { kind: "exited", text: tail(lines) };
  if (SIGN_IN.test(text)) return { kind: "sign-in", text: tail(lines) };
  // Saved to $GEMINI_CLI_HOME/.gemini/trustedFolders.json: the worker's own home, never the user's.
  // The box names the cwd by its base name only; umbel's GEMINI_CLI_TRUST_WORKSPACE keeps it away.
  if (text.includes("Do you trust the files in this folder?")) {
    return trusting(pick("trust", lines, "Trust folder"));
  }
  // --add-dir (`--include-directories`): "1. Yes" trusts them for this session only. Measured: the
  // box comes ~0.3 s after the composer and ~0.4 s before SessionStart (which waits for gemini's
  // config to load), so spawn answers it before it calls the worker ready.
  if (text.includes("Do you trust the following folders being added to this workspace?")) {
    return trusting(pick("include-trust", lines, "Yes"), listedFolders(lines));
  }
  if (text.includes("Do you want to connect IDE to Gemini CLI?")) {
    return { kind: "dialog", dialog: "ide-nudge", keys: ["Escape"] };
  }
  if (text.includes("A potential loop was detected") && menuOpen(raw)) {
    return pick("loop-detection", lines, "Keep loop detection enabled");
  }
  if (menuOpen(raw)) {
    const stop = optionDigit(lines, "Stop");
    // A Google sign-in's quota box offers "Switch to <model> / Upgrade / Stop" (limits.md §3.2): Stop
    // too (a model switch or an upgrade is the user's call, never umbel's).
    const retryBox = optionDigit(lines, "Keep trying") !== null || text.includes("Usage limit reached");
    if (stop !== null && retryBox) {
      return { kind: "error", text: menuBlock(raw), keys: [stop] };
    }
    if (/Allow once/.test(text)) return { kind: "input", text: menuBlock(raw) };
  }
  if (BUSY.test(text)) return { kind: "busy" };
  // A `!` typed into an empty box switches to shell mode: a paste would then run as a command.
  if (/shell mode enabled \(esc to disable\)/.test(text)) {
    return { kind: "dialog", dialog: "shell-mode", keys: ["Escape"] };
  }
  if (RULE.test(text) && COMPOSER.test(text.slice(text.search(RULE)))) return { kind: "ready" };
  return { kind: "unknown" };
}

/**
 * The screen without what moves while nothing happens: the spinner line (glyph and elapsed time
 * tick every 80 ms / second even while gemini retries for minutes) and every digit.
 */
export function stillGeminiScreen(screen: string): string {
  return screen
    .split("\n")
    .filter((line) => !BUSY.test(line))
    .join("\n")
    .replace(/\d+/g, "#");
}

/** The digit that picks the option whose label starts with `label` (`● 2. Stop` → "2"), or null. */
function optionDigit(lines: readonly string[], label: string): string | null {
  for (const line of lines) {
    const match = /^\s*(?:●\s*)?(\d)\.\s+(.*)$/.exec(unbox(line));
    if (match?.[2]?.startsWith(label)) return match[1] ?? null;
  }
  return null;
}

function trusting(state: GeminiScreenState, folders?: string[]): GeminiScreenState {
  if (state.kind !== "dialog") return state;
  return { ...state, grantsTrust: true, ...(folders ? { folders } : {}) };
}

function pick(dialog: string, lines: readonly string[], label: string): GeminiScreenState {
  const digit = optionDigit(lines, label);
  return digit === null ? { kind: "unknown" } : { kind: "dialog", dialog, keys: [digit], answer: label };
}

/** The `- <folder>` lines of the --include-directories trust box. */
function listedFolders(lines: readonly string[]): string[] {
  return lines.flatMap((line) => {
    const m = /^- (\/.*)$/.exec(line.trim());
    return m?.[1] ? [m[1].trim()] : [];
  });
}

/**
 * A menu box is up: it has a selected option (`● 1.`) and nothing of the composer below it (gemini
 * hides the input box while it asks). A model's own numbered list has no `●` and sits above the box.
 */
function menuOpen(raw: readonly string[]): boolean {
  const selected = raw.findLastIndex((line) => /^\s*●\s*\d\.\s/.test(unbox(line)));
  return selected >= 0 && !raw.slice(selected).some((line) => /^─{20,}/.test(line));
}

/** A box line without its borders: `│ ● 1. Keep trying    │` → ` ● 1. Keep trying`. */
function unbox(line: string): string {
  return line
    .replace(/^\s*[│╭╰]\s?/, "")
    .replace(/\s?[│╮╯]\s*$/, "")
    .replace(/^\s*│\s?/, "")
    .replace(/\s?│\s*$/, "")
    .trimEnd();
}

/** The last box on the screen (a menu: its message and options), borders and blank lines dropped. */
function menuBlock(raw: readonly string[]): string {
  const last = raw.findLastIndex((line) => /^\s*(?:●\s*)?\d\.\s/.test(unbox(line)));
  // The box's own top corner sits at the left edge; a nested box (the command) is indented by `│ `.
  const top = raw.findLastIndex((line, index) => index < last && /^\s?╭/.test(line));
  return raw
    .slice(top + 1, last + 1)
    .map((line) => unbox(unbox(line)).trim())
    .filter((line) => line !== "" && !/^[─╮╭╯╰]+$/.test(line))
    .join("\n");
}

function tail(lines: readonly string[]): string {
  return lines
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^[─╮╭╯╰]+$/.test(line))
    .slice(-12)
    .join("\n");
}

/**
 * gemini 0.61.0's tool confirmation box: `● 1. Allow once`, `2. Allow for this session`, `3. No,
 * suggest changes (esc)`; a digit picks its option at once. "always" is this session only (gemini
 * asks again in a new one). No cancels the turn ("Request cancelled.").
 */
export const GEMINI_ANSWERS: AnswerSpec = {
  meanings: {
    allow: /^Allow once\b/,
    always: /^Allow (for this session|always)\b/,
    deny: /^No\b/,
  },
};
