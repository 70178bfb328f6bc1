import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { Deps } from "../../core/ports.ts";
import type { AnyObject, Verb } from "../verbs/verb.ts";
import type { Extra, Report } from "./progress.ts";
import { errorResult, toolResult } from "./result.ts";

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

/**
 * The tool of a verb in the table (faces/verbs/table.ts): `umbel_<verb>`, whose input is the verb's
 * own zod object unless the tool adds fields of its own (those stay with the tool).
 */
export function toolOfVerb(verb: Verb): UmbelTool | null {
  const mcp = verb.mcp;
  if (!mcp) return null;
  const input = mcp.input ?? verb.input;
  return {
    name: `umbel_${verb.name}`,
    title: mcp.title,
    input,
    output: mcp.output ?? verb.output,
    annotations: mcp.annotations,
    async call(parsed, { deps, report }) {
      try {
        const given = parsed as Record<string, unknown>;
        const own = input === verb.input ? given : pick(verb.input, given);
        const progress = mcp.progress?.(report, given);
        const result = await verb.run(own, { deps, progress, terminal: false });
        const data = mcp.present ? mcp.present(result, given) : result;
        return toolResult(data as Record<string, unknown>, mcp.text ? mcp.text(data) : verb.text(data));
      } catch (error) {
        return errorResult(error);
      }
    },
  };
}

type ToolSpec<I extends AnyObject, O extends AnyObject> = {
  name: string;
  title: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  run(input: z.output<I>, ctx: ToolContext): Promise<{ data: z.output<O>; text: string }>;
};

/**
 * Declares a tool that is not a verb (umbel_help, umbel_run). The SDK has already parsed the input
 * with `input` (a bad one never gets here: the SDK answers with the zod message); any error `run`
 * throws becomes an isError result that keeps umbel's code and class.
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

/** The verb's own fields of a tool input that has more. */
function pick(schema: AnyObject, input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([key]) => key in schema.shape));
}
