import type { FlagInfo } from "../flags.ts";
import type { Argument, CompletionCommand } from "./command.ts";
import { argumentPlaces, completionCommands, shortText, valueFlags } from "./model.ts";

/**
 * `umbel completion zsh`: `source <(umbel completion zsh)` after compinit in ~/.zshrc, or save it
 * as `_umbel` in a folder of $fpath. Candidates go through compadd, so zsh's own matching applies.
 */
export function renderZsh(version: string): string {
  const commands = completionCommands();
  const words = commands.filter((c) => c.word);
  return `#compdef umbel
# zsh completion for umbel ${version}: source <(umbel completion zsh) after compinit,
# or save it as _umbel in a folder of $fpath. Generated from umbel's verb table and schemas.
_umbel_workers() { command umbel ls 2>/dev/null | awk 'NR > 1 { print $1 }' }

_umbel() {
  local cmd=\${words[2]} prev=\${words[CURRENT-1]} cur=\${words[CURRENT]}
  local -a flags values commands descriptions
  local i args=0
  if (( CURRENT == 2 )); then
    commands=(${words.map((c) => c.name).join(" ")})
    descriptions=(${words.map((c) => quote(`${c.name.padEnd(11)}-- ${shortText(c.summary)}`)).join(" ")})
    if [[ $cur == -* ]]; then compadd -- -p --print --help --version; else compadd -l -d descriptions -- $commands; fi
    return 0
  fi
${commands.flatMap(aliasLines).join("\n")}
  case $cmd in
${commands.map(flagLists).join("\n")}
    *) return 1 ;;
  esac
  case "$cmd $prev" in
${commands.flatMap(valueCases).join("\n")}
  esac
  (( \${values[(Ie)$prev]} )) && return 0
  if [[ $cur == -* ]]; then compadd -- $flags; return 0; fi
  # Arguments before this word that are neither flags nor their values.
  for (( i = 3; i < CURRENT; i++ )); do
    [[ \${words[i]} == -* ]] && continue
    (( \${values[(Ie)\${words[i-1]}]} )) && continue
    (( args++ ))
  done
  case $cmd in
${commands.flatMap(argumentCases).join("\n")}
  esac
  return 0
}

if [[ \${funcstack[1]} == _umbel ]]; then _umbel "$@"; else compdef _umbel umbel; fi
`;
}

function aliasLines(c: CompletionCommand): string[] {
  return c.aliases.map((alias) => `  [[ $cmd == ${alias} ]] && cmd=${c.name}`);
}

function flagLists(c: CompletionCommand): string {
  const flags = c.flags.flatMap((f) => (f.alias ? [`-${f.alias}`, f.flag] : [f.flag])).join(" ");
  return `    ${pattern(c.name)}) flags=(${flags}); values=(${valueFlags(c).join(" ")}) ;;`;
}

function valueCases(c: CompletionCommand): string[] {
  return c.flags.flatMap((f: FlagInfo) => {
    const action =
      f.choices.length > 0
        ? `compadd -- ${f.choices.join(" ")}`
        : f.completes === "dir"
          ? "_files -/"
          : f.completes === "file"
            ? "_files"
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
  const inner = places.map((p) => `(${p.place}) ${action(p.argument)} ;;`).join(" ");
  return [`    ${pattern(c.name)}) case $args in ${inner} esac ;;`];
}

function action(argument: Argument): string {
  if (argument.kind === "worker") return `compadd -- \${(f)"$(_umbel_workers)"}`;
  if (argument.kind === "workflow") return "_files -g '*.(yaml|yml)'";
  if (argument.kind === "choices") return `compadd -- ${argument.values.join(" ")}`;
  return ":";
}

/** A case pattern: `-p` would read as an option to nothing, but zsh's case takes it quoted. */
function pattern(name: string): string {
  return name.startsWith("-") ? `"${name}"` : name;
}

/** A single-quoted zsh word. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
