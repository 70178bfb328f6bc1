import type { PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import { type AnswerMeanings, type Meaning, type PromptOption, planAnswer } from "../fleet/answer.ts";

/**
 * A worker's permission prompt as ACP permission options, by meaning: allow once, allow always,
 * reject, each offered only when the prompt's menu has it (a reject is always offered: a menu
 * without a No is denied with Escape, core/fleet/answer.ts). Each option's name is the menu's own
 * label; its id is the meaning `umbel answer` takes.
 */
const KINDS: Readonly<Record<Meaning, PermissionOption["kind"]>> = {
  allow: "allow_once",
  always: "allow_always",
  deny: "reject_once",
};
const FALLBACK: Readonly<Record<Meaning, string>> = {
  allow: "Allow",
  always: "Always allow",
  deny: "Reject",
};

export function permissionOptions(
  options: readonly PromptOption[],
  meanings: AnswerMeanings,
): PermissionOption[] {
  return (["allow", "always", "deny"] as const).flatMap((meaning): PermissionOption[] => {
    const plan = planAnswer(options, meaning, meanings);
    if (!plan.ok) return [];
    return [{ optionId: meaning, name: plan.option?.label ?? FALLBACK[meaning], kind: KINDS[meaning] }];
  });
}

/** The client's pick as the choice to answer with: a cancelled request is a deny. */
export function choiceOf(outcome: RequestPermissionOutcome): Meaning {
  if (outcome.outcome !== "selected") return "deny";
  const id = outcome.optionId;
  return id === "allow" || id === "always" ? id : "deny";
}
