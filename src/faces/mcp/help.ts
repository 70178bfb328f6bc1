import { z } from "zod";
import { findSection } from "../../core/common/markdown.ts";
import { InternalError } from "../../core/errors.ts";
import { describeProviders } from "../../core/providers/registry.ts";
import env from "./help/env.md" with { type: "text" };
import fleet from "./help/fleet.md" with { type: "text" };
import instructions from "./help/instructions.md" with { type: "text" };
import lifecycle from "./help/lifecycle.md" with { type: "text" };
import outcomes from "./help/outcomes.md" with { type: "text" };
import providers from "./help/providers.md" with { type: "text" };
import tools from "./help/tools.md" with { type: "text" };
import workflows from "./help/workflows.md" with { type: "text" };

/** The prose the server serves, embedded in the binary as text imports (help/*.md). */

const TOPICS = {
  lifecycle: {
    text: lifecycle,
    summary: "spawn → send → wait → read → loop or kill, and the tools for looking around",
  },
  outcomes: {
    text: outcomes,
    summary: "what each umbel_wait outcome means and what to do next; error codes",
  },
  providers: { text: providers, summary: "which agent CLIs run workers and how their options map" },
  workflows: {
    text: workflows,
    summary: "patterns: conversations, parallel workers, review loops, permissions, long jobs",
  },
  fleet: {
    text: fleet,
    summary:
      "several workers: answering prompts, permission rules, wait any/all, notify, worktrees, queued sends",
  },
  env: { text: env, summary: "what a worker inherits, and passing secrets with {fromEnv}" },
  tools: { text: tools, summary: "every tool's description" },
} as const;

type Topic = keyof typeof TOPICS;
const TOPIC_NAMES = Object.keys(TOPICS) as [Topic, ...Topic[]];

export const HelpInput = z
  .object({
    topic: z
      .enum(TOPIC_NAMES)
      .optional()
      .describe(`One of: ${TOPIC_NAMES.join(", ")}. Without one: the overview and the list of topics`),
  })
  .strict();
export type HelpInput = z.infer<typeof HelpInput>;

/** The prose's `{providers}`: every registered CLI, from the registry (never a list typed by hand). */
function withProviders(text: string): string {
  return text.replaceAll("{providers}", describeProviders());
}

export const SERVER_INSTRUCTIONS = withProviders(instructions.trim());

export function helpTopic(topic: Topic | undefined): { topic: string; topics: string[]; text: string } {
  if (topic === undefined) {
    const list = TOPIC_NAMES.map((name) => `- ${name}: ${TOPICS[name].summary}`).join("\n");
    const text = `${SERVER_INSTRUCTIONS}\n\nTopics (umbel_help {topic}):\n${list}\n`;
    return { topic: "overview", topics: TOPIC_NAMES, text };
  }
  return { topic, topics: TOPIC_NAMES, text: TOPICS[topic].text };
}

/** A tool's description: its section of help/tools.md, without the heading. */
export function toolDescription(name: string): string {
  const section = findSection(tools, name);
  if (!section || section.heading.title !== name)
    throw new InternalError(`help/tools.md has no section ${name}`);
  return withProviders(section.text.split("\n").slice(1).join("\n").trim());
}
