import { writeSync } from "node:fs";

/**
 * Writes all of `text` to a standard stream's fd, synchronously. Measured on a compiled umbel: the
 * first `process.stdout.write` builds Bun's node:stream machinery, 5 ms of CPU (stderr's: 13 ms), in
 * a verb whose whole run is ~40 ms; a direct write costs nothing. Synchronous also means ordered and
 * never lost to main.ts's process.exit. A non-blocking fd that is full (EAGAIN: a slow reader of a
 * pipe someone made non-blocking) is retried after 1 ms; a reader that went away (EPIPE), a closed
 * fd or a hung-up terminal ends the writing quietly, as the stream did (`umbel --help | head -1`
 * exits 0).
 */
export function writeAllSync(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      const code = (error as { code?: string }).code;
      // Nobody reads any more (EIO: the terminal hung up, as after a SIGHUP).
      if (code === "EPIPE" || code === "EBADF" || code === "EIO") return;
      if (code !== "EAGAIN") throw error; // a full disk behind a redirect is not quietly lost
      Atomics.wait(PAUSE, 0, 0, 1);
    }
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));
