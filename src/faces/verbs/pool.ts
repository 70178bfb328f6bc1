import { PoolInput, type PoolResult, PoolResult as PoolResultSchema } from "../../core/pool/schema.ts";
import { runPool } from "../../operations/pool/pool.ts";
import { withDefaultProvider } from "../../operations/worker/user-config.ts";
import { renderDialogNotes } from "./render-dialogs.ts";
import { defineVerb } from "./verb.ts";

/** `umbel pool warm N [spawn flags] | ls | drain` / `umbel_pool` (docs/performance.md#the-warm-pool). */
export const poolVerb = defineVerb({
  name: "pool",
  description:
    "The warm pool: `warm N [spawn flags]` keeps N spare workers of that spawn ready (an anonymous -p or a spawn with the same flags, cwd and env claims one at once); `ls` lists the spares; `drain` removes them. A spare retires after --ttl idle (default 15m); no umbel process stays alive",
  input: PoolInput,
  output: PoolResultSchema,
  // The spares' provider, when none is given, is spawn's default (UMBEL_PROVIDER, config.toml, claude).
  run: async (input, { deps }) => runPool(deps, await withDefaultProvider(deps, input)),
  text: renderPool,
  cli: {
    usage: "warm N [spawn flags] | ls | drain",
    summary: "keep N spare workers ready for -p and spawn; list or remove them",
    positionals: ["action", "count"],
    // Each dialog a new spare answered: one stderr line, as spawn's.
    notes: (r) =>
      r.dialogs
        .map(({ worker, provider, ...d }) => renderDialogNotes({ name: worker, provider, dialogs: [d] }))
        .join(""),
    examples: ["umbel pool warm 2 --cwd ./repo --model sonnet", "umbel pool drain"],
  },
  mcp: {
    title: "Warm pool",
    // warm starts agent CLIs and drain kills spares; neither touches a worker in use.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    text: (r) =>
      `${renderPool(r)}${r.action === "warm" ? "Next: umbel_spawn or umbel -p with the same flags, cwd and env claims a spare." : ""}`,
  },
});

function renderPool(r: PoolResult): string {
  if (r.action === "drain") return r.removed.map((name) => `removed ${name}\n`).join("");
  if (r.spares.length === 0) return r.action === "ls" ? "no spares\n" : "";
  const rows = r.spares.map((s) => [
    s.name,
    s.state,
    s.provider,
    s.key,
    `${Math.round(s.ageMs / 1000)}s`,
    `${Math.round(s.ttlMs / 60_000)}m`,
    s.cwd,
  ]);
  const table = [["NAME", "STATE", "PROVIDER", "KEY", "AGE", "TTL", "CWD"], ...rows];
  const widths = table[0]?.map((_, i) => Math.max(...table.map((row) => row[i]?.length ?? 0))) ?? [];
  return table
    .map(
      (row) =>
        `${row
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join("  ")
          .trimEnd()}\n`,
    )
    .join("");
}
