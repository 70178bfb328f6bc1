import { BoundReport, boundText, TextBound } from "../../core/common/bound-text.ts";
import { ReadInput } from "../../core/schemas.ts";
import { ReadResult } from "../../core/worker/outputs.ts";
import { readAnswer } from "../../operations/worker/read.ts";
import { fixedBound, reachHosts } from "./reach.ts";
import { renderRead } from "./render-mcp.ts";
import { defineVerb, LOOKS } from "./verb.ts";

/**
 * `read`: the last turn's answer. A module of its own, apart from the rest of a worker's life
 * (lifecycle.ts): `umbel read` loads none of spawn's, send's or wait's operations (110 modules of
 * the 219 it loaded beside them).
 */

/** umbel_read's input: the read verb's fields plus how to bound a long answer. */
const ReadToolInput = ReadInput.extend(TextBound.shape);

const readHere = defineVerb({
  name: "read",
  description: "Print the final assistant text of the last turn",
  input: ReadInput,
  output: ReadResult,
  run: (input, { deps }) => readAnswer(deps, input),
  text: (r) => (r.text.endsWith("\n") || r.text === "" ? r.text : `${r.text}\n`),
  cli: {
    usage: "NAME",
    summary: "print the final assistant text of the last turn",
    positionals: ["name"],
    examples: ['umbel read reviewer --after "$b" > review.md'],
  },
  mcp: {
    title: "Read the answer",
    annotations: LOOKS,
    // A long answer would flood the caller's context: the tool bounds it and says what it cut.
    input: ReadToolInput,
    output: ReadResult.extend({ bound: BoundReport }),
    present: (result, { mode, maxChars, maxLines, section }) => {
      const bounded = boundText(result.text, stripUndefined({ mode, maxChars, maxLines, section }));
      return { ...result, text: bounded.text, bound: bounded.report };
    },
    text: renderRead,
  },
});
export const readVerb = reachHosts(readHere, { by: "name", boundMs: fixedBound });

/** exactOptionalPropertyTypes: an absent field must be absent, not undefined. */
function stripUndefined<T extends Record<string, unknown>>(
  value: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
