import type { ContentBlock } from "@agentclientprotocol/sdk";

/**
 * An ACP prompt's content blocks as the text a TUI takes: text blocks as given; a resource link as
 * a line naming its file (a `file://` uri as its path); an embedded resource and an image written
 * to a file under the session's attachments folder (the worker may read it: spawn adds the folder
 * with --add-dir where the CLI takes one) and named the same way. Pure: the files are returned for
 * the operation to write.
 */
export type PromptFile = {
  readonly path: string;
  /** The file's bytes: text as UTF-8, or base64 for a blob or an image. */
  readonly text?: string;
  readonly base64?: string;
};

export type PromptPlan =
  | { readonly ok: true; readonly text: string; readonly files: readonly PromptFile[] }
  | { readonly ok: false; readonly reason: string };

export type PromptPlanOptions = {
  /** The folder attachments are written to (absolute). */
  readonly attachDir: string;
  /** The provider reads image files (claude's Read tool shows an image to the model). */
  readonly images: boolean;
  /** Distinguishes this prompt's files from an earlier prompt's (a counter, a time). */
  readonly stamp: string;
};

export function planPrompt(blocks: readonly ContentBlock[], options: PromptPlanOptions): PromptPlan {
  const parts: string[] = [];
  const files: PromptFile[] = [];
  const attach = (name: string, body: { text: string } | { base64: string }) => {
    const path = `${options.attachDir}/${options.stamp}-${files.length + 1}-${safeName(name)}`;
    files.push({ path, ...body });
    return path;
  };
  for (const block of blocks) {
    if (block.type === "text") {
      if (block.text !== "") parts.push(block.text);
    } else if (block.type === "resource_link") {
      parts.push(`(Attached file: ${pathOfUri(block.uri)})`);
    } else if (block.type === "resource") {
      const resource = block.resource;
      const name = baseName(resource.uri) || "resource";
      const path =
        "text" in resource ? attach(name, { text: resource.text }) : attach(name, { base64: resource.blob });
      parts.push(`(Attached file: ${path}, the contents of ${resource.uri})`);
    } else if (block.type === "image") {
      if (!options.images) return { ok: false, reason: "this provider takes no images in a prompt" };
      const name = block.uri ? baseName(block.uri) : `image${extensionOf(block.mimeType)}`;
      parts.push(`(Attached image: ${attach(name || "image", { base64: block.data })})`);
    } else {
      return { ok: false, reason: `a prompt's ${block.type} content is not supported` };
    }
  }
  const text = parts.join("\n\n");
  if (text.trim() === "") return { ok: false, reason: "the prompt is empty" };
  return { ok: true, text, files };
}

/** `file:///a/b%20c.txt` → `/a/b c.txt`; any other uri as it is. */
export function pathOfUri(uri: string): string {
  if (!uri.startsWith("file://")) return uri;
  const rest = uri.slice("file://".length);
  const path = rest.startsWith("/") ? rest : rest.slice(rest.indexOf("/"));
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function baseName(uri: string): string {
  const path = pathOfUri(uri).split(/[?#]/)[0] ?? "";
  return path.split("/").filter(Boolean).at(-1) ?? "";
}

function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 80) || "file";
}

function extensionOf(mimeType: string): string {
  const sub = mimeType.split("/")[1]?.split(/[+;]/)[0];
  return sub ? `.${sub === "jpeg" ? "jpg" : sub}` : "";
}
