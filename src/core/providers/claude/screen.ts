import { answerDialog } from "../../worker/screen.ts";
import type { AnswerSpec, ScreenState } from "../types.ts";

const TRUST_OPTION = "Yes, I trust this folder";
const ADD_DIR_OPTION = "Yes, add it";

export function classifyScreen(screen: string): ScreenState {
  if (screen.includes("didn't start because this folder isn't trusted"))
    return { kind: "exited", text: tail(screen) };
  // A "Yes" is written to `projects[<folder, or its git repository's top>].hasTrustDialogAccepted`
  // in claude's own .claude.json (2.1.332): it lasts past the worker, as a person's answer would.
  if (screen.includes(TRUST_OPTION))
    return trusting(dialog("trust", screen, TRUST_OPTION), named(screen, "Accessing workspace:"), true);
  // --add-dir of a folder claude has not trusted yet asks again, defaulting to "No, exit". "Your
  // answer holds for this session" (2.1.332): nothing is recorded.
  if (screen.includes(ADD_DIR_OPTION))
    return trusting(dialog("add-dir", screen, ADD_DIR_OPTION), named(screen, "Adding a new directory:"));
  // "Yes" goes into .claude.json's customApiKeyResponses.approved (the key's last 20 characters):
  // lasting, though no trust (and umbel shows it only for a key passed with --env).
  if (screen.includes("Detected a custom API key")) return kept(dialog("api-key", screen, "Yes"));
  if (screen.includes("Yes, I accept") && screen.includes("Bypass Permissions")) {
    return dialog("bypass-permissions", screen, "Yes, I accept");
  }
  if (screen.includes("Settings Warning")) {
    return {
      kind: "dialog",
      dialog: "settings-warning",
      keys: [],
      fatal: "claude rejected umbel's --settings",
    };
  }
  if (/Select login method|Not logged in|run \/login|Log in with your Claude account/.test(screen)) {
    return { kind: "sign-in", text: tail(screen) };
  }
  if (/Enter to continue/.test(screen) && /auto mode/i.test(screen) && /classifier|charge/.test(screen)) {
    return { kind: "dialog", dialog: "auto-mode-billing-notice", keys: ["Enter"] };
  }
  const limitMenu = rateLimitMenu(screen);
  if (limitMenu) return limitMenu;
  const permission = /Do you want to (proceed|create|make this edit|allow)[^\n]*/.exec(screen);
  if (permission && /Esc to cancel/.test(screen)) return { kind: "input", text: permissionBlock(screen) };
  // AskUserQuestion (2.1.332): `☐ <header>`, the question, `❯ 1. <option>` …, and this footer. Its
  // `❯` and rules also look like the idle composer, so it is read first.
  if (/Enter to select · ↑\/↓ to navigate/.test(screen) && /^\s*❯\s*\d+\. /m.test(screen))
    return { kind: "input", text: questionBlock(screen) };
  if (/esc to interrupt/.test(screen)) return { kind: "busy" };
  if (/^❯/m.test(screen) && /^─{8,}/m.test(screen)) return { kind: "ready" };
  return { kind: "unknown" };
}

/**
 * claude's busy line ticks every second (`✻ Puttering… (12s · ↓ 40 tokens)`) and its glyph cycles,
 * even when the request hangs; `--idle-timeout` must see through that, so the spinner line goes
 * and digits are blanked.
 */
export function stillScreen(screen: string): string {
  return screen
    .split("\n")
    .filter((l) => !/^\S\s+\S.*…/.test(l))
    .join("\n")
    .replace(/\d+/g, "#");
}

/**
 * After a usage limit it will not continue by itself, claude 2.1.332 runs /rate-limit-options:
 * "What do you want to do?" with `❯ 1. Stop and wait for limit to reset` (Max; Pro adds an upgrade
 * option). Its digit closes the menu and nothing else happens (the other options wait, or upgrade).
 */
function rateLimitMenu(screen: string): ScreenState | null {
  if (!screen.includes("What do you want to do?")) return null;
  const option = /^\s*(?:❯\s*)?(\d)\.\s+Stop and wait for limit to reset/m.exec(screen);
  if (!option?.[1]) return null;
  const lines = screen.split("\n");
  const top = lines.findLastIndex((l) => l.includes("What do you want to do?"));
  const text = lines
    .slice(top)
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .join("\n");
  return { kind: "error", text, keys: [option[1]] };
}

function trusting(state: ScreenState, folders: string[], lasting = false): ScreenState {
  if (state.kind !== "dialog") return state;
  return { ...state, grantsTrust: true, ...(lasting ? { lasting: true } : {}), folders };
}

function kept(state: ScreenState): ScreenState {
  return state.kind === "dialog" ? { ...state, lasting: true } : state;
}

function dialog(name: string, screen: string, target: string): ScreenState {
  const keys = answerDialog(screen, target);
  return keys ? { kind: "dialog", dialog: name, keys, answer: target } : { kind: "unknown" };
}

/** The folder a trust question names: the first line under its header (`Accessing workspace:`). */
function named(screen: string, header: string): string[] {
  const lines = screen.split("\n");
  const at = lines.findLastIndex((l) => l.trim() === header);
  const folder = at < 0 ? undefined : lines.slice(at + 1).find((l) => l.trim() !== "");
  return folder === undefined ? [] : [folder.trim()];
}

/** The prompt block: from the tool line (`● Bash(...)`) or the header down to "Esc to cancel". */
function permissionBlock(screen: string): string {
  const lines = screen.split("\n");
  const end = lines.findLastIndex((l) => l.includes("Esc to cancel"));
  let start = lines.findLastIndex((l, i) => i < end && /^[─]{8,}/.test(l.trim()));
  if (start < 0) start = Math.max(0, end - 15);
  return lines
    .slice(start + 1, end + 1)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "" && !/^[╌─]+$/.test(l.trim()))
    .join("\n");
}

/** The question: from its `☐ header` line (else the last rule) down to the footer. */
function questionBlock(screen: string): string {
  const lines = screen.split("\n");
  const end = lines.findLastIndex((l) => l.includes("Enter to select"));
  let start = lines.findLastIndex((l, i) => i < end && /^\s*[☐☒✔]/.test(l));
  if (start < 0) start = lines.findLastIndex((l, i) => i < end && /^[─]{8,}/.test(l.trim())) + 1;
  return lines
    .slice(Math.max(0, start), end + 1)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "" && !/^[─]+$/.test(l.trim()))
    .join("\n");
}

function tail(screen: string): string {
  return screen
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l !== "")
    .slice(-12)
    .join("\n");
}

/**
 * claude 2.1.332's permission menu (measured on the stub, manual mode): `1. Yes`, `2. Yes, and always
 * allow access to <dir> from this project` (or `… don't ask again for <rule> …`), `3. Yes, and switch
 * to auto mode`, `4. No`; a digit picks its option at once. "No" ends the turn with no hook at all.
 */
export const CLAUDE_ANSWERS: AnswerSpec = {
  meanings: {
    allow: /^Yes$/,
    always: /^Yes, and (always allow|don'?t ask again)/,
    deny: /^No\b/,
  },
};
