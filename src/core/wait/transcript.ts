import { tokensOfUsage } from "../limits/telemetry.ts";
import type { HookEvent, Provider } from "../providers/types.ts";
import type { TurnState } from "./turn.ts";
import type { WaitConfig, Watch } from "./types.ts";

/**
 * What the wait machine reads in the transcript, each only when some rule needs it: how the turn
 * ended (codex and gemini turns that end without a hook), the usage limit that stopped it
 * (`Provider.limits`: claude's StopFailure is a plain 429's too), and the turn's tokens (a token
 * budget, from the provider's own turn tracker).
 */
export function wantsTranscriptText(config: WaitConfig, hooked: TurnState): boolean {
  const { provider } = config;
  if (hooked.status === "none") return false;
  if (provider.transcriptTurnEnd !== undefined) return true;
  if (provider.limits !== undefined && hooked.status === "failure") return true;
  return tokenBudget(config) !== null && provider.trackTurn !== undefined && hooked.status === "running";
}

/** The transcript facts after a read: fresh text is read anew; a size alone keeps what was known. */
export function readTranscriptFacts(
  config: WaitConfig,
  known: Watch["transcript"],
  promptId: string | null,
  size: number | null,
  text: string | null,
): Watch["transcript"] {
  const { provider } = config;
  if (size === null) return { size, end: null, endFor: promptId, limit: null, tokens: null };
  if (text === null) return { ...known, size };
  return {
    size,
    end: provider.transcriptTurnEnd?.(text, promptId) ?? null,
    endFor: promptId,
    limit: provider.limits?.read(text, promptId) ?? null,
    tokens: tokenBudget(config) === null ? null : turnTokens(provider, text, promptId),
  };
}

/** Tokens the turn of `promptId` has used so far (input + output + cache), or null without a tracker. */
function turnTokens(provider: Provider, transcript: string, promptId: string | null): number | null {
  const tracker = provider.trackTurn?.(promptId);
  if (!tracker) return null;
  for (const line of transcript.split("\n")) tracker.push(line);
  return tokensOfUsage(tracker.summary().usage).total;
}

function tokenBudget(config: WaitConfig): number | null {
  return config.budget?.maxTokens ?? null;
}

/** The session's cost the provider last recorded (claude's statusline), or null. */
export function costOf(provider: Provider, statusLine: string | null): number | null {
  if (statusLine === null || !provider.readTelemetry) return null;
  return provider.readTelemetry({ transcript: null, statusLine }).costUsd;
}

/** The CLI gave up continuing by itself after its last continuation began (claude's cap of 3). */
export function gaveUpContinuing(
  provider: Provider,
  events: readonly HookEvent[],
  baseline: number,
): boolean {
  const gaveUp = provider.limits?.gaveUp;
  if (!gaveUp) return false;
  let lastSubmit = -1;
  let lastGaveUp = -1;
  for (const event of events) {
    if (event.index < baseline) continue;
    if (provider.interpretEvent(event).kind === "submitted") lastSubmit = event.index;
    if (gaveUp(event)) lastGaveUp = event.index;
  }
  return lastGaveUp > lastSubmit;
}
