import { isRecord } from "../../common/json.ts";
import { shellQuote } from "../../common/shell.ts";
import type { HookEvent, PolicySpec } from "../../providers/types.ts";
import type { ProviderId } from "../../schemas.ts";
import type { ArgPattern, PolicyFile, PolicyRule } from "./rules.ts";

/**
 * `spawn --allow PATTERN / --deny PATTERN`: rules in the provider's tool-pattern syntax, answered from
 * the worker's own hooks with no umbel process alive. umbel compiles them here into the worker's
 * `policy.json` (the rules) and `policy.tsv` (what hooks/hook.sh needs without a JSON parser); the
 * hook hands each tool call a rule may answer to umbel's hidden `__policy` face
 * (faces/hooks/policy.ts), which decides from the parsed payload (core/fleet/policy/decide.ts). Fail
 * closed: whatever matches no rule, or cannot be read with certainty, still reaches the caller as
 * input (126), and under a deny rule is denied; a non-interactive worker's (umbel -p) is denied.
 */

/**
 * `Bash`, `Bash(git diff:*)` (the command `git diff` or `git diff …`: whole words, as claude reads
 * it), `Bash(npm test)` (exactly; gemini: as `:*`, as gemini reads its own rules), `Edit(src/*)` and
 * `Bash(git log*)` (a glob: `*` is any text).
 */
export type ToolPattern = { readonly tool: string; readonly arg: ArgPattern };

const PATTERN = /^([A-Za-z_][\w.-]*)(?:\((.*)\))?$/;

/** The pattern, or a message saying why it is not one (a usage error at spawn). */
export function parseToolPattern(pattern: string): ToolPattern | string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(pattern)) return "a tool pattern has no control characters";
  const match = PATTERN.exec(pattern.trim());
  if (!match) return "a tool pattern is Tool or Tool(argument), e.g. Bash(git diff:*) or Read";
  const tool = match[1] ?? "";
  const text = match[2];
  if (text === undefined || text === "*" || text === "") return { tool, arg: { kind: "any" } };
  if (text.endsWith(":*")) {
    const prefix = text.slice(0, -2);
    if (prefix.trim() === "" || prefix.includes("*")) return "a Tool(text:*) pattern needs text without *";
    return { tool, arg: { kind: "prefix", text: prefix } };
  }
  return { tool, arg: { kind: text.includes("*") ? "glob" : "exact", text } };
}

export type PolicyRules = { readonly allow: readonly string[]; readonly deny: readonly string[] };

/** The rule a non-interactive worker's denial of an ask records (`umbel_policy.rule`). */
export const NON_INTERACTIVE_RULE = "non-interactive";

/** A usage error for the first pattern that is not one (checked before any I/O), or null. */
export function checkPolicy(rules: PolicyRules): string | null {
  for (const [flag, patterns] of [
    ["--allow", rules.allow],
    ["--deny", rules.deny],
  ] as const) {
    for (const pattern of patterns) {
      const parsed = parseToolPattern(pattern);
      if (typeof parsed === "string") return `${flag} ${JSON.stringify(pattern)}: ${parsed}`;
    }
  }
  return null;
}

/** What spawn writes into the worker's session dir for its rules (nothing when there are none). */
export type CompiledPolicy = { readonly file: PolicyFile; readonly tsv: string };

/** The hidden face hooks/hook.sh runs for a tool call a rule may answer (faces/hooks/policy.ts). */
export const POLICY_HOOK_COMMAND = "__policy";

/** policy.cmd: the sh command line the hook runs, this very umbel deciding for the worker's session dir. */
export function policyCommand(self: readonly string[], sessionDir: string): string {
  return [...self, POLICY_HOOK_COMMAND, sessionDir].map(shellQuote).join(" ");
}

/** The `rule` a decision records when umbel's own check could not run (hooks/hook.sh). */
export const FAILED_CHECK_RULE = "(umbel policy check failed)";

/**
 * The rules umbel answers (deny rules first; rules a provider answers itself, gemini's allowlist,
 * are not among them), and policy.tsv: one line per hook event a rule answers, deny events first —
 * the event; an extended regex the payload must match for any rule to apply (the rules' tool names
 * as JSON strings, `"Bash"`: the CLI's own `"tool_name":"Bash"` holds it; `.` when a rule names every
 * tool), so calls no rule can answer never start umbel; what the hook prints when umbel's check
 * cannot run (the CLI's deny answer where a deny rule answers that event; its ask where ask rules
 * do, gemini; `-` where only allow rules do: a person is asked); and the marker of that line.
 * `denyAsks` (a non-interactive worker, umbel -p): a last rule at the provider's `askDenial` event
 * denies every call of any tool that the rules before it left, as the CLI's own non-interactive mode
 * does (claude -p); the --allow rules still answer yes.
 */
export function compilePolicy(
  rules: PolicyRules,
  spec: PolicySpec,
  provider: ProviderId,
  options: { readonly denyAsks?: boolean } = {},
): CompiledPolicy | null {
  const compiled: PolicyRule[] = [];
  const add = (verdict: PolicyRule["verdict"], event: string, pattern: string) => {
    const parsed = parseToolPattern(pattern);
    if (typeof parsed !== "string")
      compiled.push({ verdict, event, tool: parsed.tool, arg: parsed.arg, rule: pattern });
  };
  for (const pattern of rules.deny) add("deny", spec.denyEvent, pattern);
  if (spec.allowEvent !== null) for (const pattern of rules.allow) add("allow", spec.allowEvent, pattern);
  else if (spec.asksAtDenyEvent) for (const pattern of rules.allow) add("ask", spec.denyEvent, pattern);
  const ask = spec.askDenial;
  if (options.denyAsks && ask)
    compiled.push({
      verdict: "deny",
      event: ask.event,
      tool: "*",
      arg: { kind: "any" },
      rule: NON_INTERACTIVE_RULE,
      message: ask.message,
      last: true,
    });
  if (compiled.length === 0) return null;
  const file: PolicyFile = { provider, rules: compiled };
  return { file, tsv: compileHookLines(file, spec) };
}

/** policy.tsv from the rules (also for rules added to a PolicyFile by other callers, e.g. -p's). */
export function compileHookLines(file: PolicyFile, spec: PolicySpec): string {
  const events = [...new Set(file.rules.map((r) => r.event))];
  const denies = (event: string) => file.rules.some((r) => r.event === event && r.verdict === "deny");
  const lines = [...events.filter(denies), ...events.filter((e) => !denies(e))].map((event) => {
    const tools = [...new Set(file.rules.filter((r) => r.event === event).map((r) => r.tool))];
    const named = tools.includes("*")
      ? "."
      : `"(${tools.map((t) => t.replace(/[.\\^$|?*+()[\]{}]/g, "\\$&")).join("|")})"`;
    const asks = file.rules.some((r) => r.event === event && r.verdict === "ask");
    if (!denies(event) && !asks) return `${event}\t${named}\t-\t-`;
    const verdict = denies(event) ? "deny" : "ask";
    const reason = `${verdict === "deny" ? "denied" : "asked"} by umbel policy: umbel could not check this call`;
    const marker = JSON.stringify({ decision: verdict, rule: FAILED_CHECK_RULE });
    return `${event}\t${named}\t${JSON.stringify(spec.answer(verdict, event, reason))}\t${marker}`;
  });
  return `${lines.join("\n")}\n`;
}

/** The decision hooks/hook.sh recorded in a payload (`umbel_policy`), or null. */
export function policyDecisionOf(event: HookEvent): { decision: "allow" | "deny"; rule: string } | null {
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
