/** A plain JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON value in `text`, or undefined when it is not JSON (blank or no text included). */
export function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The JSON object in `text`, or null: blank text, invalid JSON (a JSONL line still being appended
 * while we read, or cut by a read offset) and any other JSON value all read as null.
 */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  const value = parseJson(text);
  return isRecord(value) ? value : null;
}

/** `value` when it is a JSON object, else an empty one (to read optional nested settings). */
export function asRecord(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

/** `record[key]` when it is a string, else null. */
export function stringAt(record: Readonly<Record<string, unknown>>, key: string): string | null {
  const value = record[key];
  return typeof value === "string" ? value : null;
}
