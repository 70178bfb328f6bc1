import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { Deps } from "../../operations/context.ts";
import type { Extra, Report } from "./progress.ts";
import { errorResult, toolResult } from "./render.ts";

type AnyObject = z.ZodObject<z.ZodRawShape>;

/** What a tool's run gets: deps whose signal also fires when the client cancels this call. */
type ToolContext = {
  readonly deps: Deps;
  readonly extra: Extra;
  /** Progress notifications, when the client asked for them (sent a progressToken). */
  readonly report: Report | undefined;
};

/** One tool per verb: the concept's input schema, an output schema, truthful hints, and run. */
export type UmbelTool = {
  readonly name: string;
  readonly title: string;
  readonly input: AnyObject;
  readonly output: AnyObject;
  readonly annotations: ToolAnnotations;
  call(input: unknown, ctx: ToolContext): Promise<CallToolResult>;
};

type ToolSpec<I extends AnyObject, O extends AnyObject> = {
  name: string;
  title: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(input: z.output<I>, ctx: ToolContext): Promise<{ data: z.output<O>; text: string }>;
};

/**
 * Declares a tool. The SDK has already parsed the input with `input` (a bad one never gets here:
 * the SDK answers with the zod message); any error `run` throws becomes an isError result that
 * keeps umbel's code and class.
 */
export function defineTool<I extends AnyObject, O extends AnyObject>(spec: ToolSpec<I, O>): UmbelTool {
  return {
    name: spec.name,
    title: spec.title,
    input: spec.input,
    output: spec.output,
    annotations: spec.annotations,
    async call(input, ctx) {
      try {
        const { data, text } = await spec.run(input as z.output<I>, ctx);
        return toolResult(data as Record<string, unknown>, text);
      } catch (error) {
        return errorResult(error);
      }
    },
  };
}

/** Hints for tools that only look (status, read …): never change anything, safe to repeat. */
export const LOOKS = { readOnlyHint: true, openWorldHint: false } as const satisfies ToolAnnotations;
