// A ustar archive of one file, written and read without tar(1), so a release's .tar.gz is the same
// on every build machine (GNU and BSD tar disagree on flags for owners and times).

const BLOCK = 512;

export type TarEntry = { readonly name: string; readonly mode: number; readonly content: Uint8Array };

export function tarOneFile(
  name: string,
  content: Uint8Array,
  options: { mode: number; mtime: number },
): Uint8Array<ArrayBuffer> {
  const header = new Uint8Array(BLOCK);
  const put = (text: string, at: number) => header.set(new TextEncoder().encode(text), at);
  const octal = (value: number, width: number) => `${value.toString(8).padStart(width - 1, "0")}\0`;
  put(name, 0);
  put(octal(options.mode, 8), 100);
  put(octal(0, 8), 108); // uid
  put(octal(0, 8), 116); // gid
  put(octal(content.length, 12), 124);
  put(octal(Math.floor(options.mtime), 12), 136);
  put("        ", 148); // the checksum field counts as spaces while summing
  put("0", 156); // a regular file
  put("ustar\u000000", 257);
  put("root", 265);
  put("root", 297);
  const sum = header.reduce((a, b) => a + b, 0);
  put(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  const padded = Math.ceil(content.length / BLOCK) * BLOCK;
  const out = new Uint8Array(BLOCK + padded + 2 * BLOCK); // two zero blocks end the archive
  out.set(header, 0);
  out.set(content, BLOCK);
  return out;
}

/** Regular files only; enough to check what tarOneFile wrote (and what a release holds). */
export function readTar(tar: Uint8Array): TarEntry[] {
  const entries: TarEntry[] = [];
  const text = (from: number, to: number) =>
    new TextDecoder().decode(tar.subarray(from, to)).replace(/\0.*$/s, "");
  for (let at = 0; at + BLOCK <= tar.length; ) {
    const name = text(at, at + 100);
    if (name === "") break;
    const mode = Number.parseInt(text(at + 100, at + 108).trim(), 8);
    const size = Number.parseInt(text(at + 124, at + 136).trim(), 8);
    entries.push({ name, mode, content: tar.slice(at + BLOCK, at + BLOCK + size) });
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}
