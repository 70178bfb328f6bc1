import { join } from "node:path";
import { readTextOrNull } from "../../adapters/files.ts";
import { parseJsonObject } from "../../core/common/json.ts";
import { StateError, UsageError } from "../../core/errors.ts";
import { POLICY_HOOK_COMMAND } from "../../core/fleet/policy/compile.ts";
import { decideCall, needsShell, toolCallOf } from "../../core/fleet/policy/decide.ts";
import { PolicyFile } from "../../core/fleet/policy/rules.ts";
import { getProvider } from "../../core/providers/registry.ts";

/**
 * `umbel __policy SESSION_DIR` with a hook payload on stdin: decides the call from the worker's
 * policy.json and prints two lines, the decision for the events log (`{"decision","rule"}`, plus
 * `why` when umbel could not tell what the call runs) and the CLI's answer; nothing when no rule
 * decides it. Any failure exits non-zero, and the hook then falls back to policy.tsv's answer (deny
 * where a deny rule answers the event, else nothing: a person is asked).
 */
export async function runPolicyHook(
  args: readonly string[],
  io: { readStdin: () => Promise<string>; out: (text: string) => void },
): Promise<number> {
  const [dir] = args;
  if (dir === undefined || args.length !== 1)
    throw new UsageError(`usage: umbel ${POLICY_HOOK_COMMAND} SESSION_DIR < payload.json`, { args });
  const path = join(dir, "policy.json");
  const text = await readTextOrNull(path);
  const policy = PolicyFile.safeParse(text === null ? undefined : parseJsonObject(text));
  if (!policy.success)
    throw new StateError(`the worker's policy is missing or unreadable: ${path}`, { path });
  const provider = getProvider(policy.data.provider);
  const spec = provider.policy;
  if (!spec)
    throw new StateError(`--allow/--deny are not supported with --provider ${provider.id}`, { path });
  const payload = parseJsonObject(await io.readStdin());
  if (payload === null) throw new UsageError("the hook payload on stdin is not a JSON object");
  const call = toolCallOf(payload, provider.hookWire);
  // Loaded only for a shell call a rule reads: web-tree-sitter and its WebAssembly cost ~60 ms.
  const parse = needsShell(policy.data, spec, call)
    ? await (await import("../../adapters/fleet/shell-parser.ts")).loadShellParser()
    : null;
  const decision = decideCall(policy.data, spec, call, parse);
  if (decision === null || call.event === null) return 0;
  const marker = {
    decision: decision.verdict,
    rule: decision.rule,
    ...(decision.why ? { why: decision.why } : {}),
  };
  io.out(
    `${JSON.stringify(marker)}\n${JSON.stringify(spec.answer(decision.verdict, call.event, decision.reason))}\n`,
  );
  return 0;
}
