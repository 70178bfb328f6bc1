import type { ScreenState } from "../types.ts";

/**
 * opencode 1.18.33's TUI as tmux shows it (docs/providers.md). The pane lags the plugin's events by
 * tens of ms (at the idle event the pane still showed `esc interrupt`); the events, not the screen,
 * end turns.
 * - home screen: `Ask anything…` in the composer; a session: the composer and the footer
 *   `ctrl+p commands`, which shows while busy too;
 * - busy: `esc interrupt` (after one Escape: `esc again to interrupt`) beside an animated bar;
 * - permission box: `△ Permission required` with `Allow once   Allow always   Reject`, and the
 *   confirmation Allow always opens: `△ Always allow` with `Confirm   Cancel`;
 * - question box: `↑↓ select  enter submit  esc dismiss`;
 * - exited: the normal screen shows `Continue  opencode -s ses_…`;
 * - a blank pane: opencode is building a view. At start (3-4 s, 20 s on 2 loaded cores) and on the
 *   first prompt, whose Enter leaves the home screen while the session is created (measured 1.8 s
 *   to 3 s and more under load before the prompt is recorded): the prompt was taken, so busy.
 */
const PERMISSION = /△ (Permission required|Always allow)/;
const PERMISSION_OPTIONS = /Allow once\s+Allow always\s+Reject|Confirm\s+Cancel/;
const QUESTION = /enter submit\s+esc dismiss/;
const BUSY = /esc (again to )?interrupt/;
const READY = /Ask anything|ctrl\+p commands/;
const EXITED = /^\s*Continue\s+opencode (-s|--session) \S+/m;

export function classifyOpencodeScreen(screen: string): ScreenState {
  if (screen.trim() === "") return { kind: "busy" };
  if (PERMISSION.test(screen) && PERMISSION_OPTIONS.test(screen))
    return { kind: "input", text: boxText(screen, PERMISSION) };
  if (QUESTION.test(screen)) return { kind: "input", text: boxText(screen, QUESTION, true) };
  if (EXITED.test(screen) && !READY.test(screen)) return { kind: "exited", text: screen.trim() };
  if (BUSY.test(screen)) return { kind: "busy" };
  if (READY.test(screen)) return { kind: "ready" };
  return { kind: "unknown" };
}

/** The animated bar (`⬝⬝⬝■■■■■`) moves while nothing happens. */
export function stillOpencodeScreen(screen: string): string {
  return screen.replace(/[⬝■]{3,}/g, "");
}

/**
 * The box's lines, the `┃` gutter and the sidebar cut away: a permission from its title down to its
 * options; a question (`above`) from below the `▣` header of its turn down to the footer.
 */
function boxText(screen: string, marker: RegExp, above = false): string {
  const raw = screen.split("\n");
  const at = raw.findIndex((line) => marker.test(line));
  if (at < 0) return "";
  let from = at;
  let to = raw.findIndex((line, i) => i > at && PERMISSION_OPTIONS.test(line));
  if (above) {
    to = at;
    from = raw.slice(0, at).findLastIndex((line) => /▣|→ Asked/.test(line)) + 1;
  }
  return raw
    .slice(from, to < 0 ? undefined : to)
    .map((line) =>
      line
        .replace(/^\s*┃ {0,2}/, "")
        .replace(/(?<=\S)\s{3,}\S.*$|^\s{20,}\S.*$/, "")
        .trimEnd(),
    )
    .filter((line) => line.trim() !== "")
    .join("\n");
}
