import { sha256Hex } from "../common/sha256.ts";

/**
 * `umbel answer`: a choice by meaning (allow, deny, always, or an option) turned into the keys of the
 * prompt on screen. Every CLI umbel drives draws its prompts as numbered menus — claude 2.1.332
 * `❯ 1. Yes`, codex 0.171.0 `› 1. Yes, proceed (y)`, gemini 0.61.0 `│ ● 1. Allow once │` — so one
 * reader serves all three; a provider names what each meaning looks like on its menus (AnswerSpec).
 */

export type Meaning = "allow" | "always" | "deny";

/**
 * One option of a prompt's menu: its number, its label, and its own shortcut key when it shows one.
 * A menu that picks by moving a highlight (opencode's one-row box) gives each option the `keys` that
 * reach it from the highlight and press it (null: the screen does not show which option is
 * highlighted), and `confirm`, the option of the confirmation the CLI opens next (opencode's "Allow
 * always" asks to Confirm).
 */
export type PromptOption = {
  readonly number: number;
  readonly label: string;
  readonly key: string | null;
  readonly keys?: readonly string[] | null;
  readonly confirm?: string;
};

/** What each meaning looks like in a provider's option labels (the first option that matches wins). */
export type AnswerMeanings = Readonly<Record<Meaning, RegExp>>;

/** The plain "yes" of every CLI; claude's "Yes, and switch to auto mode" is neither allow nor always. */
export const DEFAULT_MEANINGS: AnswerMeanings = {
  allow: /^(yes|allow|approve|proceed)\b(?!.*\b(always|don'?t ask|session|switch)\b)/i,
  always: /\b(always|don'?t ask again|for this session)\b/i,
  deny: /^(no|deny|reject|cancel)\b/i,
};

const OPTION = /^\s*(?:[❯›●>]\s*)?(\d{1,2})\.\s+(.*?)\s*$/;
/** `Yes, proceed (y)`, `No, and tell Codex what to do differently (esc)`: the option's own key. */
const SHORTCUT = /\s\((esc|[a-z0-9])\)$/i;

/**
 * The options of the last menu on the screen: numbered lines from 1 upward (box borders dropped; a
 * number may be skipped, as claude does for an option it does not offer). A numbered list earlier on
 * screen (the model's own answer, gemini's tips) is never the menu: the last run from 1 wins.
 */
export function readMenu(screen: string): PromptOption[] {
  let menu: PromptOption[] = [];
  let current: PromptOption[] = [];
  for (const raw of screen.split("\n")) {
    const match = OPTION.exec(unbox(raw));
    if (!match) continue;
    const number = Number(match[1]);
    const text = match[2] ?? "";
    const shortcut = SHORTCUT.exec(text);
    const option = {
      number,
      label: shortcut ? text.slice(0, shortcut.index).trim() : text,
      key: shortcut ? (shortcut[1] ?? "").toLowerCase() : null,
    };
    if (number === 1) current = [option];
    else if (current.length > 0 && number > (current.at(-1)?.number ?? 0)) current.push(option);
    else continue;
    menu = current;
  }
  return menu;
}

export type AnswerPlan =
  | {
      readonly ok: true;
      readonly option: PromptOption | null;
      readonly keys: readonly string[];
      /** The choice to make on the confirmation these keys open (answered the same way). */
      readonly confirm?: string;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * The keys for a choice: allow / always / deny by the provider's meanings, a number, or the start of
 * an option's label. deny with no "No" option is Escape (every CLI here cancels its prompt on it).
 */
export function planAnswer(
  options: readonly PromptOption[],
  choice: string,
  meanings: AnswerMeanings = DEFAULT_MEANINGS,
): AnswerPlan {
  const wanted = choice.trim();
  const listed = options.map((o) => `${o.number}. ${o.label}`).join("; ") || "none";
  if (wanted === "allow" || wanted === "always" || wanted === "deny") {
    const option = options.find((o) => meanings[wanted].test(o.label)) ?? null;
    if (option) return pick(option, listed);
    if (wanted === "deny") return { ok: true, option: null, keys: ["Escape"] };
    return { ok: false, reason: `this prompt has no option that means ${wanted} (options: ${listed})` };
  }
  if (/^\d{1,2}$/.test(wanted)) {
    const option = options.find((o) => o.number === Number(wanted));
    if (option) return pick(option, listed);
    return { ok: false, reason: `this prompt has no option ${wanted} (options: ${listed})` };
  }
  const prefix = collapse(wanted).toLowerCase();
  const found = options.filter((o) => collapse(o.label).toLowerCase().startsWith(prefix));
  const [only] = found;
  if (found.length === 1 && only) return pick(only, listed);
  const why = found.length === 0 ? "no option starts with" : "more than one option starts with";
  return {
    ok: false,
    reason: `${why} ${JSON.stringify(wanted)} (options: ${listed}); give allow, always, deny or a number`,
  };
}

/**
 * An option's keys: the moves its menu gave it (opencode), else its own shortcut when it shows one
 * (codex `(y)`, `(esc)`), else its digit (claude, gemini).
 */
function pick(option: PromptOption, listed: string): AnswerPlan {
  if (option.keys === null)
    return {
      ok: false,
      reason: `the screen does not show which option is highlighted (options: ${listed}); press the keys yourself with umbel keys`,
    };
  const keys = option.keys ?? [option.key === "esc" ? "Escape" : (option.key ?? String(option.number))];
  return { ok: true, option, keys, ...(option.confirm === undefined ? {} : { confirm: option.confirm }) };
}

/**
 * The id of a pending prompt, the same in every process: a hash of its turn (the prompt id), its
 * place in the events log and its text. A second prompt for the same command is a new line, so a new id.
 */
export function inputIdOf(turn: {
  readonly promptId: string | null;
  readonly at: number;
  readonly text: string;
}): string {
  const key = `${turn.promptId ?? ""}\n${turn.at}\n${turn.text}`;
  return `in-${sha256Hex(key).slice(0, 12)}`;
}

/**
 * Whether the screen shows the prompt an input event described (`Bash: echo hi > x.txt`,
 * `Shell: touch x (why)`): the start of what it asks about appears on screen, whitespace collapsed
 * (a long command wraps). Text without `Tool: ` proves nothing either way (true).
 */
export function showsPrompt(screen: string, text: string): boolean {
  const colon = text.indexOf(": ");
  if (colon < 0) return true;
  const subject = collapse(
    text
      .slice(colon + 2)
      .split("\n")[0]
      ?.replace(/\s\([^)]*\)$/, "") ?? "",
  ).slice(0, 30);
  if (subject === "") return true;
  return collapse(screen.split("\n").map(unbox).join(" ")).includes(subject);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** `│ ● 1. Allow once    │` → ` ● 1. Allow once` (gemini draws its menus in boxes). */
function unbox(line: string): string {
  return line.replace(/^\s*│/, "").replace(/│\s*$/, "");
}
