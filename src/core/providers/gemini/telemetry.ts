import { isRecord } from "../../common/json.ts";
import {
  addTokens,
  emptyTokens,
  type Telemetry,
  type TelemetryRecords,
  type TokenCounts,
  withTotal,
} from "../../limits/telemetry.ts";
import { isRealPrompt, replayGemini } from "./transcript.ts";

/**
 * gemini's telemetry from its chat file (0.61.0): each reply line carries `tokens` (`input`, which
 * includes `cached`; `output`, which excludes `thoughts`) and `model`. The conversation as replayed
 * (rolled-back prompts dropped). gemini records no cost, no context window and no usage windows.
 */
export function readGeminiTelemetry(records: TelemetryRecords): Telemetry {
  const { messages } = replayGemini(records.transcript ?? "");
  let turns = 0;
  let total = emptyTokens();
  let lastTurn = emptyTokens();
  let model: string | null = null;
  for (const message of messages) {
    if (isRealPrompt(message)) {
      turns++;
      lastTurn = emptyTokens();
    }
    if (message.type !== "gemini") continue;
    if (typeof message.model === "string") model = message.model;
    const counts = countsOf(message.tokens);
    total = addTokens(total, counts);
    lastTurn = addTokens(lastTurn, counts);
  }
  const missing: Record<string, string> = {
    costUsd: "gemini records no cost",
    contextUsedPercent: "gemini's chat file records no context window",
  };
  if (model === null) missing.model = "no reply yet";
  return {
    model,
    turns,
    lastTurn: turns > 0 ? lastTurn : null,
    total,
    contextUsedPercent: null,
    costUsd: null,
    windows: [],
    missing,
  };
}

function countsOf(tokens: unknown): TokenCounts {
  if (!isRecord(tokens)) return emptyTokens();
  const n = (key: string) => (typeof tokens[key] === "number" ? (tokens[key] as number) : 0);
  return withTotal({
    input: Math.max(0, n("input") - n("cached")),
    output: n("output") + n("thoughts"),
    cacheRead: n("cached"),
    cacheWrite: 0,
  });
}
