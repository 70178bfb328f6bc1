import { isRecord, parseJsonObject } from "../../common/json.ts";
import { isoFromUnixSeconds } from "../../limits/limits.ts";
import {
  addTokens,
  emptyTokens,
  type RateWindow,
  roundPercent,
  type Telemetry,
  type TelemetryRecords,
  type TokenCounts,
  tokensOfUsage,
} from "../../limits/telemetry.ts";

/**
 * claude's telemetry (2.1.332): tokens from the transcript's assistant usage records (one per API
 * message: a message split over several lines repeats its usage, so each message id counts once),
 * and cost, context and subscription windows from the JSON its statusLine command receives
 * (`cost.total_cost_usd`, computed by claude itself, also for subscribers; `context_window.
 * used_percentage`; `rate_limits.{five_hour,seven_day}` for claude.ai subscribers only).
 */
export function readClaudeTelemetry(records: TelemetryRecords): Telemetry {
  const tx = readTranscript(records.transcript ?? "");
  const sl = records.statusLine === null ? null : parseJsonObject(records.statusLine);
  const missing: Record<string, string> = {};
  const cost = isRecord(sl?.cost) ? sl.cost.total_cost_usd : undefined;
  const context = isRecord(sl?.context_window) ? sl.context_window.used_percentage : undefined;
  const costUsd = typeof cost === "number" ? cost : null;
  const contextUsedPercent = typeof context === "number" ? roundPercent(context) : null;
  const why = sl === null ? "claude's statusline has not reported yet" : "not in claude's statusline JSON";
  if (costUsd === null) missing.costUsd = why;
  if (contextUsedPercent === null) missing.contextUsedPercent = why;
  const slModel = isRecord(sl?.model) && typeof sl.model.id === "string" ? sl.model.id : null;
  const model = slModel ?? tx.model;
  if (model === null) missing.model = "no model reported yet";
  return {
    model,
    turns: tx.turns,
    lastTurn: tx.turns > 0 ? tx.lastTurn : null,
    total: tx.total,
    contextUsedPercent,
    costUsd,
    windows: windowsOf(sl?.rate_limits),
    missing,
  };
}

/** claude names its windows; the statusline gives each one's used percent and reset (unix seconds). */
const WINDOW_MINUTES: Record<string, number> = { five_hour: 300, seven_day: 10_080 };

function windowsOf(limits: unknown): RateWindow[] {
  if (!isRecord(limits)) return [];
  return Object.entries(limits).flatMap(([name, w]) =>
    isRecord(w) && typeof w.used_percentage === "number"
      ? [
          {
            name,
            usedPercent: roundPercent(w.used_percentage),
            resetsAt: isoFromUnixSeconds(w.resets_at),
            minutes: WINDOW_MINUTES[name] ?? null,
          },
        ]
      : [],
  );
}

type Read = { turns: number; total: TokenCounts; lastTurn: TokenCounts; model: string | null };

function readTranscript(transcript: string): Read {
  const usage = new Map<string, TokenCounts>();
  let lastTurnIds = new Set<string>();
  let turns = 0;
  let model: string | null = null;
  for (const line of transcript.split("\n")) {
    const e = parseJsonObject(line);
    if (!e) continue;
    if (e.type === "user" && isHuman(e)) {
      turns++;
      lastTurnIds = new Set();
    }
    const message = isRecord(e.message) ? e.message : null;
    if (e.type !== "assistant" || !message || e.isApiErrorMessage === true) continue;
    if (typeof message.model === "string" && message.model !== "<synthetic>") model = message.model;
    if (!isRecord(message.usage)) continue;
    const id = typeof message.id === "string" ? message.id : `line:${String(e.uuid ?? usage.size)}`;
    usage.set(id, tokensOfUsage(message.usage));
    lastTurnIds.add(id);
  }
  let total = emptyTokens();
  let lastTurn = emptyTokens();
  for (const [id, counts] of usage) {
    total = addTokens(total, counts);
    if (lastTurnIds.has(id)) lastTurn = addTokens(lastTurn, counts);
  }
  return { turns, total, lastTurn, model };
}

