import type { HookWire, PolicySpec } from "../../providers/types.ts";
import { refusedOption } from "./file-options.ts";
import { type ArgPattern, type PolicyFile, type PolicyRule, TOOL_PLACEHOLDER } from "./rules.ts";
import { scanScript, simpleCommandOf } from "./shell-scan.ts";
import { commandBasename, type ShellParse } from "./shell-tree.ts";
import type { Words } from "./wrappers.ts";

/** A tool call as the CLI's own top-level payload fields name it (never text the model wrote). */
export type ToolCall = {
  readonly event: string | null;
  readonly tool: string | null;
  readonly input: Readonly<Record<string, unknown>> | null;
};

/** What umbel answers a call: the rule that decided, the reason the CLI shows, and why when it could not tell. */
export type Decision = {
  readonly verdict: "allow" | "deny" | "ask";
  readonly rule: string;
  readonly reason: string;
  readonly why?: string;
};

/** An argument longer than this (64 KiB) is not read: never allowed, and under a deny rule denied. */
const MAX_ARGUMENT = 65_536;

/** A call's main argument, for tools that are not shells: the first of these keys of its input. */
const ARG_KEYS = ["file_path", "absolute_path", "notebook_path", "path", "url", "pattern", "command"];

/** Whether deciding this call needs the shell parser (a rule with an argument for its shell tool). */
export function needsShell(policy: PolicyFile, spec: PolicySpec, call: ToolCall): boolean {
  return (
    call.tool !== null &&
    spec.shellTools.includes(call.tool) &&
    policy.rules.some((r) => r.event === call.event && r.tool === call.tool && r.arg.kind !== "any")
  );
}

/**
 * The first rule at the call's event that decides it, deny rules before allow rules and rules marked
 * `last` after both, or null (the CLI goes on as if umbel had no policy: a person is asked where the
 * CLI would ask). A deny rule denies what it matches and what umbel cannot tell apart from it; an
 * allow rule allows only what umbel can read with certainty (core/fleet/policy/shell-scan.ts,
 * file-options.ts).
 */
export function decideCall(
  policy: PolicyFile,
  spec: PolicySpec,
  call: ToolCall,
  parse: ShellParse | null,
): Decision | null {
  const all = policy.rules.filter((r) => r.event === call.event);
  const rules = all.filter((r) => r.last !== true);
  const denied = firstDeny(rules, spec, call, parse);
  if (denied) return denied;
  // The CLI's own allowlist takes these calls (gemini): what umbel would not allow is asked first.
  const asks = rules.filter((r) => r.verdict === "ask" && (r.tool === "*" || r.tool === call.tool));
  const [ask] = asks;
  if (ask && !asks.some((r) => allowMatch(r, spec, call, parse)))
    return {
      verdict: "ask",
      rule: ask.rule,
      reason: `asked by umbel policy: ${ask.rule} does not allow this call`,
    };
  for (const rule of rules.filter((r) => r.verdict === "allow")) {
    if ((rule.tool === "*" || rule.tool === call.tool) && allowMatch(rule, spec, call, parse))
      return {
        verdict: "allow",
        rule: rule.rule,
        reason: rule.message ?? `allowed by umbel policy: ${rule.rule}`,
      };
  }
  // Last: what every other rule left (-p's denial of whatever would still ask a person).
  return firstDeny(
    all.filter((r) => r.last === true),
    spec,
    call,
    parse,
  );
}

function firstDeny(
  rules: readonly PolicyRule[],
  spec: PolicySpec,
  call: ToolCall,
  parse: ShellParse | null,
): Decision | null {
  for (const rule of rules.filter((r) => r.verdict === "deny")) {
    if (rule.tool !== "*" && rule.tool !== call.tool) {
      if (call.tool !== null) continue;
      return deny(rule, call, "the call names no tool");
    }
    const found = denyMatch(rule, spec, call, parse);
    if (found === true) return deny(rule, call);
    if (typeof found === "string") return deny(rule, call, found);
  }
  return null;
}

function deny(rule: PolicyRule, call: ToolCall, why?: string): Decision {
  // A tool name is the CLI's own field; the answer is JSON-encoded whole, so no escape is needed here.
  const message = rule.message?.replaceAll(TOOL_PLACEHOLDER, call.tool ?? "a tool");
  const reason = message ?? `denied by umbel policy: ${rule.rule}`;
  if (why === undefined) return { verdict: "deny", rule: rule.rule, reason };
  return {
    verdict: "deny",
    rule: rule.rule,
    reason: `${reason} (umbel cannot tell what the call runs: ${why})`,
    why,
  };
}

