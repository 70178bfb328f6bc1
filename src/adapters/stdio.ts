import { fstatSync, writeSync } from "node:fs";

/**
 * Writes all of `text` to a standard stream's fd, synchronously. Measured on a compiled umbel: the
 * first `process.stdout.write` builds Bun's node:stream machinery, 5 ms of CPU (stderr's: 13 ms), in
 * a verb whose whole run is ~40 ms; a direct write costs nothing. Synchronous also means ordered and
 * never lost to main.ts's process.exit. A non-blocking fd that is full (EAGAIN: a slow reader of a
 * pipe someone made non-blocking) is retried after 1 ms; a reader that went away, a closed fd or a
 * hung-up terminal ends the writing quietly, as the stream did (`umbel --help | head -1` exits 0). A
 * reader that went away is EPIPE on a pipe, and ECONNRESET on a socketpair (what Bun.spawn and Node
 * give a child for "pipe") when it closed with bytes unread while this write waited for room; a
 * terminal that hung up (as after a SIGHUP) is EIO, which is quiet only on a terminal (a character
 * device): behind a redirect to a file it is the disk's error, never quietly lost.
 */
export function writeAllSync(fd: number, text: string, write: WriteFd = writeSync): void {
  const bytes = Buffer.from(text);
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += write(fd, bytes, offset);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== undefined && GONE.has(code)) return; // nobody reads any more
      if (code === "EIO" && isTerminal(fd)) return; // the terminal hung up
      if (code !== "EAGAIN") throw error; // a full disk behind a redirect is not quietly lost
      Atomics.wait(PAUSE, 0, 0, 1);
    }
  }
}

/** The one call writeAllSync makes; tests give a stand-in. */
type WriteFd = (fd: number, bytes: Buffer, offset: number) => number;

const GONE = new Set(["EPIPE", "ECONNRESET", "EBADF"]);
/** fstat, not isatty: a hung-up terminal answers isatty's ioctl with EIO too. */
function isTerminal(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * isatty(3) on a standard stream's fd, as node:tty's isatty answers, without importing node:tty:
 * that import builds Bun's node:stream machinery (tty.ReadStream and WriteStream are streams), 4 ms
 * of CPU at every start (a compiled hello: 5.6 ms). It is the tty binding node:tty itself calls;
 * node:tty only where a runtime has no such binding.
 */
export function isatty(fd: number): boolean {
  return ttyBinding()(fd);
}

type IsTty = (fd: number) => boolean;

function ttyBinding(): IsTty {
  try {
    const binding = (process as { binding?: (name: string) => { isTTY?: unknown } }).binding?.("tty_wrap");
    const isTTY = binding?.isTTY;
    if (typeof isTTY === "function") return (fd) => Number.isInteger(fd) && fd >= 0 && isTTY(fd) === true;
  } catch {
    // No such binding here: node:tty's own answer below.
  }
  return process.getBuiltinModule("node:tty").isatty;
}
