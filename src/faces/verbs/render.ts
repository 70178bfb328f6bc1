import { describeMove } from "../../core/accounts/failover.ts";
import { policyDecisionOf } from "../../core/fleet/policy/compile.ts";
import { describeGuard } from "../../core/guard/record.ts";
import type { HostDown } from "../../core/hosts/schema.ts";
import type { HookEvent } from "../../core/providers/types.ts";
import type { ExitRecord, Outcome } from "../../core/wait/outcome.ts";
import type { FleetStatus, StatusResult } from "../../core/worker/status.ts";
import { renderUsageLines, renderWindows } from "./render-usage.ts";

/** Pure renderers for the human (non --json) output of each verb; MCP's add next steps (render-mcp.ts). */

export function renderOutcome(outcome: Outcome): string {
  const e = outcome.evidence;
  const lines = [
    `${outcome.reason} (exit ${outcome.exitCode}) after ${(outcome.elapsedMs / 1000).toFixed(1)}s`,
  ];
  if (e.detail) lines.push(`detail: ${e.detail}`);
  for (const move of e.failover ?? []) lines.push(`failover: ${describeMove(move)}`);
  if (e.earliestReset !== undefined) lines.push(`earliest reset: ${e.earliestReset ?? "unknown"}`);
  if (e.error) lines.push(`error: ${e.error}`);
  if (e.prompt) lines.push(`needs input: ${e.prompt}`);
  if (e.exit) lines.push(`exit: ${renderExit(e.exit)}`);
  if (e.message && outcome.reason !== "stop") lines.push(`message: ${e.message}`);
  if (e.stillForMs !== undefined) lines.push(`still for ${(e.stillForMs / 1000).toFixed(1)}s`);
  if (e.screen) lines.push("screen:", indent(e.screen));
  return `${lines.join("\n")}\n`;
}

function renderExit(exit: ExitRecord): string {
  if (exit.signal) return `signal ${exit.signal} (status ${exit.exitCode ?? "?"})`;
  return `status ${exit.exitCode ?? "?"}`;
}

export function renderStatus(s: StatusResult): string {
  const lines = [
    `name:     ${s.name}`,
    `state:    ${s.state}${s.exit ? ` (${renderExit(s.exit)})` : ""}`,
    `provider: ${s.provider}${s.model ? ` (${s.model})` : ""}`,
    `cwd:      ${s.cwd}`,
    `session:  ${s.sessionId ?? "-"}`,
    `created:  ${s.createdAt}`,
  ];
  if (s.pid !== null) lines.push(`pid:      ${s.pid}`);
  if (s.prompt) lines.push(`prompt:   ${s.prompt}`);
  if (s.inputId) lines.push(`input id: ${s.inputId}`);
  if (s.guard) lines.push(`guard:    ${describeGuard(s.guard)}`);
  if (s.policy) {
    const rules = [...s.policy.allow.map((r) => `allow ${r}`), ...s.policy.deny.map((r) => `deny ${r}`)];
    lines.push(`policy:   ${rules.join(", ")} (${s.policy.allowed} allowed, ${s.policy.denied} denied)`);
  }
  if (s.queue?.some((e) => e.state === "queued"))
    lines.push(
      `queued:   ${s.queue
        .filter((e) => e.state === "queued")
        .map((e) => e.id)
        .join(", ")}`,
    );
  if (s.worktree) {
    const dirty = s.worktree.dirty === null ? "gone" : s.worktree.dirty ? "uncommitted work" : "clean";
    lines.push(`worktree: ${s.worktree.path} (${s.worktree.branch}, ${dirty})`);
  }
  lines.push(...renderUsageLines(s));
  return `${lines.join("\n")}\n`;
}

/**
 * The fleet view: with hosts declared, a HOST column ("-": this machine) and one row per host that
 * gave no workers, its reason in the last column.
 */
export function renderFleetTable(fleet: FleetStatus): string {
  if (!fleet.hosts?.length) return renderTable(fleet.workers);
  return renderTable(fleet.workers, fleet.unreachable ?? []);
}

function renderTable(rows: readonly StatusResult[], down?: readonly HostDown[]): string {
  if (rows.length === 0 && !down?.length) return "";
  const hosts = down !== undefined;
  // The subscription windows, when some worker's provider reports them (so a caller can stop at 95 %).
  const windows = rows.some((r) => (r.telemetry?.windows.length ?? 0) > 0);
  // The account, when some worker runs on one of config.toml's (spawn --account); "-": the default.
  const accounts = rows.some((r) => r.account);
  const table = [
    [
      ...(hosts ? ["HOST"] : []),
      "NAME",
      "STATE",
      "PROVIDER",
      ...(accounts ? ["ACCOUNT"] : []),
      ...(windows ? ["WINDOWS"] : []),
      "CWD",
    ],
    ...rows.map((r) => [
      ...(hosts ? [r.host ?? "-"] : []),
      r.name,
      stateLabel(r),
      r.provider,
      ...(accounts ? [r.account ?? "-"] : []),
      ...(windows ? [renderWindows(r.telemetry?.windows ?? []) || "-"] : []),
      r.cwd,
    ]),
    ...(down ?? []).map((d) => [
      d.host,
      "-",
      d.state,
      "-",
      ...(accounts ? ["-"] : []),
      ...(windows ? ["-"] : []),
      d.reason,
    ]),
  ];
  const widths = table[0]?.map((_, i) => Math.max(...table.map((row) => (row[i] ?? "").length))) ?? [];
  // A broken worker's row says only that; what is wrong and the fix follow the table.
  const broken = rows.flatMap((r) =>
    r.broken ? [`${r.name} is broken: ${r.broken.reason}\n  fix: ${r.broken.fix}`] : [],
  );
  return `${table.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ")).join("\n")}\n${broken.map((b) => `${b}\n`).join("")}`;
}

function stateLabel(s: StatusResult): string {
  return s.state === "dead" && s.exit?.exitCode !== undefined ? `dead (exit ${s.exit.exitCode})` : s.state;
}

export function renderEvent(event: HookEvent): string {
  const p = event.payload;
  const detail =
    typeof p.summary === "string" && event.name.startsWith("umbel:")
      ? oneLine(p.summary, 160)
      : typeof p.prompt === "string"
        ? oneLine(p.prompt)
        : typeof p.last_assistant_message === "string"
          ? oneLine(p.last_assistant_message)
          : typeof p.tool_name === "string"
            ? p.tool_name
            : typeof p.message === "string"
              ? oneLine(p.message)
              : typeof p.error === "string"
                ? p.error
                : "";
  const decided = policyDecisionOf(event);
  const policy = decided ? ` [umbel policy: ${decided.decision} ${decided.rule}]` : "";
  return `${String(event.index).padStart(4)} ${event.name}${detail ? ` ${detail}` : ""}${policy}\n`;
}

function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n");
}
