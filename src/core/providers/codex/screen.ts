import type { AnswerSpec, ScreenState } from "../types.ts";

/**
 * Reading the codex 0.171.0 TUI screen (tmux capture-pane, no escapes). Measured layout at rest:
 *
 *   › Ask Codex to do anything                              ← the composer (placeholder when empty)
 *                                                           ← a blank line
 *     stub-model default · /work/dir · Stub title           ← the status line: model, effort, cwd, title
 *     ← for agents · ? for shortcuts        ⚠ 1 warning · f2 to view   ← hint (gone while it holds text)
 *
 * The composer is drawn ~0.35 s after start, before the trust dialog and before startup is done;
 * the status line comes with readiness (~0.8 s), so ready = a status line under the composer. A
 * turn shows `Working (3s • esc to interrupt)` only while it waits for output: streamed text has
 * no busy marker, so idle vs busy must come from hooks and the transcript, never from here.
 * Menus mark the highlighted option with `›` (the login screen with `>`), not claude's `❯`.
 */

const PLACEHOLDERS = ["Ask Codex to do anything"];
/**
 * `  <model> <effort> · <cwd>[ · <title>]` (cwd absolute or `~/…`). The hint line below it and a
 * dialog's footer (`  enter continue · esc back`) also have ` · `, but no path after it.
 */
const STATUS_LINE = /^ {2}[^\s←?].* · [~/]/;
const OPTION = /^\s*([›>])?\s*(\d+)\.\s+(.*?)\s*$/;

export function classifyCodexScreen(screen: string): ScreenState {
  const lines = screen.split("\n").map((l) => l.trimEnd());
  const composer = findComposer(lines);
  // What codex prints when it refuses to start (`Error loading config.toml: …`, `error: unexpected
  // argument …`, `ERROR: No saved session found with ID …`); the pane then dies.
  if (composer === null && /^(Error loading config\.toml|error: |ERROR: )/m.test(screen))
    return { kind: "exited", text: tail(lines) };
  if (screen.includes("Welcome to Codex") && /Sign in with ChatGPT|Sign in another way|API key/.test(screen))
    return { kind: "sign-in", text: tail(lines) };
  // `codex resume <id>` of a thread another live codex holds (its thread-writer lock): it waits
  // for `r` once the other one is closed. Measured when resuming a live worker's session. The holder
  // can be a worker killed a moment ago whose codex is still exiting (kill returns once tmux ended
  // the session; a loaded CI's run --resume met it), so r is pressed for a while before giving up.
  if (screen.includes("This conversation is open in another app")) {
    return {
      kind: "dialog",
      dialog: "thread-locked",
      keys: [],
      fatal: "the codex session is open in another codex process; close that one first",
      retry: { keys: ["r"], forMs: 10_000 },
    };
  }
  // "Your trust decision will be saved": in CODEX_HOME's config.toml, which for a worker is umbel's
  // home (a copy of the user's, rewritten at each spawn), never the user's own. umbel's profile
  // trusts the cwd for the worker, so this dialog is not expected at all.
  if (screen.includes("Trust this folder?"))
    return trusting(menu("trust", lines, "Trust this folder?", "Trust and continue"), folderAccess(lines));
  // Hooks umbel did not write (the user's inline hooks, a project's new hooks): never trusted on the
  // user's behalf; umbel's own hooks are pre-trusted and keep running.
  if (screen.includes("Hooks need review"))
    return menu("hooks-review", lines, "Hooks need review", "Continue without trusting (hooks won't run)");
  if (screen.includes("Update available · ")) return menu("update", lines, "Update available · ", "Skip");
  const switchModel = rateLimitPopup(lines);
  if (switchModel) return switchModel;
  const approval = approvalBlock(lines);
  if (approval !== null) return { kind: "input", text: approval };
  if (/esc to interrupt/.test(screen)) return { kind: "busy" };
  if (composer !== null) return { kind: "ready" };
  return { kind: "unknown" };
}

/**
 * The text in the composer: "" when it shows the placeholder, null when there is no composer with
 * a status line under it (startup, a dialog). Continuation lines are indented by 2.
 */
export function readCodexComposer(screen: string): string | null {
  const lines = screen.split("\n").map((l) => l.trimEnd());
  const found = findComposer(lines);
  if (found === null) return null;
  const body = lines.slice(found.start, found.end).map((l) => l.slice(2));
  while (body.length > 0 && body.at(-1) === "") body.pop();
  const text = body.join("\n");
  // The placeholder, or its start caught mid-redraw (`Ask Codex t`, seen in a loaded CI run): empty.
  // (A one-line leftover read as empty is still cleared: an empty composer gets one kill round.)
  return PLACEHOLDERS.some((p) => p.startsWith(text)) ? "" : text;
}

/**
 * Keys that empty the composer: `C-u` only kills to the start of the current line (and after an
 * "Unrecognized command" the cursor sits at the start), so each line gets End, kill, and a
 * Backspace that joins it to the line above. Safe on an empty composer. Never `C-c`: on an empty
 * composer it quits codex at once (exit 0, no confirmation).
 */
export function clearCodexComposerKeys(screen: string): string[] {
  const text = readCodexComposer(screen) ?? "";
  const rounds = text === "" ? 1 : text.split("\n").length + 1;
  return Array.from({ length: rounds }, () => ["C-e", "C-u", "BSpace"]).flat();
}

/**
 * The error a failed turn left above the composer (`■ unexpected status 401 …`), or null. An
 * interrupt also draws `■ Conversation interrupted …`; that is not an error. Evidence only: the
 * transcript's `task_complete.error` is what ends the turn.
 */
