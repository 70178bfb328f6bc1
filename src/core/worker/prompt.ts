/**
 * Text normalisation before a paste. Measured on claude 2.1.332: CRLF arrives as two newlines, C0
 * controls are removed with a footer warning, and an `ESC[201~` inside the text ends the bracketed
 * paste early (the rest is typed as keystrokes). So: CRLF/CR → LF, drop ESC and other controls
 * except newline and tab.
 */
export function normalisePrompt(prompt: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  return prompt.replace(/\r\n?/g, "\n").replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "");
}

/** Nothing but whitespace once normalised: a TUI submits nothing, so no face sends it. */
export function isBlankPrompt(prompt: string): boolean {
  return normalisePrompt(prompt).trim() === "";
}

/** How a TUI folds a paste into a placeholder (`[Pasted text #1 +3 lines]`) instead of showing it. */
export type PasteFold = {
  /** Pastes longer than this many characters are folded. */
  readonly maxChars: number;
  /** Pastes with more line breaks than this are folded. */
  readonly maxLineBreaks: number;
};

/**
 * A prompt that the TUI would run as a slash command is padded with trailing newlines until its
 * paste is folded into a placeholder: a folded paste is always sent as text. A leading space is no
 * protection: claude checks `text.trim().startsWith("/")`, so `" /exit"` quits it (2.1.332).
 */
export function foldSlashPrompt(prompt: string, fold: PasteFold): string {
  if (!/^\s*\//.test(prompt) || prompt.length > fold.maxChars) return prompt;
  const breaks = prompt.split("\n").length - 1;
  return breaks > fold.maxLineBreaks ? prompt : prompt + "\n".repeat(fold.maxLineBreaks + 1 - breaks);
}

/** A paste that starts with `!` switches claude's box to shell mode; a leading space does not. */
export function neutraliseShellPrefix(prompt: string): string {
  return prompt.startsWith("!") ? ` ${prompt}` : prompt;
}
