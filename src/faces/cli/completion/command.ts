import type { FlagInfo } from "../flags.ts";

/** One command as shell completion offers it (model.ts builds them; print.ts the -p dialects'). */

/** What an argument completes to: a worker of this state root (`umbel ls`), a file, some words. */
export type Argument =
  | { readonly kind: "worker" }
  | { readonly kind: "workflow" }
  | { readonly kind: "choices"; readonly values: readonly string[] }
  | { readonly kind: "none" };

export type CompletionCommand = {
  readonly name: string;
  /** Other spellings of the command (`--print` for `-p`). */
  readonly aliases: readonly string[];
  /** Offered as the first word (`umbel <Tab>`); `-p` is a flag, offered among them. */
  readonly word: boolean;
  readonly summary: string;
  readonly flags: readonly FlagInfo[];
  /** Each positional argument in order; with `rest`, the last one takes every place after it. */
  readonly args: readonly Argument[];
  readonly rest: boolean;
};
