import { isRecord as isObject } from "../common/json.ts";

/**
 * claude -p's `usage` and `modelUsage`, rebuilt from the usage records on the transcript's assistant
 * lines (2.1.332 writes the API's final usage there). claude -p sums the turn's API messages; the
 * template is what it prints for a turn with no usage at all (an API error).
 */
export function emptyUsage(): Record<string, unknown> {
  return {
    input_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 0,
    output_tokens_details: { thinking_tokens: 0 },
    server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
    service_tier: "standard",
    cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
    inference_geo: "",
    iterations: [],
    speed: "standard",
    fallback_credit: null,
  };
}

/** Numbers add, objects add key by key, strings take the later non-empty value; the rest is kept. */
export function addUsage(total: Record<string, unknown>, usage: unknown): Record<string, unknown> {
  if (!isObject(usage)) return total;
  const out: Record<string, unknown> = { ...total };
  for (const [key, value] of Object.entries(usage)) {
    const have = out[key];
    if (typeof value === "number") out[key] = (typeof have === "number" ? have : 0) + value;
    else if (isObject(value)) out[key] = addUsage(isObject(have) ? have : {}, value);
    else if (typeof value === "string" && value !== "") out[key] = value;
    else if (!(key in out)) out[key] = value;
  }
  return out;
}

/**
 * claude -p's modelUsage entry per model. Cost, context window and output limit are not in the
 * interactive transcript, so they are null (never guessed from a price list).
 */
export function modelUsageOf(
  messages: readonly { model: string; usage: unknown }[],
): Record<string, Record<string, unknown>> {
  const totals = new Map<string, Record<string, unknown>>();
  for (const { model, usage } of messages) totals.set(model, addUsage(totals.get(model) ?? {}, usage));
  const out: Record<string, Record<string, unknown>> = {};
  for (const [model, u] of totals) {
    const n = (value: unknown) => (typeof value === "number" ? value : 0);
    const nested = (key: string) => (isObject(u[key]) ? u[key] : {});
    out[model] = {
      inputTokens: n(u.input_tokens),
      outputTokens: n(u.output_tokens),
      cacheReadInputTokens: n(u.cache_read_input_tokens),
      cacheCreationInputTokens: n(u.cache_creation_input_tokens),
      webSearchRequests: n(nested("server_tool_use").web_search_requests),
      costUSD: null,
      contextWindow: null,
      maxOutputTokens: null,
      thinkingTokens: n(nested("output_tokens_details").thinking_tokens),
      cacheCreationEphemeral5mInputTokens: n(nested("cache_creation").ephemeral_5m_input_tokens),
      cacheCreationEphemeral1hInputTokens: n(nested("cache_creation").ephemeral_1h_input_tokens),
      canonicalModel: model,
      provider: null,
      costBasis: null,
    };
  }
  return out;
}
