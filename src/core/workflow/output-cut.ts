import { z } from "zod";
import { OUTPUT_INLINE_BYTES } from "../common/log-bounds.ts";
import { sha256Hex } from "../common/sha256.ts";

/**
 * A step's output is kept (in state.json, the --json events and later prompts) up to
 * OUTPUT_INLINE_BYTES: a bigger one is its head and a line saying where it was cut, how big the
 * whole is and its sha256 (and, for a `file:` output, the file that holds it whole).
 */
export const OutputCut = z
  .object({
    bytes: z.number().int().describe("The whole output's size in bytes"),
    sha256: z.string().describe("The whole output's SHA-256 (hex)"),
    path: z.string().optional().describe("A file output: the file that holds it whole"),
  })
  .describe("An output kept only in part");
export type OutputCut = z.infer<typeof OutputCut>;

/** The head of `text` (at most OUTPUT_INLINE_BYTES of UTF-8) and the line that says it was cut. */
export function cutOutput(key: string, head: string, whole: OutputCut): string {
  const bytes = new TextEncoder().encode(head);
  const kept = new TextDecoder().decode(bytes.subarray(0, OUTPUT_INLINE_BYTES)).replace(/\uFFFD+$/, "");
  const where =
    whole.path === undefined ? `it has ${whole.bytes} bytes` : `${whole.path} has ${whole.bytes} bytes`;
  return `${kept}\n[umbel: output ${key} is cut here: ${where} (sha256 ${whole.sha256}); the first ${OUTPUT_INLINE_BYTES} are above]`;
}

/** An answer or structured output too big to keep whole: cut, with its size and sha256. */
export function boundOutput(key: string, text: string): { text: string; cut: OutputCut | null } {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes <= OUTPUT_INLINE_BYTES) return { text, cut: null };
  const cut = { bytes, sha256: sha256Hex(text) };
  return { text: cutOutput(key, text, cut), cut };
}
