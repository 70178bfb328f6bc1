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

/** A leading `/` or `!` turns a prompt into a slash command or shell mode; a leading space does not. */
export function neutralisePromptPrefix(prompt: string): string {
  return /^[/!]/.test(prompt) ? ` ${prompt}` : prompt;
}
