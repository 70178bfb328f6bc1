import { type PromptOption, readMenu } from "../../fleet/answer.ts";
import type { AnswerSpec } from "../types.ts";

/**
 * `umbel answer` on opencode 1.18.33 (measured against the stub; docs/providers.md). Its permission
 * box is one row, `Allow once   Allow always   Reject`, that marks its choice by colour only: the
 * chosen option's background is the theme's warning colour, which is also the colour of the box's
 * `┃` border. Left/Right move the choice and wrap around, Enter picks it; the box opens on Allow once.
 * Allow always opens a confirmation (`△ Always allow`, `Confirm   Cancel`, opening on Confirm); its
 * Cancel goes back to the box. Escape rejects (a root session's box). The question box is a numbered
 * list whose digits pick and submit (core/fleet/answer.ts readMenu).
 */
export const OPENCODE_ANSWERS: AnswerSpec = {
  escapes: true,
  meanings: {
    allow: /^Allow once$/,
    always: /^(Allow always|Confirm)$/,
    deny: /^(Reject|Cancel)$/,
  },
  readMenu: readOpencodeMenu,
};

type Row = { readonly label: string; readonly confirm?: string }[];

const ROWS: readonly Row[] = [
  [{ label: "Allow once" }, { label: "Allow always", confirm: "Confirm" }, { label: "Reject" }],
  [{ label: "Confirm" }, { label: "Cancel", confirm: "Reject" }],
];

/** The options of the box on a screen captured with its escapes (a row of choices, else a numbered list). */
export function readOpencodeMenu(screen: string): PromptOption[] {
  const lines = screen.split("\n").map(readCells);
  for (let i = lines.length - 1; i >= 0; i--) {
    const cells = lines[i] ?? [];
    const text = cells.map((c) => c.ch).join("");
    if (!text.trimStart().startsWith("┃")) continue;
    const row = ROWS.find((r) => rowPattern(r).test(text));
    if (row) return rowOptions(row, cells, text);
  }
  return readMenu(lines.map((cells) => unframe(cells.map((c) => c.ch).join(""))).join("\n"));
}

/** `  ┃  2. Blue      LSPs are disabled` → `2. Blue`: the box's gutter and the sidebar beside it cut away. */
function unframe(line: string): string {
  return line.replace(/^\s*┃/, "").replace(/(?<=\S)\s{3,}\S.*$/, "");
}

function rowOptions(row: Row, cells: readonly Cell[], text: string): PromptOption[] {
  const border = cells.find((c) => c.ch === "┃")?.fg ?? null;
  let from = 0;
  const starts = row.map(({ label }) => {
    const at = text.indexOf(label, from);
    from = at + label.length;
    return at;
  });
  const lit = starts.flatMap((at, i) => (border !== null && cells[at]?.bg === border ? [i] : []));
  const [selected] = lit;
  return row.map(({ label, confirm }, i) => ({
    number: i + 1,
    label,
    key: null,
    keys: lit.length === 1 && selected !== undefined ? moves(selected, i, row.length) : null,
    ...(confirm === undefined ? {} : { confirm }),
  }));
}

/** From the highlight to option `to`, the shorter way round (on a tie, the way that does not wrap), then Enter. */
function moves(from: number, to: number, count: number): string[] {
  const right = (to - from + count) % count;
  const left = (from - to + count) % count;
  const useRight = right < left || (right === left && to > from);
  return [...Array<string>(useRight ? right : left).fill(useRight ? "Right" : "Left"), "Enter"];
}

function rowPattern(row: Row): RegExp {
  return new RegExp(row.map((o) => o.label).join("\\s+"));
}

type Cell = { readonly ch: string; readonly fg: string | null; readonly bg: string | null };

const ESC = "\u001b";

/** A line's characters with the colours SGR sequences gave them (other sequences are dropped). */
function readCells(line: string): Cell[] {
  const cells: Cell[] = [];
  const pen: Pen = { fg: null, bg: null, reverse: false };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] ?? "";
    if (ch !== ESC) {
      cells.push(pen.reverse ? { ch, fg: pen.bg, bg: pen.fg } : { ch, fg: pen.fg, bg: pen.bg });
      continue;
    }
    if (line[i + 1] !== "[") {
      i++;
      continue;
    }
    let end = i + 2;
    while (end < line.length && !/[@-~]/.test(line[end] ?? "")) end++;
    if (line[end] === "m") applySgr(pen, line.slice(i + 2, end));
    i = end;
  }
  return cells;
}

type Pen = { fg: string | null; bg: string | null; reverse: boolean };

function applySgr(pen: Pen, params: string): void {
  const codes = params.split(/[;:]/);
  for (let k = 0; k < codes.length; k++) {
    const code = Number(codes[k] || "0");
    if (code === 38 || code === 48) {
      const width = codes[k + 1] === "5" ? 2 : codes[k + 1] === "2" ? 4 : 0;
      const colour = codes.slice(k + 1, k + 1 + width).join(";");
      if (code === 38) pen.fg = colour;
      else pen.bg = colour;
      k += width;
    } else if (code === 0) Object.assign(pen, { fg: null, bg: null, reverse: false });
    else if (code === 7) pen.reverse = true;
    else if (code === 27) pen.reverse = false;
    else if (code === 39) pen.fg = null;
    else if (code === 49) pen.bg = null;
    else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) pen.fg = String(code - 30);
    else if ((code >= 40 && code <= 47) || (code >= 100 && code <= 107)) pen.bg = String(code - 40);
  }
}
