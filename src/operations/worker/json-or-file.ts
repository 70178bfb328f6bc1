import { isAbsolute, resolve } from "node:path";
import { quoteArg } from "../../core/common/quote.ts";
import { UsageError } from "../../core/errors.ts";
import type { FilesPort } from "../../core/ports.ts";
import { isJsonObjectText } from "../../core/schemas.ts";

/**
 * A flag that takes JSON object text or a file path (claude's --settings, --mcp-config): inline
 * text as is (path null), else the file resolved against `base` (text null when it is missing).
 * A path that is a directory or cannot be read is the caller's to fix: a usage error, not a bug.
 */
export async function readJsonOrFile(
  files: FilesPort,
  value: string,
  base: string,
): Promise<{ path: string | null; text: string | null }> {
  if (isJsonObjectText(value)) return { path: null, text: value };
  const path = isAbsolute(value) ? value : resolve(base, value);
  try {
    return { path, text: await files.readText(path) };
  } catch (error) {
    const shown = quoteArg(path, 200);
    if (await files.isDirectory(path).catch(() => false))
      throw new UsageError(`${shown} is a directory, not a JSON file`, { path });
    throw new UsageError(`cannot read ${shown}: ${(error as Error).message}`, { path }, { cause: error });
  }
}
