import { z } from "zod";
import { VERBS } from "../verbs/table.ts";
import { LOOKS } from "../verbs/verb.ts";
import { HelpInput, helpTopic } from "./help.ts";
import { defineTool, toolOfVerb, type UmbelTool } from "./tool.ts";
import { runTool } from "./tools-run.ts";

/**
 * Every tool the server lists: one per verb of the table (its inputs are the CLI's own schemas from
 * core/schemas.ts), then the help and the workflow runner, which are not verbs.
 */

const HelpOutput = z.object({
  topic: z.string().describe("The topic shown (overview without one)"),
  topics: z.array(z.string()).describe("Every topic umbel_help knows"),
  text: z.string().describe("The guidance, as markdown"),
});

const helpTool = defineTool({
  name: "umbel_help",
  title: "umbel help",
  input: HelpInput,
  output: HelpOutput,
  annotations: LOOKS,
  run: async (input) => {
    const help = helpTopic(input.topic);
    return { data: help, text: help.text };
  },
});

export const TOOLS: readonly UmbelTool[] = [
  ...VERBS.flatMap((verb) => toolOfVerb(verb) ?? []),
  helpTool,
  runTool,
];