/** true: it matches; a string: why umbel cannot tell (which denies too); false: it does not match. */
function denyMatch(
  rule: PolicyRule,
  spec: PolicySpec,
  call: ToolCall,
  parse: ShellParse | null,
): boolean | string {
  const pattern = rule.arg;
  if (pattern.kind === "any") return true;
  const shell = call.tool !== null && spec.shellTools.includes(call.tool);
  const arg = mainArgument(call, shell);
  if (arg === null) return "the call has no argument to match";
  if (arg.length > MAX_ARGUMENT) return "the argument is too long to read";
  if (!shell) return pathCandidates(arg).some((a) => matchesText(pattern, a, spec));
  if (parse === null) return "the shell parser could not run";
  const scan = scanScript(arg, parse);
  let unknown: string | null = null;
  for (const words of scan.invocations) {
    const found =
      pattern.kind === "glob" ? globDeny(pattern.text, words) : wordsDeny(words, splitWords(pattern.text));
    if (found === true) return true;
    if (found === null) unknown ??= "a word of a command that may match is not a literal";
  }
  return scan.uncertain[0] ?? unknown ?? false;
}

function allowMatch(rule: PolicyRule, spec: PolicySpec, call: ToolCall, parse: ShellParse | null): boolean {
  if (rule.arg.kind === "any") return true;
  const shell = call.tool !== null && spec.shellTools.includes(call.tool);
  const arg = mainArgument(call, shell);
  if (arg === null || arg.length > MAX_ARGUMENT) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(shell ? arg.replaceAll(/[\n\t]/g, " ") : arg)) return false;
  if (!shell) return !/(^|\/)\.\.(\/|$)/.test(arg) && matchesText(rule.arg, arg, spec);
  if (parse === null) return false;
  const words = simpleCommandOf(arg, parse);
  if (words === null) return false;
  const { text, kind } = rule.arg;
  let named: number;
  if (kind === "glob") {
    if (!globRegex(text).test(words.join(" "))) return false;
    named =
      splitWords(text.slice(0, text.indexOf("*"))).length -
      (/\s$/.test(text.slice(0, text.indexOf("*"))) ? 0 : 1);
  } else {
    const want = splitWords(text);
    const prefix = kind === "prefix" || spec.exactIsPrefix === true;
    if (prefix ? words.length < want.length : words.length !== want.length) return false;
    if (want.some((w, i) => words[i] !== w)) return false;
    named = want.length;
  }
  return refusedOption(words, Math.max(named, 1)) === null;
}

/** The command of a shell tool, else the first path-like key: a string at the top of the input. */
function mainArgument(call: ToolCall, shell: boolean): string | null {
  if (call.input === null) return null;
  for (const key of shell ? ["command"] : ARG_KEYS) {
    const value = call.input[key];
    if (value !== undefined) return typeof value === "string" ? value : null;
  }
  return null;
}

function matchesText(arg: Exclude<ArgPattern, { kind: "any" }>, value: string, spec: PolicySpec): boolean {
  if (arg.kind === "glob") return globRegex(arg.text).test(value);
  if (arg.kind === "prefix" || spec.exactIsPrefix)
    return value === arg.text || value.startsWith(`${arg.text} `);
  return value === arg.text;
}

/** A path as written and with `.`, `..` and repeated slashes resolved (`/w/src/../../etc` is /etc). */
function pathCandidates(path: string): string[] {
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  const normal = `${path.startsWith("/") ? "/" : ""}${parts.join("/")}`;
  return normal === path ? [path] : [path, normal];
}

/** true when the command matches the rule's words (its command word by basename, the rest in order among its words); null when a word that could decide it is not a literal. */
function wordsDeny(words: Words, want: readonly string[]): boolean | null {
  const [command, ...args] = words;
  if (command === null || command === undefined) return null;
  if (commandBasename(command) !== commandBasename(want[0] ?? "")) return false;
  let next = 1;
  let unknown = false;
  for (const arg of args) {
    if (next >= want.length) break;
    if (arg === null) unknown = true;
    else if (arg === want[next]) next++;
  }
  if (next >= want.length) return true;
  return unknown ? null : false;
}

function globDeny(glob: string, words: Words): boolean | null {
  const [command, ...args] = words;
  if (command === null || command === undefined) return null;
  const head = splitWords(glob)[0] ?? "";
  if (!head.includes("*") && commandBasename(command) !== commandBasename(head)) return false;
  if (args.some((a) => a === null)) return null;
  return globRegex(glob).test([commandBasename(command), ...args].join(" "));
}

function splitWords(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

/** `*` is any text (slashes and spaces too); everything else stands for itself. */
function globRegex(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[\\s\\S]*")}$`,
  );
}

/** The call in a payload, read through the provider's hook wire (the CLI's top-level fields). */
export function toolCallOf(payload: Readonly<Record<string, unknown>>, wire: HookWire): ToolCall {
  return {
    event: wire.eventName(payload),
    tool: wire.toolName?.(payload) ?? null,
    input: wire.toolInput?.(payload) ?? null,
  };
}
