import { isAbsolute, relative, resolve } from "node:path";
import { OUTPUT_INLINE_BYTES } from "../../core/common/log-bounds.ts";
import type { Deps } from "../../core/ports.ts";
import { cutOutput, type OutputCut } from "../../core/workflow/output-cut.ts";

export type OutputFile =
  | { ok: true; text: string; cut: OutputCut | null }
  | { ok: false; outcome: "missing-output" | "output-outside-cwd"; message: string; path: string };

/**
 * A step's `file:PATH` output, read only when it is a file inside the worker's cwd. Validation has
 * refused what the text shows (`..`, absolute paths); here both the cwd and the file are resolved
 * through their symlinks, so a link to /etc/hostname in the cwd is an error, never the next prompt.
 */
export async function readOutputFile(
  deps: Deps,
  cwd: string,
  key: string,
  spec: string,
): Promise<OutputFile> {
  const path = resolve(cwd, spec.slice("file:".length));
  // size() follows links: null for a missing file and for a link to nothing.
  if ((await deps.files.size(path)) === null || (await deps.files.isDirectory(path)))
    return { ok: false, outcome: "missing-output", message: `output ${key}: ${path} was not written`, path };
  const [real, root] = await Promise.all([deps.files.realpath(path), deps.files.realpath(cwd)]);
  const inside = relative(root, real);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside))
    return {
      ok: false,
      outcome: "output-outside-cwd",
      message: `output ${key}: ${spec} is ${real}, outside the worker's cwd ${root}; a file output must stay inside it`,
      path: real,
    };
  // Only the head is read: a 30 MB output was copied whole into state.json and the --json events.
  const head = await deps.files.readHead(real, OUTPUT_INLINE_BYTES);
  const whole = head?.complete === false ? await deps.files.digest(real) : null;
  if (head === null || (!head.complete && whole === null))
    return { ok: false, outcome: "missing-output", message: `output ${key}: ${path} was not written`, path };
  if (whole === null) return { ok: true, text: head.text, cut: null };
  const cut = { ...whole, path: real };
  return { ok: true, text: cutOutput(key, head.text, cut), cut };
}
