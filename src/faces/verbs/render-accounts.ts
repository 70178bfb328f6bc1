import type { AccountsResult } from "../../core/accounts/list.ts";
import { renderWindows, resetLabel } from "./render-usage.ts";

/**
 * `umbel accounts`: one line per account, NAME PROVIDER BILLING WORKERS WINDOWS LAST-LIMIT HOME. The
 * windows as `ls` shows a worker's (`5h 93% ↻12:00Z`), with how old the reading is.
 */
export function renderAccounts(r: AccountsResult): string {
  const table = [
    ["ACCOUNT", "PROVIDER", "BILLING", "WORKERS", "WINDOWS", "LAST LIMIT", "HOME"],
    ...r.accounts.map((a) => [
      a.name ?? "(default)",
      a.provider,
      a.billing.route + (a.billing.via.length > 0 ? ` (${a.billing.via.join(", ")})` : ""),
      a.workers.length === 0 ? "-" : a.workers.join(","),
      a.windows ? `${renderWindows(a.windows.windows)} (${ageLabel(a.windows.ageMs)} ago)` : "-",
      a.lastLimit ? limitLabel(a.lastLimit) : "-",
      a.home ?? "(the CLI's own)",
    ]),
  ];
  const widths = table[0]?.map((_, i) => Math.max(...table.map((row) => (row[i] ?? "").length))) ?? [];
  const lines = table.map((row) =>
    row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "),
  );
  return `${lines.join("\n")}\n`;
}

function limitLabel(l: NonNullable<AccountsResult["accounts"][number]["lastLimit"]>): string {
  const reset = l.limit.resetsAt ? ` ↻${resetLabel(l.limit.resetsAt, null)}` : "";
  return `${l.limit.window ?? "usage"}${reset} (${l.worker})`;
}

function ageLabel(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  if (s < 86_400) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}
