import type { LockInfo, PathStat } from "../ports.ts";
import type { Provider } from "../providers/types.ts";
import type { StatusResult } from "../worker/status.ts";
import type { UserConfig } from "../worker/user-config.ts";

/** What doctor gathers (src/operations/doctor/doctor.ts) and judges (diagnose.ts), without starting a TUI. */

export type CliFacts = {
  readonly provider: Provider;
  /** The value of its UMBEL_<P>_BIN, when set. */
  readonly override: string | null;
  /** What was looked up: the override, else the default binary name. */
  readonly wanted: string;
  /** Its absolute path, or null when it is not there. */
  readonly path: string | null;
  /** `<path> --version` (run with a throwaway HOME): whether it exited 0, and what it printed. */
  readonly version: { readonly ok: boolean; readonly output: string } | null;
  /** Which of the provider's sign-in clue files exist, and whether its account file names an account. */
  readonly clues: { readonly files: readonly string[]; readonly account: boolean };
};

export type ConfigFacts =
  | {
      readonly file: string | null;
      /** Where a config file would go ($UMBEL_HOME/config.toml). */
      readonly home: string;
      readonly shadowed: readonly string[];
      readonly config: UserConfig;
    }
  | { readonly error: string; readonly file: string };

export type DoctorFacts = {
  readonly platform: string;
  readonly uid: number;
  /** umbel's environment: only whether names are set is judged; values are never shown. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly tmux: { readonly path: string | null; readonly version: string | null };
  readonly clis: readonly CliFacts[];
  readonly config: ConfigFacts;
  readonly state: {
    readonly root: string;
    readonly stat: PathStat | null;
    readonly freeBytes: number | null;
  };
  readonly workers: { readonly list: readonly StatusResult[]; readonly error: string | null };
  readonly locks: { readonly list: readonly LockInfo[]; readonly error: string | null };
  readonly now: number;
};
