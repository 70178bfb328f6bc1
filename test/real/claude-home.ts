// A private HOME + CLAUDE_CONFIG_DIR + TMPDIR for the real claude, seeded so that no startup dialog
// or onboarding check appears (see shared notes on Claude Code 2.1.332, §1).
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface ClaudeHomeOptions {
  /** The key the stub will see; its last 20 characters are pre-approved. */
  apiKey: string;
  /** Absolute folders whose trust dialog counts as accepted (a trusted parent covers its subfolders). */
  trustedDirs?: string[];
  /** Written to `$CLAUDE_CONFIG_DIR/settings.json` when given. */
  settings?: Record<string, unknown>;
  /** Clock for the billing-notice acknowledgement; defaults to Date.now(). */
  now?: number;
}

export interface ClaudeHome {
  home: string;
  configDir: string;
  tmpDir: string;
}

export interface ClaudeEnvOptions {
  baseUrl: string;
  apiKey: string;
  /** CLAUDE_CODE_MAX_RETRIES; the default 10 retries take about 3 minutes on a persistent error. */
  maxRetries?: number;
  /** IS_SANDBOX=1: needed as root for `--permission-mode bypassPermissions`. */
  sandbox?: boolean;
}

export function seedClaudeHome(dir: string, options: ClaudeHomeOptions): ClaudeHome {
  const layout = { home: join(dir, "home"), configDir: join(dir, "config"), tmpDir: join(dir, "tmp") };
  for (const folder of Object.values(layout)) mkdirSync(folder, { recursive: true, mode: 0o700 });
  const projects = Object.fromEntries(
    (options.trustedDirs ?? []).map((folder) => [realpathSync(folder), { hasTrustDialogAccepted: true }]),
  );
  const config = {
    // Without it claude runs a connectivity check against the real API host and exits 1 offline.
    hasCompletedOnboarding: true,
    // Claude Code stores `key.trim().slice(-20)`; without it the "custom API key" dialog appears.
    customApiKeyResponses: { approved: [options.apiKey.trim().slice(-20)], rejected: [] },
    projects,
    hasSeenAutoDefaultNotice: true,
    hasSeenAutoModeEntryWarning: true,
    // Otherwise a blocking billing notice appears mid-turn the first time auto mode needs its
    // classifier. 2.1.332 shows it again once the acknowledgement is 24 h old (`Date.now() - at >=
    // 86400000`, read from the binary), so a fixed date in the past does not work.
    autoModeClassifierBillingNoticeAcknowledgedAt: options.now ?? Date.now(),
  };
  writeFileSync(join(layout.configDir, ".claude.json"), `${JSON.stringify(config, null, 2)}\n`, {
    mode: 0o600,
  });
  if (options.settings) {
    writeFileSync(join(layout.configDir, "settings.json"), `${JSON.stringify(options.settings, null, 2)}\n`, {
      mode: 0o600,
    });
  }
  return layout;
}

/** The whole environment for a claude child: nothing is inherited but PATH. */
export function claudeEnv(layout: ClaudeHome, options: ClaudeEnvOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: layout.home,
    CLAUDE_CONFIG_DIR: layout.configDir,
    TMPDIR: layout.tmpDir,
    LANG: "C.UTF-8",
    TERM: "xterm-256color",
    ANTHROPIC_BASE_URL: options.baseUrl,
    ANTHROPIC_API_KEY: options.apiKey,
    // Without it every session runs `npm view @anthropic-ai/claude-code@latest`, a registry call.
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_MAX_RETRIES: String(options.maxRetries ?? 0),
  };
  if (options.sandbox) env.IS_SANDBOX = "1";
  return env;
}