export function findCodexScreenError(screen: string): string | null {
  const lines = screen.split("\n").map((l) => l.trimEnd());
  const composer = findComposer(lines);
  const above = lines.slice(0, composer ? composer.start : lines.length);
  while (above.length > 0 && above.at(-1)?.trim() === "") above.pop();
  // A long message wraps onto unindented lines (`request id: req_…`): the block runs from its `■`.
  const start = above.findLastIndex((l) => l.startsWith("■ "));
  if (start < 0 || above.slice(start + 1).some((l) => l.trim() === "" || /^[•›✔✗]/.test(l))) return null;
  const text = above.slice(start).join(" ").slice(2);
  return text.startsWith("Conversation interrupted") ? null : text;
}

/** The screen without what moves by itself: the `Working (12s • …)` counter and the spinner glyph. */
export function stillCodexScreen(screen: string): string {
  return screen
    .split("\n")
    .map((l) => (/esc to interrupt/.test(l) ? l.replace(/^\s*[◦•]\s*/, "").replace(/\d+/g, "#") : l))
    .join("\n");
}

function findComposer(lines: readonly string[]): { start: number; end: number } | null {
  for (let s = lines.length - 1; s > 0; s--) {
    if (!STATUS_LINE.test(lines[s] ?? "")) continue;
    let end = s;
    while (end > 0 && (lines[end - 1] ?? "") === "") end--;
    for (let c = end - 1; c >= 0; c--) {
      const line = lines[c] ?? "";
      if (line.startsWith("› ") || line === "›") return { start: c, end };
      if (!line.startsWith("  ") && line !== "") break;
    }
    return null;
  }
  return null;
}

/** The approval prompt, from `Would you like to …` down to `Press enter to confirm or esc to cancel`. */
function approvalBlock(lines: readonly string[]): string | null {
  const end = lines.findLastIndex((l) => l.includes("Press enter to confirm or esc to cancel"));
  if (end < 0) return null;
  const question = lines.findLastIndex((l, i) => i < end && /Would you like to /.test(l));
  if (question < 0) return null;
  // The tool line above the question (`• Running touch x`, then blank lines) names what is asked for.
  let start = question;
  for (let i = question - 1; i >= 0 && start === question; i--) {
    if (/^• /.test(lines[i] ?? "")) start = i;
    else if ((lines[i] ?? "").trim() !== "") break;
  }
  return lines
    .slice(start, end + 1)
    .filter((l) => l.trim() !== "")
    .join("\n");
}

/**
 * Keys that move the menu highlight onto the option whose text is `target`, then Enter. Only the
 * lines below the dialog's `title` count: a prompt in the history above shows as `› 1. …` too.
 */
function menu(dialog: string, lines: readonly string[], title: string, target: string): ScreenState {
  const top = lines.findLastIndex((l) => l.includes(title));
  const options = lines.slice(top + 1).flatMap((line, index) => {
    const m = OPTION.exec(line);
    return m ? [{ index, marked: m[1] !== undefined, text: m[3] ?? "" }] : [];
  });
  const wanted = options.findIndex((o) => o.text === target || o.text.startsWith(`${target} (`));
  const current = options.findIndex((o) => o.marked);
  if (wanted < 0 || current < 0) return { kind: "unknown" };
  const delta = wanted - current;
  const move = delta > 0 ? "Down" : "Up";
  return {
    kind: "dialog",
    dialog,
    keys: [...Array.from({ length: Math.abs(delta) }, () => move), "Enter"],
    answer: target,
  };
}

/**
 * After a usage limit whose 429 carried `x-codex-primary-used-percent: 100`, codex 0.171.0 opens
 * "Approaching rate limits / Switch to <model> for lower credit usage?" (limits.md §2.2; measured
 * through umbel: it is drawn after the error line, and the composer takes nothing until it closes).
 * umbel keeps the model (never switches it for the caller): the digit of "Keep current model".
 */
function rateLimitPopup(lines: readonly string[]): ScreenState | null {
  const top = lines.findLastIndex((l) => l.includes("Approaching rate limits"));
  if (top < 0) return null;
  const below = lines.slice(top);
  const keep = below
    .map((line) => OPTION.exec(line))
    .find((m) => m?.[3]?.startsWith("Keep current model") && !m[3].includes("never show again"));
  if (!keep?.[2]) return null;
  return { kind: "error", text: below.filter((l) => l.trim() !== "").join("\n"), keys: [keep[2]] };
}

function trusting(state: ScreenState, folders: string[]): ScreenState {
  return state.kind === "dialog" ? { ...state, grantsTrust: true, folders } : state;
}

/** The folder under the trust dialog's `Folder access` title. */
function folderAccess(lines: readonly string[]): string[] {
  const at = lines.findLastIndex((l) => l.trim() === "Folder access");
  const folder = at < 0 ? undefined : lines.slice(at + 1).find((l) => l.trim() !== "");
  return folder === undefined ? [] : [folder.trim()];
}

function tail(lines: readonly string[]): string {
  return lines
    .filter((l) => l !== "")
    .slice(-12)
    .join("\n");
}

/**
 * codex 0.171.0's approval menu (measured on the stub): `› 1. Yes, proceed (y)`, `2. Yes, and don't
 * ask again for commands that start with `…` (p)`, `3. No, and tell Codex what to do differently
 * (esc)`; umbel presses an option's own key (y, p, Escape). No aborts the turn (Interrupt hook).
 */
export const CODEX_ANSWERS: AnswerSpec = {
  meanings: {
    allow: /^Yes, proceed\b/,
    always: /^Yes, and don'?t ask again\b/,
    deny: /^No\b/,
  },
};
