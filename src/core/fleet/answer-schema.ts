import { z } from "zod";
import { WorkerName } from "../schemas.ts";

/** `umbel answer NAME CHOICE [--input-id ID]` (MCP `umbel_answer`): its input and its result. */

export const AnswerInput = z
  .object({
    name: WorkerName,
    choice: z
      .string()
      .trim()
      .min(1, "give a choice: allow, always, deny, or an option's number or label")
      .describe(
        "allow (once), always (allow and do not ask again), deny, or one of the prompt's options: its number or the start of its label",
      ),
    inputId: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Answer only if the worker still shows this prompt (the inputId wait reported) and no other caller answered it; else refuse with exit 4 and press nothing",
      ),
  })
  .strict();
export type AnswerInput = z.infer<typeof AnswerInput>;

export const AnswerResult = z.object({
  name: z.string().describe("Worker name"),
  choice: z.string().describe("The choice as given"),
  prompt: z.string().describe("The prompt that was answered, as the screen showed it"),
  inputId: z
    .string()
    .nullable()
    .describe("The id of the prompt answered (null: the screen showed a prompt no hook announced)"),
  option: z
    .object({
      number: z.number().int().describe("Its number on the menu"),
      label: z.string().describe("Its label"),
    })
    .nullable()
    .describe("The option chosen (null: deny on a menu without a No, answered with Escape)"),
  keys: z.array(z.string()).describe("The keys pressed"),
  elapsedMs: z.number().describe("How long it took, in milliseconds"),
});
export type AnswerResult = z.infer<typeof AnswerResult>;
