import { UsageError } from "../../../core/errors.ts";
import { renderBash } from "./bash.ts";
import { renderFish } from "./fish.ts";
import { SHELLS, type Shell } from "./model.ts";
import { renderZsh } from "./zsh.ts";

const USAGE = `Usage: umbel completion bash|zsh|fish

Prints a completion script for the shell: commands, flags, enum values, and worker names (from
umbel ls). Install it:
  bash  source <(umbel completion bash)                     in ~/.bashrc
  zsh   source <(umbel completion zsh)                      in ~/.zshrc, after compinit
  fish  umbel completion fish > ~/.config/fish/completions/umbel.fish
`;

const RENDER: Record<Shell, (version: string) => string> = {
  bash: renderBash,
  zsh: renderZsh,
  fish: renderFish,
};

/** `umbel completion SHELL`: the script on stdout. */
export function runCompletion(args: readonly string[], version: string, out: (text: string) => void): number {
  if (args.includes("--help") || args.includes("-h")) {
    out(USAGE);
    return 0;
  }
  const [shell, ...extra] = args;
  if (!SHELLS.includes(shell as Shell) || extra.length > 0)
    throw new UsageError(
      `umbel completion takes one of ${SHELLS.join(", ")} (got ${args.join(" ") || "nothing"})`,
      {
        args: [...args],
      },
    );
  out(RENDER[shell as Shell](version));
  return 0;
}
