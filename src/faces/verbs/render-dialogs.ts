import type { DialogAnswer } from "../../core/worker/outputs.ts";

/**
 * The stderr lines that say what umbel answered for the user (spawn, pool warm, -p): one line per
 * startup dialog, with the option chosen, the folders a trust question trusts, and where the CLI
 * keeps a lasting answer (to undo it). Trust is never given silently.
 */
export function renderDialogNotes(r: {
  readonly name: string;
  readonly provider: string;
  readonly dialogs: readonly DialogAnswer[];
}): string {
  return r.dialogs.map((d) => `umbel: ${r.name}: ${describeDialog(r.provider, d)}\n`).join("");
}

/** "answered claude's trust dialog for /p: "Yes, …"; claude keeps this answer in …" */
export function describeDialog(provider: string, d: DialogAnswer): string {
  const folders = d.folders?.length ? ` for ${d.folders.join(", ")}` : "";
  const answer = d.answer === undefined ? "" : `: "${d.answer}"`;
  const kept = d.lasting
    ? `; ${provider} keeps this answer${d.record ? ` in ${d.record}` : " in its own configuration"}`
    : d.folders?.length
      ? " (not kept past this worker)"
      : "";
  return `answered ${provider}'s ${d.dialog} dialog${folders}${answer}${kept}`;
}
