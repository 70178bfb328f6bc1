import { isRecord, parseJsonObject } from "../../json.ts";
import { isoFromUnixSeconds } from "../../limits.ts";
import {
  addTokens,
  emptyTokens,
  type RateWindow,
  roundPercent,
  type Telemetry,
  type TelemetryRecords,
  type TokenCounts,
  tokensOfUsage,
} from "../../telemetry.ts";

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
