import { posix } from "node:path";
import { clip } from "./excerpt.ts";

/**
 * A `file:PATH` output is read after the step and its text goes into later prompts, so it must name
 * a file inside the worker's cwd: `file:../../../../etc/hostname` once put the host's file in the
 * next prompt. What the text alone shows (an absolute path, `..` past the cwd, the cwd itself) is
 * refused here, before anything runs; symlinks are checked on disk when the step reads it
 * (operations/workflow/output-file.ts).
 */
export function outputPathProblem(spec: string): string | null {
  if (!spec.startsWith("file:")) return null;
  const path = spec.slice("file:".length);
  const normal = posix.normalize(path);
  const outside =
    path.includes("\0") ||
    posix.isAbsolute(path) ||
    normal === "." ||
    normal === ".." ||
    normal.startsWith("../");
  return outside
    ? `${clip(spec)} is not inside the worker's cwd; a file output is a relative path to a file in it`
    : null;
}
