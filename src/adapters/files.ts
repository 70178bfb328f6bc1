import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { isJsonObjectText } from "../core/schemas.ts";

/** Temp file + rename in the same directory: readers see the old or the new file, never half. */
export async function writeFileAtomic(path: string, content: string, mode = 0o600): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, content, { mode });
  await rename(tmp, path);
}

/** The file's text, or null when it does not exist. */
export async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

export function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "ENOENT";
}

export function isExists(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "EEXIST";
}

/**
 * A flag that takes JSON object text or a file path (claude's --settings, --mcp-config): inline
 * text as is (path null), else the file resolved against `base` (text null when it is missing).
 */
export async function readJsonOrFile(
  value: string,
  base: string,
): Promise<{ path: string | null; text: string | null }> {
  if (isJsonObjectText(value)) return { path: null, text: value };
  const path = isAbsolute(value) ? value : resolve(base, value);
  return { path, text: await readTextOrNull(path) };
}
