import { getProvider, listProviders } from "../providers/registry.ts";
import type { ProviderId } from "../schemas.ts";

/**
 * The vendor CLIs umbel is tested with, each its provider's `tested` (bump a version there):
 * `npm run setup:real` installs exactly these for the real tier (scripts/setup-real*.ts read them
 * from here), and `umbel doctor` compares the installed ones against them.
 */
export const TESTED_CLIS = Object.fromEntries(listProviders().map((p) => [p.id, p.tested])) as Record<
  ProviderId,
  TestedCli
>;

export type TestedCli = { readonly version: string; readonly npm: string };

export function testedCli(id: ProviderId): TestedCli | undefined {
  return getProvider(id).tested;
}
