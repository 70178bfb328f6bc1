/**
 * What a workflow file may hold (docs/workflows.md#limits). Each is checked before the work it
 * bounds, so a hostile or broken file costs at most about a second and never exhausts the stack:
 *
 * - bytes: 1 MiB holds a 10,000-step chain (~52 bytes a step) twice over; the YAML parser takes
 *   about a second per MiB on two shared cores, and a bigger file is not read past the limit.
 * - depth: a real workflow nests 5 levels (workers.a.env.X.fromEnv); 20,000 levels of `[` or
 *   `- - -` overflowed the YAML composer's stack ("Maximum call stack size exceeded").
 * - aliases / aliasNodes: `<<: *base` per worker needs a few; nine aliases of nine aliases (the
 *   "billion laughs") expand to 9^9 nodes from 81 aliases, so the expansion is bounded too.
 * - steps: 10,000 plan in milliseconds; each step is a prompt sent to a live agent CLI.
 * - problems / excerpt: an error about a file that is not a workflow (say /etc/shadow) lists at most
 *   this many problems and quotes at most this many characters of any one value.
 */
export const WORKFLOW_LIMITS = {
  bytes: 1_048_576,
  depth: 32,
  aliases: 100,
  aliasNodes: 10_000,
  steps: 10_000,
  problems: 20,
  excerpt: 40,
} as const;

/** Where the limits are explained, appended to each limit's message. */
export const LIMITS_DOC = "docs/workflows.md#limits";

export const TOO_BIG = `the file is larger than ${WORKFLOW_LIMITS.bytes} bytes, the limit for a workflow (${LIMITS_DOC})`;
