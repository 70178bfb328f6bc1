import { isRecord, parseJsonObject } from "../../common/json.ts";
import { isoFromUnixSeconds, type ProviderLimits, type UsageLimit } from "../../limits/limits.ts";
import type { HookEvent } from "../types.ts";

/**
 * claude 2.1.332 at a subscription usage limit (shared notes, limits.md §1): the first 429 that
 * carries the unified rate-limit headers ends the turn at once with StopFailure `rate_limit` (the
 * same error as a plain 429) and an assistant transcript line with `apiError:"usage_limit_reached"`
 * and `apiErrorParams.rate_limit_info` (`rateLimitType`, `resetsAt` in unix seconds). Only that line
 * makes it a limit. By default claude continues the turn by itself ~60 s (30-90 s) after a reset at
 * most 24 h ahead, at most 3 times; `autoContinueAtUsageLimit: false` turns that off.
 */
export const claudeLimits: ProviderLimits = {
  read: readClaudeLimit,
  // StopFailure's last_assistant_message is the limit's own text; a plain 429 reads "API Error: …".
  mayBe: ({ error, message }) => error === "rate_limit" && /^You've hit your/.test(message ?? ""),
  continues: "self",
  // The source arms auto-continue only for a reset at most 86,400,000 ms ahead.
  selfContinueWithinMs: 86_400_000,
  gaveUp: (event: HookEvent) =>
    event.name === "Notification" && event.payload.notification_type === "quota_auto_resume_disabled",
  // Measured on 2.1.332 (test/real/limits.test.ts): the menu is drawn 0.7-1.5 s after StopFailure,
  // over an idle composer; left open, the next send finds the worker busy.
  boxAfterMs: 3000,
};

type Entry = Record<string, unknown>;

/**
 * The limit that ended the turn of `promptId` (else the last human turn): its last API-error line,
 * when that line is a usage limit. A later error of another kind (a 500 after a continuation) is
 * not a limit, so only the last error line counts.
 */
export function readClaudeLimit(transcript: string, promptId: string | null): UsageLimit | null {
  const entries = transcript.split("\n").flatMap((line): Entry[] => {
    const entry = parseJsonObject(line);
    return entry === null ? [] : [entry];
  });
  const human = (e: Entry) => e.type === "user" && isHuman(e);
  let start = promptId === null ? -1 : entries.findIndex((e) => human(e) && e.promptId === promptId);
  if (start < 0) start = entries.findLastIndex(human);
  if (start < 0) return null;
  const rest = entries.slice(start + 1);
  const next = rest.findIndex(human);
  const turn = next < 0 ? rest : rest.slice(0, next);
  const error = turn.findLast((e) => e.type === "assistant" && e.isApiErrorMessage === true);
  if (error?.apiError !== "usage_limit_reached") return null;
  const params = isRecord(error.apiErrorParams) ? error.apiErrorParams : {};
  const info = isRecord(params.rate_limit_info)
    ? params.rate_limit_info
    : isRecord(error.quotaLimits)
      ? error.quotaLimits
      : {};
  return {
    window: typeof info.rateLimitType === "string" ? info.rateLimitType : null,
    resetsAt: isoFromUnixSeconds(info.resetsAt),
    message: textOf(error),
  };
}

function isHuman(e: Entry): boolean {
  const origin = e.origin;
  if (isRecord(origin)) return origin.kind === "human";
  if (e.promptSource !== undefined) return e.promptSource === "typed";
  const message = isRecord(e.message) ? e.message : {};
  return e.isMeta !== true && typeof message.content === "string";
}

function textOf(e: Entry): string | null {
  const message = isRecord(e.message) ? e.message : {};
  const content = Array.isArray(message.content) ? message.content : [];
  const texts = content.flatMap((b) => (isRecord(b) && typeof b.text === "string" ? [b.text] : []));
  return texts.length > 0 ? texts.join("\n") : null;
}
