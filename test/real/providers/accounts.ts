// What the real tier's account tests set up the same way for each CLI (issue 24): config.toml's
// [accounts.NAME] tables (and a [provider] table of names for the default sign-in), and an account's
// record (the state root's accounts/) saying it met a limit that resets only tomorrow.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../../helpers/sandbox.ts";

export type AccountSpec = {
  readonly name: string;
  readonly provider: string;
  readonly home: string;
  /** TARGET = SOURCE: the worker's TARGET set from umbel's $SOURCE. */
  readonly env?: Readonly<Record<string, string>>;
};

/** config.toml with these accounts, and `names` passed to the provider's default sign-in ([provider] env). */
export function writeAccounts(
  sb: Sandbox,
  accounts: readonly AccountSpec[],
  defaults?: { readonly provider: string; readonly names: readonly string[] },
): void {
  const tables = accounts.map((a) => {
    const env = Object.entries(a.env ?? {}).map(([target, source]) => `${target} = "${source}"`);
    const lines = [`[accounts.${a.name}]`, `provider = "${a.provider}"`, `home = "${a.home}"`];
    if (env.length > 0) lines.push(`env = { ${env.join(", ")} }`);
    return lines.join("\n");
  });
  if (defaults)
    tables.unshift(`[${defaults.provider}]\nenv = [${defaults.names.map((n) => `"${n}"`).join(", ")}]`);
  mkdirSync(sb.root, { recursive: true, mode: 0o700 });
  writeFileSync(join(sb.root, "config.toml"), `${tables.join("\n\n")}\n`);
}

/** The account's record says one of its workers met `window`'s limit just now, resetting tomorrow. */
export function limitedUntilTomorrow(
  sb: Sandbox,
  provider: string,
  account: string | null,
  window: string,
): void {
  mkdirSync(join(sb.root, "accounts"), { recursive: true, mode: 0o700 });
  const limit = { window, resetsAt: new Date(Date.now() + 86_400_000).toISOString(), message: "x" };
  const record = {
    provider,
    account,
    windows: [],
    seenAt: null,
    from: null,
    lastLimit: { at: new Date().toISOString(), worker: "x", limit },
  };
  const file = account === null ? `${provider}.default.json` : `${account}.json`;
  writeFileSync(join(sb.root, "accounts", file), `${JSON.stringify(record)}\n`, { mode: 0o600 });
}
