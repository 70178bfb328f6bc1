/** Versions as the CLIs print them: `tmux 3.3a`, `2.1.332 (Claude Code)`, `codex-cli 0.171.0`. */

/** The first `x.y.z` (or `x.y`) in a version banner, as numbers, with the text it was read from. */
export function readVersion(text: string): { parts: number[]; text: string } | null {
  const m = /(\d+)\.(\d+)(?:\.(\d+))?[a-z]?/.exec(text);
  if (!m) return null;
  return { parts: [m[1], m[2], m[3] ?? "0"].map(Number), text: m[0] };
}

/** <0, 0 or >0 as a is older than, the same as, or newer than b. */
export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
