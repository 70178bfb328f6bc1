import { z } from "zod";

/**
 * Which route a worker bills (`status`): its subscription sign-in, an API key, or a cloud platform.
 * Decided from what the worker was given (variable names and the provider's own settings), never
 * from a value; umbel never switches it silently (docs/limits.md, "Billing").
 */
export const BillingRoute = z
  .object({
    route: z
      .enum(["subscription", "api-key", "cloud"])
      .describe(
        "subscription: the CLI's own sign-in (claude.ai, ChatGPT, Google); api-key: billed per token to an API key; cloud: Bedrock, Vertex AI",
      ),
    via: z
      .array(z.string())
      .describe(
        "What put it there: the variables the worker was given, or the provider's setting (never a value)",
      ),
  })
  .describe("The billing route the worker was started on");
export type BillingRoute = z.infer<typeof BillingRoute>;

/** A provider's variables that move a worker off its subscription: name → the route they select. */
export type BillingEnv = Readonly<Record<string, "api-key" | "cloud">>;

/** The route a worker's variable names select: the first API key, else a cloud switch, else the subscription. */
export function billingFromEnv(billingEnv: BillingEnv, names: readonly string[]): BillingRoute {
  const via = (route: "api-key" | "cloud") => names.filter((name) => billingEnv[name] === route);
  const keys = via("api-key");
  if (keys.length > 0) return { route: "api-key", via: keys };
  const cloud = via("cloud");
  if (cloud.length > 0) return { route: "cloud", via: cloud };
  return { route: "subscription", via: [] };
}

/** Explicit-only variables are API keys unless the provider says otherwise. */
export function billingEnvOf(provider: {
  readonly explicitOnlyEnv: readonly string[];
  readonly billingEnv?: BillingEnv;
}): BillingEnv {
  return provider.billingEnv ?? Object.fromEntries(provider.explicitOnlyEnv.map((name) => [name, "api-key"]));
}
