// SHA256SUMS in sha256sum(1)'s own format (`<hex>  <name>`), so `sha256sum -c` and `shasum -a 256 -c`
// check a download, and so does scripts/install.sh.
import { createHash } from "node:crypto";

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

export function renderChecksums(sums: Readonly<Record<string, string>>): string {
  return Object.keys(sums)
    .sort()
    .map((name) => `${sums[name]}  ${name}\n`)
    .join("");
}

export function parseChecksums(text: string): Record<string, string> {
  const sums: Record<string, string> = {};
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const m = /^([0-9a-f]{64}) [ *](\S+)$/.exec(line);
    if (!m?.[1] || !m[2]) throw new Error(`SHA256SUMS line ${i + 1} is not "<sha256>  <name>": ${line}`);
    sums[m[2]] = m[1];
  });
  return sums;
}
