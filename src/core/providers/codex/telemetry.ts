import { isRecord, parseJsonObject } from "../../common/json.ts";
import { isoFromUnixSeconds } from "../../limits/limits.ts";
import {
  emptyTokens,
  type RateWindow,
  roundPercent,
  type Telemetry,
  type TelemetryRecords,
  type TokenCounts,
  withTotal,
} from "../../limits/telemetry.ts";

/**
 * codex's telemetry from its rollout (0.171.0): `token_usage_record` per response (`turn_token_usage`,
 * `thread_token_usage`), `token_count` events (`info.total_token_usage`, `last_token_usage`,
 * `model_context_window`, and `rate_limits` when the API sent `x-codex-*` headers), `turn_context`
 * (the model). codex records no cost.
 */
export function readCodexTelemetry(records: TelemetryRecords): Telemetry {
  const turnIds: string[] = [];
  const perTurn = new Map<string, TokenCounts>();
  let total = emptyTokens();
  let model: string | null = null;
  let contextUsedPercent: number | null = null;
  let windows: RateWindow[] = [];
  for (const line of (records.transcript ?? "").split("\n")) {
    const record = parseJsonObject(line);
    const p = record && isRecord(record.payload) ? record.payload : null;
    if (!record || !p) continue;
    if (record.type === "turn_context" && typeof p.model === "string") model = p.model;
    if (record.type === "token_usage_record") {
      if (typeof p.turn_id === "string") perTurn.set(p.turn_id, countsOf(p.turn_token_usage));
      if (isRecord(p.thread_token_usage)) total = countsOf(p.thread_token_usage);
    }
    if (record.type !== "event_msg") continue;
    if (p.type === "task_started" && typeof p.turn_id === "string" && !turnIds.includes(p.turn_id))
      turnIds.push(p.turn_id);
    if (p.type !== "token_count") continue;
    const info = isRecord(p.info) ? p.info : null;
    if (info && isRecord(info.total_token_usage)) total = countsOf(info.total_token_usage);
    const last = info && isRecord(info.last_token_usage) ? info.last_token_usage : null;
    if (last && typeof info?.model_context_window === "number" && info.model_context_window > 0)
      contextUsedPercent = roundPercent((num(last.total_tokens) / info.model_context_window) * 100);
    if (isRecord(p.rate_limits)) windows = windowsOf(p.rate_limits);
  }
  const lastId = turnIds.at(-1);
  const missing: Record<string, string> = { costUsd: "codex records no cost" };
  if (contextUsedPercent === null) missing.contextUsedPercent = "no token_count record yet";
  if (model === null) missing.model = "no turn yet";
  return {
    model,
    turns: turnIds.length,
    lastTurn: lastId === undefined ? null : (perTurn.get(lastId) ?? emptyTokens()),
    total,
    contextUsedPercent,
    costUsd: null,
    windows,
    missing,
  };
}

/** codex's usage: `input_tokens` includes `cached_input_tokens`; reasoning is part of the output. */
function countsOf(u: unknown): TokenCounts {
  if (!isRecord(u)) return emptyTokens();
  const cached = num(u.cached_input_tokens);
  return withTotal({
    input: Math.max(0, num(u.input_tokens) - cached),
    output: num(u.output_tokens),
    cacheRead: cached,
    cacheWrite: num(u.cache_write_input_tokens),
  });
}

function windowsOf(limits: Record<string, unknown>): RateWindow[] {
  return ["primary", "secondary"].flatMap((name) => {
    const w = limits[name];
    if (!isRecord(w) || typeof w.used_percent !== "number") return [];
    const minutes = typeof w.window_minutes === "number" ? w.window_minutes : null;
    return [
      { name, usedPercent: roundPercent(w.used_percent), resetsAt: isoFromUnixSeconds(w.resets_at), minutes },
    ];
  });
}

function num(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}
