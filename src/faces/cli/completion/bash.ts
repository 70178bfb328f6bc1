import type { FlagInfo } from "../flags.ts";
import type { Argument, CompletionCommand } from "./command.ts";
import { argumentPlaces, completionCommands, valueFlags } from "./model.ts";

/**
 * `umbel completion bash`: `source <(umbel completion bash)` in ~/.bashrc. Worker names come from
 * `umbel ls` (the first column of its table) at the moment Tab is pressed.
 */
export function renderBash(version: string): string {
  const commands = completionCommands();
  const names = commands
    .filter((c) => c.word)
    .map((c) => c.name)
    .join(" ");
  const firstFlags = ["-p", "--print", "--help", "--version"].join(" ");
  return `# bash completion for umbel ${version}: source <(umbel completion bash)
# Generated from umbel's verb table and schemas; regenerate after an upgrade.
_umbel_workers() { command umbel ls 2>/dev/null | awk 'NR > 1 { print $1 }'; }

_umbel() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} cmd=\${COMP_WORDS[1]}
  local flags="" values="" i word args=0
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "${firstFlags}" -- "$cur"))
    else COMPREPLY=($(compgen -W "${names}" -- "$cur")); fi
    return 0
  fi
${commands.flatMap(aliasLines).join("\n")}
  case "$cmd" in
${commands.map(flagLists).join("\n")}
    *) return 0 ;;
  esac
  case "$cmd $prev" in
${commands.flatMap(valueCases).join("\n")}
  esac
  if [[ " $values " == *" $prev "* ]]; then return 0; fi
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); return 0; fi
  # Arguments before this word that are neither flags nor their values.
  for ((i = 2; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    [[ $word == -* ]] && continue
    [[ " $values " == *" \${COMP_WORDS[i-1]} "* ]] && continue
    args=$((args + 1))
  done
  case "$cmd" in
${commands.flatMap(argumentCases).join("\n")}
  esac
  return 0
}
complete -F _umbel umbel
`;
}

function aliasLines(c: CompletionCommand): string[] {
  return c.aliases.map((alias) => `  [ "$cmd" = ${alias} ] && cmd=${c.name}`);
}

function flagLists(c: CompletionCommand): string {
  const flags = c.flags.flatMap((f) => (f.alias ? [`-${f.alias}`, f.flag] : [f.flag])).join(" ");
  return `    ${c.name}) flags="${flags}"; values="${valueFlags(c).join(" ")}" ;;`;
}

function valueCases(c: CompletionCommand): string[] {
  return c.flags.flatMap((f: FlagInfo) => {
    const action =
      f.choices.length > 0
        ? `COMPREPLY=($(compgen -W "${f.choices.join(" ")}" -- "$cur"))`
        : f.completes === "dir"
          ? `COMPREPLY=($(compgen -d -- "$cur"))`
          : f.completes === "file"
            ? `COMPREPLY=($(compgen -f -- "$cur"))`
            : null;
    const spellings = f.alias ? [f.flag, `-${f.alias}`] : [f.flag];
    return action
      ? [`    ${spellings.map((s) => `"${c.name} ${s}"`).join("|")}) ${action}; return 0 ;;`]
      : [];
  });
}

/** `cmd) case $args in 0) … ;; *) … ;; esac ;;`: what each place completes to. */
function argumentCases(c: CompletionCommand): string[] {
  const places = argumentPlaces(c);
  if (places.length === 0) return [];
  const inner = places.map((p) => `${p.place}) ${action(p.argument)} ;;`).join(" ");
  return [`    ${c.name}) case $args in ${inner} esac ;;`];
}

function action(argument: Argument): string {
  if (argument.kind === "worker") return `COMPREPLY=($(compgen -W "$(_umbel_workers)" -- "$cur"))`;
  if (argument.kind === "workflow") return `COMPREPLY=($(compgen -f -- "$cur"))`;
  if (argument.kind === "choices")
    return `COMPREPLY=($(compgen -W "${argument.values.join(" ")}" -- "$cur"))`;
  return ":";
}
