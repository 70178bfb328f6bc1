import bashWasm from "tree-sitter-bash/tree-sitter-bash.wasm" with { type: "file" };
import { Language, type Node, Parser } from "web-tree-sitter";
import coreWasm from "web-tree-sitter/web-tree-sitter.wasm" with { type: "file" };
import type { ShellNode, ShellParse } from "../../core/fleet/policy/shell-tree.ts";

/**
 * The shell parser of spawn --allow/--deny: tree-sitter-bash 0.25.1 on web-tree-sitter 0.27.2, both
 * WebAssembly embedded in the binary (docs/architecture.md says why this one). Loading costs ~60 ms
 * (measured on the 2-core CI machine: the two modules' compilation), so only a call a rule must read
 * as a shell command loads it. Its tree is handed to core as plain ShellNodes.
 */
export async function loadShellParser(): Promise<ShellParse> {
  const [core, bash] = await Promise.all([Bun.file(coreWasm).bytes(), Bun.file(bashWasm).bytes()]);
  await Parser.init({ wasmBinary: core });
  const language = await Language.load(bash);
  const parser = new Parser();
  parser.setLanguage(language);
  return (script) => {
    const tree = parser.parse(script);
    if (tree === null) return null;
    try {
      return toShellNode(tree.rootNode, null);
    } finally {
      tree.delete();
    }
  };
}

function toShellNode(node: Node, field: string | null): ShellNode {
  const children: ShellNode[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child !== null) children.push(toShellNode(child, node.fieldNameForChild(i)));
  }
  return {
    type: node.type,
    named: node.isNamed,
    field,
    text: node.text,
    error: node.isError || node.isMissing,
    children,
  };
}
