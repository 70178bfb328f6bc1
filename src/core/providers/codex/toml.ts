/** A TOML basic string (also a quoted key): backslash, quote and control characters escaped. */
export function tomlString(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: escaping control characters is the point
  const escaped = text.replace(/[\\"\u0000-\u001f\u007f]/g, (c) => {
    const named: Record<string, string> = {
      "\\": "\\\\",
      '"': '\\"',
      "\b": "\\b",
      "\t": "\\t",
      "\n": "\\n",
      "\f": "\\f",
      "\r": "\\r",
    };
    return named[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
  return `"${escaped}"`;
}
