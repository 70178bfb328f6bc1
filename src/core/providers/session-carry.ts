/**
 * A session record's path moved under another home (Provider.carrySession): its last `depth`
 * segments, the first of which is `folder` (claude `projects/<slug>/<id>.jsonl`, codex
 * `sessions/YYYY/MM/DD/rollout-….jsonl`), under `home`; null when the path is not shaped so or there
 * is no home to put it in.
 */
export function carryUnder(
  transcript: string,
  home: string | null,
  folder: string,
  depth: number,
): string | null {
  if (home === null || home === "") return null;
  const parts = transcript.split("/").filter((p) => p !== "");
  const tail = parts.slice(-depth);
  if (tail.length !== depth || tail[0] !== folder || tail.some((p) => p === "." || p === "..")) return null;
  return `${home.replace(/\/+$/, "")}/${tail.join("/")}`;
}
