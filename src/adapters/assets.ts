import { join } from "node:path";
import hookScript from "../../hooks/hook.sh" with { type: "text" };
import launchScript from "../../hooks/launch.sh" with { type: "text" };
import pluginScript from "../../hooks/opencode-plugin.js" with { type: "text" };
import statusLineScript from "../../hooks/statusline.sh" with { type: "text" };
import type { Assets } from "../core/ports.ts";
import { readTextOrNull, writeFileAtomic } from "./files.ts";

/**
 * The scripts are embedded in the binary and written under the state root on use, named by content
 * hash, so a newer binary never runs an older script and concurrent spawns write the same bytes.
 * 0600 like every file under the state root: they run as `sh <script>`, never by their exec bit.
 */
export async function installAssets(root: string): Promise<Assets> {
  const [launch, hook, plugin, statusLine] = await Promise.all([
    install(root, "launch", launchScript),
    install(root, "hook", hookScript),
    install(root, "opencode-plugin", pluginScript, ".js"),
    install(root, "statusline", statusLineScript),
  ]);
  return { launch, hook, plugin, statusLine };
}

async function install(root: string, stem: string, content: string, ext = ".sh"): Promise<string> {
  const hash = new Bun.CryptoHasher("sha256").update(content).digest("hex").slice(0, 12);
  const path = join(root, "bin", `${stem}-${hash}${ext}`);
  if ((await readTextOrNull(path)) !== content) await writeFileAtomic(path, content, 0o600);
  return path;
}
