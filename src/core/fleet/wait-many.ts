import { z } from "zod";
import { WaitInput, WorkerName } from "../schemas.ts";
import { Outcome } from "../wait/outcome.ts";

/**
 * `wait` as the CLI and MCP take it: one worker (`wait NAME`), or several with `any` (the first whose
 * turn ends) or `all` (every one). `wait --any A B C` reads A as `name` and B C as `names`; MCP may
 * give them all in `names`.
 */
export const WaitManyInput = WaitInput.extend({
  name: WorkerName.optional().describe("Worker name (with any or all: the first of the workers)"),
  names: z
    .array(WorkerName)
    .optional()
    .describe("More workers to wait on, with any or all (each followed from its last prompt)"),
  any: z.boolean().optional().describe("Return when the first of the workers' turns ends"),
  all: z.boolean().optional().describe("Return when every one of the workers' turns has ended"),
})
  .strict()
  .superRefine((input, ctx) => {
    const names = workersOf(input);
    const issue = (message: string, path: string) => ctx.addIssue({ code: "custom", message, path: [path] });
    if (names.length === 0) issue("give a worker name (or several, with any or all)", "name");
    if (input.any && input.all) issue("any and all exclude each other", "all");
    if (names.length > 1 && !input.any && !input.all)
      issue(`${names.length} workers: say any (the first to end) or all (every one)`, "any");
    const twice = names.find((n, i) => names.indexOf(n) !== i);
    if (twice) issue(`worker ${twice} is named twice`, "names");
    if (names.length > 1 && input.after !== undefined)
      issue("after is one worker's baseline: with several, each is followed from its last prompt", "after");
  });
export type WaitManyInput = z.infer<typeof WaitManyInput>;

/** The workers a wait names, in order: `name` first, then `names`. */
export function workersOf(input: {
  name?: string | undefined;
  names?: readonly string[] | undefined;
}): string[] {
  return [...(input.name === undefined ? [] : [input.name]), ...(input.names ?? [])];
}

/**
 * What `wait` returns: the outcome that decides the exit code, and with any/all every outcome.
 * any: the first turn to end (`outcomes` holds every one that had ended by then, first first;
 * `pending` the workers still running). all: the first worker, in the order given, whose turn did not
 * stop (or the first worker when all stopped); `outcomes` holds one per worker, in that order.
 */
export const WaitResult = Outcome.extend({
  outcomes: z
    .array(Outcome)
    .optional()
    .describe("With any or all: each worker's outcome (any: those that had ended, the first first)"),
  pending: z
    .array(z.string())
    .optional()
    .describe("With any: the workers whose turns were still running (not waited for any longer)"),
});
export type WaitResult = z.infer<typeof WaitResult>;

/** all: the outcome that decides: the first (in the order given) that is not a stop, else the first. */
export function headlineOfAll(outcomes: readonly Outcome[]): Outcome | undefined {
  return outcomes.find((o) => o.reason !== "stop") ?? outcomes[0];
}
