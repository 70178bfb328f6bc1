import { AnswerInput, AnswerResult } from "../../core/fleet/answer-schema.ts";
import { answerPrompt } from "../../operations/fleet/answer.ts";
import { fixedBound, reachHosts } from "./reach.ts";
import { defineVerb } from "./verb.ts";

/** `answer`: the prompt wait reported as input (126), answered by meaning. */

const answerHere = defineVerb({
  name: "answer",
  description:
    "Answer the prompt a worker shows (allow, always, deny, or an option's number or label); --input-id answers only that very prompt (exit 4, nothing pressed, once it is gone)",
  input: AnswerInput,
  output: AnswerResult,
  run: (input, { deps }) => answerPrompt(deps, input),
  text: (r) => `${renderAnswer(r)}\n`,
  cli: {
    usage: "NAME CHOICE",
    summary: "answer the worker's prompt: allow, always, deny or an option (--input-id: only that one)",
    positionals: ["name", "choice"],
    examples: ['umbel answer reviewer allow --input-id "$id"', "umbel answer reviewer deny"],
  },
  mcp: {
    title: "Answer a worker's prompt",
    // allow lets the worker run what it asked for (a command, an edit).
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    text: (r) => `${renderAnswer(r)}. Next: umbel_wait {name: "${r.name}"} follows the same turn to its end.`,
  },
});
export const answerVerb = reachHosts(answerHere, { by: "name", boundMs: fixedBound });

function renderAnswer(r: AnswerResult): string {
  const what = r.option ? `${r.option.number}. ${r.option.label}` : r.keys.join(" ");
  const prompt =
    r.prompt
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? "the prompt";
  return `${r.name}: answered ${r.inputId ?? "the prompt"} (${prompt}) with ${what}`;
}
