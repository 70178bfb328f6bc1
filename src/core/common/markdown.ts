/** Markdown structure, read from an agent's answer (and from umbel's own help files). */

export type Heading = { line: number; level: number; title: string };

/** Markdown ATX headings (`## Title`) outside fenced code blocks; `line` is 1-based. */
export function findHeadings(text: string): Heading[] {
  const headings: Heading[] = [];
  let fence: string | null = null;
  text.split("\n").forEach((raw, i) => {
    const line = raw.trimEnd();
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker[0] ?? null;
      else if (marker[0] === fence) fence = null;
      return;
    }
    if (fence !== null) return;
    const m = /^ {0,3}(#{1,6})\s+(.*?)(\s+#+)?$/.exec(line);
    if (m?.[1] && m[2]) headings.push({ line: i + 1, level: m[1].length, title: m[2].trim() });
  });
  return headings;
}

/** The section under the first heading matching `wanted` (exact title first, then a substring). */
export function findSection(text: string, wanted: string): { heading: Heading; text: string } | null {
  const key = normalise(wanted);
  const headings = findHeadings(text);
  const heading =
    headings.find((h) => normalise(h.title) === key) ??
    headings.find((h) => normalise(h.title).includes(key));
  if (!heading) return null;
  const next = headings.find((h) => h.line > heading.line && h.level <= heading.level);
  const lines = text.split("\n");
  const body = lines.slice(heading.line - 1, next ? next.line - 1 : lines.length);
  while (body.length > 1 && body.at(-1)?.trim() === "") body.pop();
  return { heading, text: body.join("\n") };
}

function normalise(title: string): string {
  return title
    .replace(/^#+\s*/, "")
    .trim()
    .toLowerCase();
}
