import { z } from "zod";

/** spawn's options for a worker in a fleet (issue 14): permission policy, push, worktree isolation. */
export const FleetSpawnOptions = z.object({
  allow: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "Tool calls answered yes without a person, in the CLI's tool-pattern syntax (e.g. Bash(git diff:*), Read): a shell command only as one simple command of literal words with no option that writes or reads an unnamed file; logged, counted in status",
    ),
  deny: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "Tool calls refused without a person (e.g. Bash(rm:*)): anywhere in a shell command, through quoting, wrappers and paths, and whatever umbel cannot tell apart; logged, counted in status",
    ),
  notify: z
    .string()
    .min(1)
    .optional()
    .describe(
      "A shell command run whenever one of this worker's turns ends (stop, input, provider-error, dead): the outcome as JSON on stdin, UMBEL_WORKER and UMBEL_OUTCOME in its env",
    ),
  worktree: z
    .boolean()
    .optional()
    .describe("Run in a new git worktree of cwd's repository, on a new branch umbel/<name>"),
  base: z
    .string()
    .min(1)
    .optional()
    .describe("With worktree: the commit or branch the new branch starts from (default: HEAD)"),
});
