/**
 * tmux's key-name grammar (key-string.c), as far as a TUI needs it. tmux send-keys types an argument
 * it cannot read as a key as literal text and exits 0, so a key name is checked here before any key
 * is pressed. Verdicts match tmux 3.3a (`bind-key` refuses exactly what send-keys would type); names
 * tmux knows that mean nothing to a TUI (None, Any, User0, mouse events, 0x41) are refused too.
 */

/** The named keys, lower-cased (tmux compares names case-insensitively). F13 and up are not keys. */
const NAMED = new Set(
  [
    "Enter",
    "Escape",
    "Tab",
    "BTab",
    "Space",
    "BSpace",
    "Up",
    "Down",
    "Left",
    "Right",
    "Home",
    "End",
    "PageUp",
    "PgUp",
    "PPage",
    "PageDown",
    "PgDn",
    "NPage",
    "IC",
    "Insert",
    "DC",
    "Delete",
    ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
    ...["/", "*", "-", "+", ".", "Enter", ..."0123456789"].map((k) => `KP${k}`),
  ].map((name) => name.toLowerCase()),
);

/** What an error lists: every name a caller is likely to want, and the grammar around them. */
export const KEY_NAMES =
  "Enter, Escape, Tab, BTab, Space, BSpace, Up, Down, Left, Right, Home, End, PageUp (PgUp, PPage), " +
  "PageDown (PgDn, NPage), Insert (IC), Delete (DC), F1-F12, KP0-KP9, KP/ KP* KP- KP+ KP. KPEnter, " +
  "or one character; each may take the modifiers C- M- S- (e.g. C-c, M-Enter, S-Tab)";

/** ASCII characters tmux 3.3a cannot combine with Ctrl (`C-{` is no key; `C-[`, `C-?`, `C-1` are). */
const NO_CTRL = new Set([...'"$%&*{|}~']);

export function isKeyName(name: string): boolean {
  let rest = name;
  let ctrl = false;
  if (rest.startsWith("^") && rest.length > 1) {
    ctrl = true;
    rest = rest.slice(1);
  }
  // Modifiers: any run of C- M- S- (either case) before the key itself.
  while (rest.length >= 2 && rest[1] === "-" && /^[CMScms]$/.test(rest[0] ?? "")) {
    if (rest[0] === "C" || rest[0] === "c") ctrl = true;
    rest = rest.slice(2);
  }
  if (rest === "") return false;
  if (NAMED.has(rest.toLowerCase())) return true;
  const chars = [...rest];
  if (chars.length !== 1) return false;
  const code = rest.codePointAt(0) ?? 0;
  if (code < 32) return false; // C0 controls are no key names (Tab is "Tab", Enter "Enter")
  return !(ctrl && NO_CTRL.has(rest));
}
