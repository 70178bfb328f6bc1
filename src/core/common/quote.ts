/**
 * A word the user typed, as an error message shows it: as is when it reads as one word, else
 * JSON-quoted with every control, format and line-breaking character escaped, so a message stays
 * one line and a bidi override cannot reorder it. 60 characters at most: a 5,000-character argument
 * is named, not reprinted.
 */
export function quoteArg(word: string, max = 60): string {
  const chars = [...word];
  const short = chars.length > max ? `${chars.slice(0, max).join("")}…` : word;
  if (/^[^\s\p{C}"'\\]+$/u.test(short)) return short;
  return JSON.stringify(short).replace(
    /[\p{C}\u2028\u2029\u0085]/gu,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
}
