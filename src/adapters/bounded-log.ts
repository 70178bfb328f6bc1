import { closeSync, constants, openSync, writeSync } from "node:fs";
import { asFileFault } from "./files.ts";

/**
 * A log written from a stream that keeps its first and its last `keep` bytes: the head goes to the
 * file as it comes, the tail is held in memory (at most `keep` bytes), and at the end a line saying
 * how much was cut is written between them. The file is made 0600 with O_NOFOLLOW: a link planted
 * where the log goes is refused (ELOOP), never written through.
 */
export type BoundedLog = {
  write(chunk: Uint8Array): void;
  /** Writes the tail (and the cut line); returns how many bytes came and how many were cut. */
  close(): { bytes: number; cut: number };
};

export function openBoundedLog(path: string, keep: number, what: string): BoundedLog {
  let fd: number;
  try {
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o600,
    );
  } catch (error) {
    throw asFileFault(error, path, "write");
  }
  let bytes = 0;
  let tail: Uint8Array[] = [];
  let held = 0;
  const put = (data: Uint8Array) => {
    let done = 0;
    while (done < data.length) done += writeSync(fd, data, done, data.length - done);
  };
  return {
    write(chunk) {
      const head = Math.max(0, Math.min(chunk.length, keep - bytes));
      bytes += chunk.length;
      if (head > 0) put(chunk.subarray(0, head));
      if (head === chunk.length) return;
      tail.push(chunk.subarray(head));
      held += chunk.length - head;
      while (held > keep) {
        const first = tail[0] as Uint8Array;
        const over = held - keep;
        if (first.length <= over) {
          tail.shift();
          held -= first.length;
        } else {
          tail[0] = first.subarray(over);
          held -= over;
        }
      }
    },
    close() {
      const cut = bytes - Math.min(bytes, keep) - held;
      try {
        if (cut > 0)
          put(
            new TextEncoder().encode(
              `\n[umbel: ${cut} bytes of this ${what}'s output were cut here; the log keeps its first and last ${keep} bytes]\n`,
            ),
          );
        for (const part of tail) put(part);
      } finally {
        tail = [];
        closeSync(fd);
      }
      return { bytes, cut };
    },
  };
}
