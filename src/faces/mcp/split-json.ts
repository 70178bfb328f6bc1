/**
 * A line that is several whole JSON values side by side (`{…}{…}`, a client that forgot a
 * newline), split and parsed; null when any piece is not JSON. One pass over the text: brackets
 * are counted outside strings, and a scalar runs to the next space or bracket.
 */
export function splitJsonValues(text: string): unknown[] | null {
  const values: unknown[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i] ?? "")) i++;
    if (i >= text.length) break;
    const end = valueEnd(text, i);
    if (end < 0) return null;
    try {
      values.push(JSON.parse(text.slice(i, end)));
    } catch {
      return null;
    }
    i = end;
  }
  return values;
}

/** Where the JSON value starting at `start` ends, or -1 when it never closes. */
function valueEnd(text: string, start: number): number {
  const first = text[start];
  if (first === '"') return stringEnd(text, start);
  if (first !== "{" && first !== "[") {
    let i = start;
    while (i < text.length && !/[\s{}[\]"]/.test(text[i] ?? "")) i++;
    return i;
  }
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      i = stringEnd(text, i) - 1;
      if (i < 0) return -1;
    } else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Just past the closing quote of the string starting at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return -1;
}
