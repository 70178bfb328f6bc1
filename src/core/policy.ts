import { isRecord } from "./json.ts";
import type { HookEvent, PolicySpec } from "./providers/types.ts";

/**
 * `spawn --allow PATTERN / --deny PATTERN`: rules in the provider's tool-pattern syntax, answered by
 * hooks/hook.sh from the worker's own hooks with no umbel process alive. umbel compiles them here
 * into `policy.tsv` (one rule a line) and the hook matches a payload's tool and its main argument
 * with sh `case` globs. Fail closed: whatever matches no rule, or cannot be read with certainty,
 * still reaches the caller as input (126).
 */

export type Verdict = "allow" | "deny";

/**
 * `Bash`, `Bash(git diff:*)` (the command `git diff` or `git diff …`: whole words, as claude reads
 * it), `Bash(npm test)` (exactly; gemini: as `:*`, as gemini reads its own rules), `Edit(src/*)` and
 * `Bash(git log*)` (a glob: `*` is any text). Each is matched as one or more sh `case` globs.
 */
export type ToolPattern = {
  readonly tool: string;
  readonly arg: { readonly kind: "any" } | { readonly kind: "glob"; readonly globs: readonly string[] };
};

const PATTERN = /^([A-Za-z_][\w.-]*)(?:\((.*)\))?$/;

/** The pattern, or a message saying why it is not one (a usage error at spawn). */
export function parseToolPattern(
  pattern: string,
  spec: Pick<PolicySpec, "exactIsPrefix">,
): ToolPattern | string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(pattern)) return "a tool pattern has no control characters";
  const match = PATTERN.exec(pattern.trim());
  if (!match) return "a tool pattern is Tool or Tool(argument), e.g. Bash(git diff:*) or Read";
  const tool = match[1] ?? "";
  const text = match[2];
  if (text === undefined || text === "*" || text === "") return { tool, arg: { kind: "any" } };
  const words = (prefix: string) => [literal(prefix), `${literal(prefix)} *`];
  if (text.endsWith(":*")) return { tool, arg: { kind: "glob", globs: words(text.slice(0, -2)) } };
  if (text.includes("*"))
    return { tool, arg: { kind: "glob", globs: [text.split("*").map(literal).join("*")] } };
  return { tool, arg: { kind: "glob", globs: spec.exactIsPrefix ? words(text) : [literal(text)] } };
}

/** Text as an sh `case` pattern that matches only itself. */
function literal(text: string): string {
  return text.replace(/[\\*?[\]]/g, (c) => `\\${c}`);
}

export type PolicyRules = { readonly allow: readonly string[]; readonly deny: readonly string[] };

/** The rule a non-interactive worker's denial of an ask records (`umbel_policy.rule`). */
export const NON_INTERACTIVE_RULE = "non-interactive";
/** In an answer, hooks/hook.sh puts the call's tool name here (a tool name needs no JSON escape). */
export const TOOL_PLACEHOLDER = "@TOOL@";

/** A usage error for the first pattern that is not one (checked before any I/O), or null. */
export function checkPolicy(rules: PolicyRules, spec: Pick<PolicySpec, "exactIsPrefix">): string | null {
  for (const [flag, patterns] of [
    ["--allow", rules.allow],
    ["--deny", rules.deny],
  ] as const) {
    for (const pattern of patterns) {
      const parsed = parseToolPattern(pattern, spec);
      if (typeof parsed === "string") return `${flag} ${JSON.stringify(pattern)}: ${parsed}`;
    }
  }
  return null;
}

/**
 * policy.tsv: per rule, tab-separated: verdict, the hook event it answers, tool (`*`: any), how the
 * argument is matched (any · arg · cmd: a shell command, whose allow never matches a compound command
 * and whose deny matches any of its parts), the glob, the marker the events log records
 * (`umbel_policy`), and the CLI's answer. Deny rules come first; the hook takes the first rule that
 * matches. Rules a provider answers itself (gemini's allowlist) are not in the file. `denyAsks` (a
 * non-interactive worker): last of all, every call that still asks a person is denied, as the CLI's
 * own non-interactive mode does (claude -p); the --allow rules before it still answer yes.
 */
export function compilePolicy(
  rules: PolicyRules,
  spec: PolicySpec,
  options: { readonly denyAsks?: boolean } = {},
): string {
  const lines: string[] = [];
  const add = (verdict: Verdict, event: string, pattern: string) => {
    const parsed = parseToolPattern(pattern, spec);
    if (typeof parsed === "string") return;
    const kind = parsed.arg.kind === "any" ? "any" : spec.shellTools.includes(parsed.tool) ? "cmd" : "arg";
    const globs = parsed.arg.kind === "any" ? ["*"] : parsed.arg.globs;
    const marker = JSON.stringify({ decision: verdict, rule: pattern });
    const reason = `${verdict === "deny" ? "denied" : "allowed"} by umbel policy: ${pattern}`;
    const answer = JSON.stringify(spec.answer(verdict, event, reason));
    for (const glob of globs)
      lines.push([verdict, event, parsed.tool, kind, glob, marker, answer].join("\t"));
  };
  for (const pattern of rules.deny) add("deny", spec.denyEvent, pattern);
  if (spec.allowEvent !== null) for (const pattern of rules.allow) add("allow", spec.allowEvent, pattern);
  const ask = spec.askDenial;
  if (options.denyAsks && ask) {
    const marker = JSON.stringify({ decision: "deny", rule: NON_INTERACTIVE_RULE });
    const answer = JSON.stringify(spec.answer("deny", ask.event, ask.message));
    lines.push(["deny", ask.event, "*", "any", "*", marker, answer].join("\t"));
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

/** The decision hooks/hook.sh recorded in a payload (`umbel_policy`), or null. */
export function policyDecisionOf(event: HookEvent): { decision: Verdict; rule: string } | null {
  const marker = event.payload.umbel_policy;
  if (!isRecord(marker)) return null;
  const { decision, rule } = marker;
  if ((decision !== "allow" && decision !== "deny") || typeof rule !== "string") return null;
  return { decision, rule };
}

/** How many automatic decisions the events log holds (status). */
export function countDecisions(events: readonly HookEvent[]): { allowed: number; denied: number } {
  let allowed = 0;
  let denied = 0;
  for (const event of events) {
    const decision = policyDecisionOf(event)?.decision;
    if (decision === "allow") allowed++;
    if (decision === "deny") denied++;
  }
  return { allowed, denied };
}
