/** One real CLI on the local stub model, set up for `-p` benchmarks: its own non-interactive run and umbel's. */
export type ProviderBench = {
  readonly id: "claude" | "codex" | "gemini" | "opencode";
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** umbel -p's flags for this provider (beside the prompt). */
  readonly umbelFlags: readonly string[];
  /** The vendor's own non-interactive run of `prompt`, and its environment. */
  vendor(prompt: string): { argv: string[]; env: Record<string, string> };
  /** The vendor's name for that run, as the table prints it (`claude -p`, `codex exec`, …). */
  readonly vendorLabel: string;
  readonly bin: string;
  /**
   * The floor (bench/lib/floor.ts): the bare pre-trusted TUI in tmux with the prompt, until the CLI's
   * own end-of-turn signal. Absent where it is not measured.
   */
  floor?(round: number): Promise<number>;
  dispose(): Promise<void>;
};
