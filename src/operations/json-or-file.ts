import { isAbsolute, resolve } from "node:path";
import type { FilesPort } from "../core/ports.ts";
import { isJsonObjectText } from "../core/schemas.ts";

/**
 * A flag that takes JSON object text or a file path (claude's --settings, --mcp-config): inline
 * text as is (path null), else the file resolved against `base` (text null when it is missing).
 */
export async function readJsonOrFile(
  files: FilesPort,
  value: string,
  base: string,
): Promise<{ path: string | null; text: string | null }> {
  if (isJsonObjectText(value)) return { path: null, text: value };
  const path = isAbsolute(value) ? value : resolve(base, value);
  return { path, text: await files.readText(path) };
}
