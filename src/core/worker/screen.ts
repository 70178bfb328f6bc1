/**
 * Answering a menu on a TUI screen by its highlighted option, never by assuming a default: claude's
 * trust dialog highlights "No, exit", so a blind Enter quits the CLI.
 */
const MARKER = /^\s*❯\s?/;

/**
 * Keys that move the highlight (`❯`) onto the option containing `target`, then Enter; null when the
 * screen shows no highlighted option or no such option.
 */
export function answerDialog(screen: string, target: string): string[] | null {
  const lines = screen.split("\n");
  const targetLine = lines.findIndex((l) => optionText(l) === target || optionText(l).endsWith(` ${target}`));
  if (targetLine < 0) return null;
  // The highlighted option is the marked line nearest to the target (the options are adjacent).
  let selected = -1;
  for (let i = 0; i < lines.length; i++) {
    if (
      MARKER.test(lines[i] ?? "") &&
      (selected < 0 || Math.abs(i - targetLine) < Math.abs(selected - targetLine))
    ) {
      selected = i;
    }
  }
  if (selected < 0 || Math.abs(selected - targetLine) > 8) return null;
  const delta = targetLine - selected;
  const move = delta > 0 ? "Down" : "Up";
  return [...Array.from({ length: Math.abs(delta) }, () => move), "Enter"];
}

/** "  ❯ 2. Yes, I trust this folder " → "2. Yes, I trust this folder" (numbering kept). */
function optionText(line: string): string {
  return line.replace(MARKER, "").trim();
}

/** The last non-empty lines of a screen: evidence that fits in a message. */
export function screenTail(screen: string | null, lines = 15): string {
  if (!screen) return "";
  // tmux's own remain-on-exit banner is not the CLI's screen.
  const kept = screen
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l !== "" && !/^Pane is dead \(/.test(l));
  return kept.slice(-lines).join("\n");
}

/** The screen without the blank lines below its last text (a pane is drawn to its full height). */
export function dropTrailingBlankLines(screen: string): string {
  const lines = screen.split("\n");
  let end = lines.length;
  while (end > 0 && (lines[end - 1] ?? "").trim() === "") end--;
  return end === 0 ? "" : `${lines.slice(0, end).join("\n")}\n`;
}