function isHuman(e: Record<string, unknown>): boolean {
  if (isRecord(e.origin)) return e.origin.kind === "human";
  if (e.promptSource !== undefined) return e.promptSource === "typed";
  const message = isRecord(e.message) ? e.message : {};
  return e.isMeta !== true && typeof message.content === "string";
}

/**
 * Whether claude's records hold this turn's own numbers. Measured on 2.1.332 (stub, a subscriber):
 * the statusline JSON in place when Stop fires is the turn before's (after the first turn: cost 0,
 * no windows), and claude rewrites it 0.3-0.6 s after Stop, StopFailure or a limit with a
 * `prompt_id` and `context_window.current_usage`, the usage of the last API message it saw. During a
 * tool turn it is rewritten after each message with the turn's prompt id, so the usage must be that
 * of the turn's last message, once the transcript ended the turn (turn_duration). After a usage
 * limit its prompt id is a new one (claude's /rate-limit-options), so a prompt id counts when it is
 * no earlier turn's. It may also be rewritten as the prompt is taken (the new prompt id, the old
 * cost: seen once in 6 turns under load), so a turn whose answer is not in the transcript yet is
 * not settled. A turn that failed (its last reply an API error line, usage 0/0) adds no usage: its
 * prompt id is enough.
 */
export function claudeTurnSettled(records: TelemetryRecords, promptId: string | null): boolean {
  const sl = records.statusLine === null ? null : parseJsonObject(records.statusLine);
  if (sl === null || typeof sl.prompt_id !== "string") return false;
  const { earlier, turn } = splitAtTurn(records.transcript ?? "", promptId);
  if (earlier.has(sl.prompt_id)) return false;
  const replies = turn.filter((e) => e.type === "assistant" && e.isSidechain !== true);
  const last = replies.findLast(
    (e) => e.isApiErrorMessage === true || (isRecord(e.message) && isRecord(e.message.usage)),
  );
  if (!last) return false;
  if (last.isApiErrorMessage === true) return true;
  const at = turn.indexOf(last);
  const ended = turn.some((e, i) => i > at && e.type === "system" && e.subtype === "turn_duration");
  const now = isRecord(sl.context_window) ? sl.context_window.current_usage : undefined;
  const usage = isRecord(last.message) ? last.message.usage : undefined;
  return ended && isRecord(now) && sameTokens(tokensOfUsage(now), tokensOfUsage(usage));
}

/**
 * The prompt ids of the turns before this one, and this turn's lines: from its human prompt to the
 * next one. By its id when it has one: a transcript that does not hold that prompt yet has no turn
 * (its last human prompt is the turn before's); else the last human prompt.
 */
function splitAtTurn(
  transcript: string,
  promptId: string | null,
): { earlier: Set<unknown>; turn: Record<string, unknown>[] } {
  const entries = transcript.split("\n").flatMap((line) => {
    const e = parseJsonObject(line);
    return e === null ? [] : [e];
  });
  const humans = entries.flatMap((e, i) => (e.type === "user" && isHuman(e) ? [i] : []));
  const start = promptId === null ? humans.at(-1) : humans.find((i) => entries[i]?.promptId === promptId);
  if (start === undefined) return { earlier: new Set(), turn: [] };
  const earlier = new Set(humans.filter((i) => i < start).map((i) => entries[i]?.promptId));
  return {
    earlier,
    turn: entries.slice(
      start + 1,
      humans.find((i) => i > start),
    ),
  };
}

function sameTokens(a: TokenCounts, b: TokenCounts): boolean {
  return (
    a.input === b.input &&
    a.output === b.output &&
    a.cacheRead === b.cacheRead &&
    a.cacheWrite === b.cacheWrite
  );
}
