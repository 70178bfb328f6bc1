import type { ProviderId } from "../schemas.ts";

/**
 * The vendor CLIs umbel is tested with: `npm run setup:real` installs exactly these for the real
 * tier (scripts/setup-real*.ts read them from here), and `umbel doctor` compares the installed ones
 * against them. Bump a version here to move both.
 */
export const TESTED_CLIS = {
  claude: { version: "2.1.332", npm: "@anthropic-ai/claude-code" },
  codex: { version: "0.171.0", npm: "@openai/codex" },
  gemini: { version: "0.61.0", npm: "@google/gemini-cli" },
  opencode: { version: "1.18.33", npm: "opencode-ai" },
} as const satisfies Partial<Record<ProviderId, { version: string; npm: string }>>;

export type TestedCli = { readonly version: string; readonly npm: string };

export function testedCli(id: ProviderId): TestedCli | undefined {
  return (TESTED_CLIS as Partial<Record<ProviderId, TestedCli>>)[id];
}
